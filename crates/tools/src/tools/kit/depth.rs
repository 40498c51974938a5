//! The nesting limit every tool applies to what it parses, the one message that reports it,
//! and a cheap scanner that finds the depth of bracketed text before a recursive parser sees it.
//!
//! Parsers, tree walkers and printers recurse once per level of nesting, so unbounded nesting
//! overflows the stack (an abort no caller can catch) or, where output is indented, grows
//! quadratically. Every tool therefore refuses input that nests deeper than [`MAX_DEPTH`]
//! levels, except where the parser it uses stops earlier ([`JSON_DEPTH`], [`YAML_DEPTH`],
//! [`TOML_DEPTH`]); then that parser's limit is the tool's limit, reported with the same message.

use crate::ctp::ToolError;

/// The nesting limit of markup, stylesheets, expressions, queries, programs and DER.
/// Browsers cap the HTML tree at the same depth (Blink's parser flattens beyond 512).
pub const MAX_DEPTH: usize = 512;
/// JSON, and the binary formats that decode to JSON (MessagePack, CBOR, property lists):
/// serde_json stops at 128, and what the JSON tools cannot read back they should not write.
pub const JSON_DEPTH: usize = 128;
/// YAML: serde_norway stops at 128.
pub const YAML_DEPTH: usize = 128;
/// TOML: the toml crate stops at 80.
pub const TOML_DEPTH: usize = 80;

/// Where the limit was crossed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Place {
    /// Line and column, both from 1; columns count characters.
    Text {
        line: usize,
        column: usize,
    },
    /// A line, where the column is not known.
    Line(usize),
    /// A byte offset into binary input.
    Byte(usize),
    Unknown,
}

/// `what nests deeper than N levels (at line L, column C)`: INVALID_INPUT.
pub fn too_deep(what: &str, limit: usize, place: Place) -> ToolError {
    let at = match place {
        Place::Text { line, column } => format!(" (at line {line}, column {column})"),
        Place::Line(line) => format!(" (at line {line})"),
        Place::Byte(offset) => format!(" (at byte {offset})"),
        Place::Unknown => String::new(),
    };
    ToolError::invalid(format!(
        "{what} nests deeper than {limit} levels{at}; cmpx stops there so that no input can exhaust the stack"
    ))
}

/// The line and column of byte `offset` in `src`.
pub fn place(src: &str, offset: usize) -> Place {
    let mut end = offset.min(src.len());
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    let before = &src[..end];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    Place::Text {
        line,
        column: before[start..].chars().count() + 1,
    }
}

/// The bracket syntax of a small language, for [`check`].
pub struct Syntax {
    /// Opening brackets, and the closing ones in the same order.
    pub open: &'static [u8],
    pub close: &'static [u8],
    /// Characters that start and end a string literal.
    pub quotes: &'static [u8],
    /// A backslash escapes the next character inside strings.
    pub escapes: bool,
    /// `/* … */` comments.
    pub block_comments: bool,
    /// jq's `"\( … )"`: an interpolation opens a level inside a string.
    pub interpolation: bool,
    /// Bytes after which a pretty-printer starts a new, indented line (CSS: `{`, `;`, `}`).
    pub line_breaks: &'static [u8],
}

/// What [`check`] learnt on the way.
#[derive(Debug, Default, PartialEq)]
pub struct Shape {
    /// Line breaks (see [`Syntax::line_breaks`]) outside strings and comments.
    pub lines: usize,
    /// The nesting level summed over those line breaks: how many indentation units a printer
    /// that indents each level writes.
    pub indents: usize,
}

