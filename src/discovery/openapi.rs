//! `openapi.yaml`: OpenAPI 3.1 for the catalogue served over HTTP. One POST operation per tool at
//! `/api/tools/<id>` (operationId = id, tag = category) whose body is the tool's input schema
//! and whose responses are the CTP ToolResult envelope, with `data` typed by the tool's output
//! schema on success. OpenAPI 3.1 schemas are JSON Schema 2020-12, so the schemas are used as-is.

use super::{Options, SERVICE_DESCRIPTION, SERVICE_NAME, json_schema};
use crate::ctp::{ErrorCode, ToolDefinition};
use serde_json::{Map, Value, json};

/// The CTP error codes, as `tool-result.schema.json` lists them.
const ERROR_CODES: [ErrorCode; 10] = [
    ErrorCode::InvalidInput,
    ErrorCode::MissingRequired,
    ErrorCode::TypeError,
    ErrorCode::ConstraintViolation,
    ErrorCode::ExecutionError,
    ErrorCode::Timeout,
    ErrorCode::RateLimited,
    ErrorCode::Unauthorized,
    ErrorCode::NotFound,
    ErrorCode::InternalError,
];

/// The document as YAML that YAML 1.1 readers (PyYAML, which openapi-spec-validator uses) read
/// as YAML 1.2 ones do: json-to-yaml's writer ([`crate::tools::value_to_yaml`]), since
/// serde_norway alone leaves `yes`, `1:20` or dates plain.
pub fn yaml(tools: &[ToolDefinition], opts: &Options) -> String {
    // It fails only past the output ceiling, far above any catalogue's document.
    crate::tools::value_to_yaml(&document(tools, opts))
        .unwrap_or_else(|e| format!("# {}\n", e.message))
}

/// The document as a JSON value.
pub fn document(tools: &[ToolDefinition], opts: &Options) -> Value {
    let mut info = Map::new();
    info.insert("title".into(), json!(SERVICE_NAME));
    info.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    info.insert("summary".into(), json!("Developer utilities as CTP tools"));
    info.insert(
        "description".into(),
        json!(format!(
            "{SERVICE_DESCRIPTION} Each tool is one POST operation taking a JSON object of parameters and returning a CTP ToolResult: `success`, then `data` or `error` and `errorCode`."
        )),
    );
    let license = env!("CARGO_PKG_LICENSE");
    if !license.is_empty() {
        info.insert(
            "license".into(),
            json!({ "name": license, "identifier": license }),
        );
    }
    let mut paths = Map::new();
    for def in tools {
        paths.insert(opts.path(&def.id), json!({ "post": operation(def) }));
    }
    let mut components = components();
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": info,
        "servers": [{
            "url": opts.base_url,
            "description": "cmpx serve (default http://127.0.0.1:7878; another address with --base-url)",
        }],
        "tags": super::by_category(tools).iter().map(|(id, _)| json!({
            "name": id,
            "description": super::category_description(id),
        })).collect::<Vec<_>>(),
        "paths": paths,
    });
    if opts.bearer {
        components["securitySchemes"] = json!({
            "bearer": { "type": "http", "scheme": "bearer", "description": "the token cmpx serve was started with (--token or CMPX_TOKEN)" }
        });
        doc["security"] = json!([{ "bearer": [] }]);
    }
    doc["components"] = components;
    doc
}

fn operation(def: &ToolDefinition) -> Value {
    let success = json!({
        "type": "object",
        "required": ["success", "data"],
        "properties": {
            "success": { "const": true },
            "data": json_schema::output_schema(def),
            "metadata": { "$ref": "#/components/schemas/ResultMetadata" },
        },
        "additionalProperties": false,
    });
    json!({
        "operationId": def.id,
        "summary": def.name,
        "description": super::description_for_agents(def),
        "tags": [def.category],
        // Each tool's own semver version; info.version is the catalogue's.
        "x-version": def.version(),
        "requestBody": {
            "required": true,
            "content": {
                "application/json": {
                    "schema": json_schema::input_schema(def),
                    "example": def.example.input,
                },
            },
        },
        "responses": {
            "200": {
                "description": format!("The tool ran. {}", def.output_description),
                "content": {
                    "application/json": {
                        "schema": success,
                        "example": { "success": true, "data": def.example.output },
                    },
                },
            },
            "400": { "$ref": "#/components/responses/Rejected" },
            "500": { "$ref": "#/components/responses/Failed" },
        },
    })
}

fn components() -> Value {
    let codes: Vec<&str> = ERROR_CODES.iter().map(|c| c.as_str()).collect();
    json!({
        "schemas": {
            "ResultMetadata": {
                "type": "object",
                "description": "Execution metadata",
                "properties": {
                    "executionTime": { "type": "number", "minimum": 0, "description": "Execution time in milliseconds" },
                    "inputSize": { "type": "integer", "minimum": 0, "description": "Bytes of the compact JSON arguments" },
                    "outputSize": { "type": "integer", "minimum": 0, "description": "Bytes of the compact JSON data" },
                    "cached": { "type": "boolean" },
                    "warnings": { "type": "array", "items": { "type": "string" } },
                    "toolVersion": { "type": "string" },
                    "executionMode": { "type": "string", "enum": ["client", "server"] },
                },
                "additionalProperties": false,
            },
            "ToolError": {
                "type": "object",
                "description": "A failed CTP ToolResult",
                "required": ["success", "error"],
                "properties": {
                    "success": { "const": false },
                    "error": { "type": "string", "description": "What went wrong, naming the parameter and the rule" },
                    "errorCode": { "type": "string", "enum": codes },
                    "data": { "description": "Structured detail, e.g. {\"didYouMean\": \"…\"}" },
                    "metadata": { "$ref": "#/components/schemas/ResultMetadata" },
                },
                "additionalProperties": false,
            },
        },
        "responses": {
            "Rejected": {
                "description": "The arguments were rejected: MISSING_REQUIRED, TYPE_ERROR, CONSTRAINT_VIOLATION, or INVALID_INPUT (unknown parameter, or content the tool cannot read)",
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ToolError" } } },
            },
            "Failed": {
                "description": "The tool failed: EXECUTION_ERROR or INTERNAL_ERROR",
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ToolError" } } },
            },
        },
    })
}
