//! (family module; implementations land here)

use super::ToolFn;

pub const TOOLS: &[(&str, ToolFn)] = &[];