/// Refuses `src` when its brackets nest deeper than `limit`, pointing at the bracket that
/// crosses it. Strings and comments are skipped; unbalanced brackets are left to the parser.
pub fn check(what: &str, src: &str, syntax: &Syntax, limit: usize) -> Result<Shape, ToolError> {
    let mut shape = Shape::default();
    let bytes = src.as_bytes();
    // What each open level is: a bracket, or an interpolation inside the string `quote`.
    let mut stack: Vec<Option<u8>> = Vec::new();
    let mut i = 0;
    let mut in_string: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = in_string {
            if syntax.escapes && b == b'\\' {
                if syntax.interpolation && bytes.get(i + 1) == Some(&b'(') {
                    stack.push(Some(q));
                    in_string = None;
                    if stack.len() > limit {
                        return Err(too_deep(what, limit, place(src, i)));
                    }
                }
                i += 2;
                continue;
            }
            if b == q {
                in_string = None;
            }
            i += 1;
            continue;
        }
        if syntax.block_comments && bytes[i..].starts_with(b"/*") {
            i = src[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |end| i + 2 + end + 2);
            continue;
        }
        if syntax.quotes.contains(&b) {
            in_string = Some(b);
        } else if syntax.open.contains(&b) {
            stack.push(None);
            if stack.len() > limit {
                return Err(too_deep(what, limit, place(src, i)));
            }
        } else if syntax.close.contains(&b) {
            // An interpolation ends at its `)` and the string it sits in resumes.
            if let Some(Some(q)) = stack.pop() {
                in_string = Some(q);
            }
        }
        if syntax.line_breaks.contains(&b) {
            shape.lines += 1;
            shape.indents += stack.len();
        }
        i += 1;
    }
    Ok(shape)
}

/// The stack [`with_stack`] gives: parsers that recurse per level take up to tens of KiB a
/// frame in debug builds, and a caller's thread may have as little as 2 MiB (test threads).
/// Pages are only touched as they are used.
const STACK: usize = 64 << 20;

/// Runs a tool body whose parser recurses once per level (within [`MAX_DEPTH`]) on a thread of
/// its own with a [`STACK`]-sized stack, whatever thread the call came in on.
pub fn with_stack<T: Send>(
    f: impl FnOnce() -> Result<T, ToolError> + Send,
) -> Result<T, ToolError> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("cmpx-deep".into())
            .stack_size(STACK)
            .spawn_scoped(scope, f)
            .map_err(|e| ToolError::execution(format!("could not start a worker thread: {e}")))?;
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENS: Syntax = Syntax {
        open: b"([",
        close: b")]",
        quotes: b"'\"",
        escapes: true,
        block_comments: true,
        interpolation: false,
        line_breaks: b"",
    };

    #[test]
    fn the_message_names_what_the_limit_and_where() {
        let e = too_deep("input", 512, Place::Text { line: 3, column: 7 });
        assert_eq!(e.code, crate::ctp::ErrorCode::InvalidInput);
        assert_eq!(
            e.message,
            "input nests deeper than 512 levels (at line 3, column 7); cmpx stops there so that no input can exhaust the stack"
        );
        assert!(
            too_deep("input", 128, Place::Byte(9))
                .message
                .starts_with("input nests deeper than 128 levels (at byte 9);")
        );
    }

    #[test]
    fn places_count_lines_and_characters() {
        assert_eq!(place("ab\ncé(", 6), Place::Text { line: 2, column: 3 });
        assert_eq!(place("x", 99), Place::Text { line: 1, column: 2 });
    }

    #[test]
    fn brackets_inside_strings_and_comments_do_not_count() {
        let deep = "(".repeat(4) + &")".repeat(4);
        assert_eq!(check("q", &deep, &PARENS, 4), Ok(Shape::default()));
        let e = check("q", &deep, &PARENS, 3).unwrap_err();
        assert!(e.message.contains("(at line 1, column 4)"), "{}", e.message);
        let quoted = format!("'{}' \"\\\"(((\" /* (((( */ [()]", "(".repeat(50));
        assert!(check("q", &quoted, &PARENS, 2).is_ok());
    }

    #[test]
    fn line_breaks_sum_their_levels() {
        let css = Syntax {
            open: b"{(",
            close: b"})",
            line_breaks: b"{;}",
            ..PARENS
        };
        // a{b:c;d{e:f;}} : `{` at 1, `;` at 1, `{` at 2, `;` at 2, `}` at 1, `}` at 0.
        let shape = check("input", "a{b:c;d{e:f;}}", &css, 8).unwrap();
        assert_eq!(
            shape,
            Shape {
                lines: 6,
                indents: 7
            }
        );
    }

    #[test]
    fn interpolations_open_a_level_inside_strings() {
        let jq = Syntax {
            interpolation: true,
            ..PARENS
        };
        // "\( "\( "\(1)" )" )": three interpolations, each a level.
        let src = r#""\("\("\(1)")")""#;
        assert!(check("filter", src, &jq, 3).is_ok());
        assert!(check("filter", src, &jq, 2).is_err());
    }
}
