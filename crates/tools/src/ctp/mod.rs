//! The CTP model: tool definitions, parameter handling, results and the §5.3 catalogue rules.

pub mod definition;
pub mod params;
pub mod result;
pub mod rules;

pub use definition::{Example, ParamType, Parameter, ToolDefinition};
pub use result::{ErrorCode, Metadata, ToolError, ToolOutcome, ToolResult};
