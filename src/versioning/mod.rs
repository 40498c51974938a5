//! Tool versions that mean something: each tool's public surface, a committed lock of the
//! catalogue's surfaces, and the semver rule a change must follow (SPEC.md "Versions").

pub(crate) mod diff;
pub(crate) mod lock;
pub(crate) mod surface;

pub(crate) use diff::Bump;
