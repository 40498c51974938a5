//! Built-in tool implementations, looked up by tool id. Each domain folder holds the tool
//! families of one subject; `kit` holds what they share and imports none of them.
//!
//! Each family module exports `TOOLS`: a descriptor ([`Tool`]) per tool, with its id, its
//! function and, if it streams, its plan. A function receives parameters already normalised,
//! validated and defaulted by the executor.

pub mod kit;
pub mod streaming;

mod config;
mod crypto;
mod encoding;
mod formats;
mod graphics;
mod identifiers;
mod json;
mod markup;
mod network;
mod numbers;
mod sql;
mod system;
mod text;
mod time;

#[cfg(test)]
mod parse_equivalence;

// The kit's modules keep the paths the rest of the crate has always used.
pub use kit::args::{self, Args};
pub use kit::b64;
#[cfg(any(test, feature = "testing"))]
pub use kit::testing;
pub use kit::tool::{Stream, Tool, ToolFn};
pub use kit::{budget, chunks, data, depth};
// The one YAML 1.1-safe writer, for documents the crate writes (openapi.yaml).
pub use config::yaml::value_to_yaml;

const FAMILIES: &[&[Tool]] = &[
    text::art::TOOLS,
    numbers::bits::TOOLS,
    text::case::TOOLS,
    crypto::cipher::TOOLS,
    crypto::checksums::TOOLS,
    crypto::classic_ciphers::TOOLS,
    encoding::chars::TOOLS,
    text::cleanup::TOOLS,
    formats::compression::TOOLS,
    time::cron::TOOLS,
    time::dates::TOOLS,
    formats::detect::TOOLS,
    formats::tabular::TOOLS,
    text::diff::TOOLS,
    system::docker::TOOLS,
    encoding::encoders::TOOLS,
    encoding::escape::TOOLS,
    text::extract::TOOLS,
    formats::files::TOOLS,
    numbers::geo::TOOLS,
    crypto::fernet::TOOLS,
    crypto::hash_id::TOOLS,
    crypto::hashing::TOOLS,
    identifiers::ids::TOOLS,
    network::ipv6::TOOLS,
    json::format::TOOLS,
    json::query::TOOLS,
    crypto::jwt::TOOLS,
    crypto::keyformats::TOOLS,
    crypto::kdf::TOOLS,
    crypto::keys::TOOLS,
    text::layout::TOOLS,
    text::lines::TOOLS,
    text::lists::TOOLS,
    network::lookup::TOOLS,
    text::lorem::TOOLS,
    markup::markdown::TOOLS,
    network::addresses::TOOLS,
    numbers::bases::TOOLS,
    crypto::otp::TOOLS,
    crypto::passwords::TOOLS,
    graphics::qr::TOOLS,
    text::replace::TOOLS,
    numbers::roman::TOOLS,
    text::pattern::TOOLS,
    crypto::secrets::TOOLS,
    sql::TOOLS,
    text::stats::TOOLS,
    graphics::svg::TOOLS,
    time::timestamps::TOOLS,
    config::toml::TOOLS,
    identifiers::validators::TOOLS,
    crypto::x509::TOOLS,
    network::web::TOOLS,
    markup::xml::TOOLS,
    config::yaml::TOOLS,
    graphics::color::TOOLS,
    time::durations::TOOLS,
    numbers::math::TOOLS,
    text::measure::TOOLS,
    numbers::modular::TOOLS,
    system::permissions::TOOLS,
    numbers::units::TOOLS,
    encoding::radix::TOOLS,
    encoding::text_codecs::TOOLS,
    encoding::hexdump::TOOLS,
    encoding::signals::TOOLS,
    formats::binary_formats::TOOLS,
    formats::protobuf::TOOLS,
    markup::xml_query::TOOLS,
    markup::html::TOOLS,
    json::jq::TOOLS,
    text::template::TOOLS,
    markup::css::TOOLS,
];

/// Every built-in tool's descriptor, in family order.
pub fn descriptors() -> impl Iterator<Item = &'static Tool> {
    FAMILIES.iter().flat_map(|family| family.iter())
}

/// The descriptor of built-in tool `id`, if cmpx has one.
pub fn descriptor(id: &str) -> Option<&'static Tool> {
    descriptors().find(|tool| tool.id == id)
}

/// The implementation of a built-in tool, if cmpx has one.
pub fn implementation(id: &str) -> Option<ToolFn> {
    descriptor(id).map(|tool| tool.run)
}

/// Every implemented tool id, in family order.
pub fn implemented_ids() -> impl Iterator<Item = &'static str> {
    descriptors().map(|tool| tool.id)
}

/// Whether two JSON values have the same shape: same keys, same types, same array lengths and
/// same string lengths in characters.
pub fn same_shape(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (a, b) {
        (Null, Null) | (Bool(_), Bool(_)) | (Number(_), Number(_)) => true,
        (String(x), String(y)) => x.chars().count() == y.chars().count(),
        (Array(x), Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_shape(x, y))
        }
        (Object(x), Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_shape(v, w)))
        }
        _ => false,
    }
}
