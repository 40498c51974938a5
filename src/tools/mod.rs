//! Built-in tool implementations, one module per family, looked up by tool id.
//!
//! Each family module exports `TOOLS`: the ids it implements and their functions. A function
//! receives parameters already normalised, validated and defaulted by the executor.

pub mod args;
pub(crate) mod b64;
pub mod budget;
pub mod chunks;
pub mod data;
pub mod depth;
#[cfg(test)]
mod parse_equivalence;
pub mod streaming;
#[cfg(test)]
pub mod testing;

mod art;
mod binary_formats;
mod bits;
mod case;
mod chars;
mod checksums;
mod cipher;
mod classic_ciphers;
mod cleanup;
mod color;
mod compression;
mod cron;
mod css;
mod css_layout;
mod dates;
mod detect;
mod diff;
mod docker;
mod durations;
mod encoding;
mod escape;
mod extract;
mod fernet;
mod files;
mod geo;
mod hash_id;
mod hashing;
mod hexdump;
mod html;
mod html_scan;
mod ids;
mod ipv6;
mod jq;
mod json;
mod json_emit;
mod json_query;
mod json_scan;
mod json_sink;
mod json_stream;
mod jwt;
mod kdf;
mod keyformats;
mod keys;
mod layout;
mod line_breaks;
mod lines;
mod lists;
mod lookup;
mod lorem;
mod markdown;
mod math;
mod measure;
mod modular;
mod network;
mod numbers;
mod oid;
mod otp;
mod passwords;
mod pattern;
mod permissions;
mod protobuf;
mod qr;
mod radix;
mod replace;
mod roman;
mod secrets;
mod signals;
mod sql;
mod stats;
mod svg;
mod tabular;
mod template;
mod text_codecs;
mod time;
mod toml;
mod units;
mod validators;
mod web;
mod x509;
mod xml;
mod xml_query;
mod yaml;

pub use args::Args;

use crate::ctp::ToolOutcome;

pub type ToolFn = fn(&Args) -> ToolOutcome;

const FAMILIES: &[&[(&str, ToolFn)]] = &[
    art::TOOLS,
    bits::TOOLS,
    case::TOOLS,
    cipher::TOOLS,
    checksums::TOOLS,
    classic_ciphers::TOOLS,
    chars::TOOLS,
    cleanup::TOOLS,
    compression::TOOLS,
    cron::TOOLS,
    dates::TOOLS,
    detect::TOOLS,
    tabular::TOOLS,
    diff::TOOLS,
    docker::TOOLS,
    encoding::TOOLS,
    escape::TOOLS,
    extract::TOOLS,
    files::TOOLS,
    geo::TOOLS,
    fernet::TOOLS,
    hash_id::TOOLS,
    hashing::TOOLS,
    ids::TOOLS,
    ipv6::TOOLS,
    json::TOOLS,
    json_query::TOOLS,
    jwt::TOOLS,
    keyformats::TOOLS,
    kdf::TOOLS,
    keys::TOOLS,
    layout::TOOLS,
    lines::TOOLS,
    lists::TOOLS,
    lookup::TOOLS,
    lorem::TOOLS,
    markdown::TOOLS,
    network::TOOLS,
    numbers::TOOLS,
    otp::TOOLS,
    passwords::TOOLS,
    qr::TOOLS,
    replace::TOOLS,
    roman::TOOLS,
    pattern::TOOLS,
    secrets::TOOLS,
    sql::TOOLS,
    stats::TOOLS,
    svg::TOOLS,
    time::TOOLS,
    toml::TOOLS,
    validators::TOOLS,
    x509::TOOLS,
    web::TOOLS,
    xml::TOOLS,
    yaml::TOOLS,
    color::TOOLS,
    durations::TOOLS,
    math::TOOLS,
    measure::TOOLS,
    modular::TOOLS,
    permissions::TOOLS,
    units::TOOLS,
    radix::TOOLS,
    text_codecs::TOOLS,
    hexdump::TOOLS,
    signals::TOOLS,
    binary_formats::TOOLS,
    protobuf::TOOLS,
    xml_query::TOOLS,
    html::TOOLS,
    jq::TOOLS,
    template::TOOLS,
    css::TOOLS,
];

/// The implementation of a built-in tool, if cmpx has one.
pub fn implementation(id: &str) -> Option<ToolFn> {
    FAMILIES
        .iter()
        .flat_map(|family| family.iter())
        .find(|(tool, _)| *tool == id)
        .map(|(_, f)| *f)
}

/// Every implemented tool id, in family order.
pub fn implemented_ids() -> impl Iterator<Item = &'static str> {
    FAMILIES
        .iter()
        .flat_map(|family| family.iter())
        .map(|(id, _)| *id)
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
