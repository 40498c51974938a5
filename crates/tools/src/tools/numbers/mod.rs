//! Numbers: expressions and percentages, base conversion, units, Roman numerals, modular
//! arithmetic, bit-level views, and distances on the Earth.

pub(super) mod bases;
pub(super) mod bits;
pub(super) mod geo;
pub(super) mod math;
pub(super) mod modular;
pub(super) mod roman;
pub(super) mod units;
