//! The shared kit every tool builds on: the tool descriptor, typed arguments, output and
//! nesting budgets, input in pieces and the plans over it, the line-break rule, and the test
//! helpers. It knows nothing of the tool families.

pub mod args;
pub mod b64;
pub mod budget;
pub mod chunks;
pub mod data;
pub mod depth;
pub(super) mod line_breaks;
pub mod plan;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tool;
