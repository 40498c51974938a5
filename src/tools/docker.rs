//! placeholder
use super::ToolFn;
pub const TOOLS: &[(&str, ToolFn)] = &[];
