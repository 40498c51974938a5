//! `ai-tools.json`: the catalogue for LLM integrations that call tools over HTTP.
//!
//! ```text
//! {
//!   "version":     CTP version ("1.0.0"),
//!   "name":        "cmpx",
//!   "description": one sentence on the service,
//!   "baseUrl":     the --base-url option,
//!   "auth":        "none", or "bearer" when the server wants `Authorization: Bearer <token>`,
//!   "tools": [{
//!     "name":        the tool id, the name to call it by (as in MCP, OpenAI and Anthropic tools),
//!     "title":       the display name,
//!     "description": the CTP description followed by the tool's AI instructions,
//!     "category":    the CTP category,
//!     "tags":        the CTP tags,
//!     "endpoint":    "<baseUrl>/api/tools/<id>",
//!     "method":      "POST" (a JSON object of parameters as the body),
//!     "parameters":  JSON Schema (2020-12) of that object,
//!     "returns":     {"description": CTP outputDescription, "schema": JSON Schema of `data`},
//!     "command":     the CMP command template, for running it locally,
//!     "example":     {"input": {…}, "output": {…}}
//!   }],
//!   "categories": [{"id", "name", "description", "toolCount"}]
//! }
//! ```
//!
//! Every call returns a CTP ToolResult: `{"success": true, "data": …}` or
//! `{"success": false, "error": …, "errorCode": …}`. No timestamps, so the file is reproducible.

use super::{CTP_VERSION, Options, SERVICE_DESCRIPTION, SERVICE_NAME, json_schema};
use crate::ctp::ToolDefinition;
use serde_json::{Value, json};

pub fn document(tools: &[ToolDefinition], opts: &Options) -> Value {
    json!({
        "version": CTP_VERSION,
        "name": SERVICE_NAME,
        "description": SERVICE_DESCRIPTION,
        "baseUrl": opts.base_url,
        "auth": if opts.bearer { "bearer" } else { "none" },
        "tools": tools.iter().map(|d| tool(d, opts)).collect::<Vec<_>>(),
        "categories": super::by_category(tools).iter().map(|(id, list)| json!({
            "id": id,
            "name": super::category_name(id),
            "description": super::category_description(id),
            "toolCount": list.len(),
        })).collect::<Vec<_>>(),
    })
}

fn tool(def: &ToolDefinition, opts: &Options) -> Value {
    json!({
        "name": def.id,
        "title": def.name,
        "description": super::description_for_agents(def),
        "category": def.category,
        "tags": def.tags,
        "endpoint": opts.endpoint(&def.id),
        // The HTTP contract is POST for every tool (the OpenAPI document), whatever CTP says.
        "method": "POST",
        "parameters": json_schema::input_schema(def),
        "returns": {
            "description": def.output_description,
            "schema": json_schema::output_schema(def),
        },
        "command": crate::cmp::mapping::command(def),
        "example": {
            "input": def.example.input,
            "output": def.example.output,
        },
    })
}
