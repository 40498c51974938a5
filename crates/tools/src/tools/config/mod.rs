//! Configuration formats: YAML and TOML, converted to and from JSON and each other.

pub(super) mod toml;
pub(super) mod yaml;
