//! JSON: the formatter and minifier with the literal-preserving reader and writer the
//! converters share, their streaming scanner and emitter, jq filters, JSONPath and JSON diff.

pub(super) mod emit;
pub(super) mod format;
pub(super) mod jq;
pub(super) mod query;
pub(super) mod scan;
pub(super) mod simd;
pub(super) mod sink;
pub(super) mod stream;

// The JSON reader and writer the converters in other domains share (`json::parse_value`).
pub(crate) use format::{
    Emitter, Node, check_tree, formatted_too_large, json_error, parse, parse_value,
    parse_value_counting, to_compact, top_level, unquote, validate, write_indented,
};
