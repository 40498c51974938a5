//! Discovery documents: pure functions of the catalogue (and installed adapters) that describe
//! the tools to other ecosystems — MCP tool lists, JSON Schemas, and the formats built on them.

pub mod json_schema;
pub mod mcp;
