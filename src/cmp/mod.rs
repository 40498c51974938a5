//! The CMP model: manifests, capabilities, the registry of installed tools and the exporter.

pub mod atomic;
pub mod capability;
pub mod effects;
pub mod export;
pub mod lock;
pub mod manifest;
pub mod mapping;
pub mod read;
pub mod registry;
pub mod schema;
pub mod shell_code;
pub mod staging;
pub mod validate;

pub use capability::{Capability, Examples, Intent, ParamSpec};
pub use manifest::Manifest;
