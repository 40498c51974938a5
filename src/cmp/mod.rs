//! The CMP model: manifests, capabilities, the registry of installed tools and the exporter.

pub mod atomic;
pub mod capability;
pub mod export;
pub mod manifest;
pub mod mapping;
pub mod registry;
pub mod validate;

pub use capability::{Capability, Examples, Intent, ParamSpec};
pub use manifest::Manifest;
