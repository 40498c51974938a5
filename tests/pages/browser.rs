//! Placeholder, filled in by the browser tests.
