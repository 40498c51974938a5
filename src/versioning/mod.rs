//! Tool versions that mean something: each tool's public surface, a committed lock of the
//! catalogue's surfaces, and the semver rule a change must follow (SPEC.md "Versions").

pub mod diff;
pub mod lock;
pub mod surface;

pub use diff::{Bump, Verdict};
pub use surface::Surface;
