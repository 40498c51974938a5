//! `.well-known/ai-plugin.json` (CTP §9.1): the plugin manifest format LLM hosts read first,
//! naming the service and pointing at its OpenAPI document. `logo_url`, `contact_email` and
//! `legal_info_url` are left out: a local catalogue has none to name truthfully.

use super::{Options, SERVICE_DESCRIPTION, SERVICE_NAME};
use serde_json::{Value, json};

pub fn manifest(opts: &Options) -> Value {
    let auth = if opts.bearer {
        json!({ "type": "user_http", "authorization_type": "bearer" })
    } else {
        json!({ "type": "none" })
    };
    json!({
        "schema_version": "v1",
        "name_for_human": "cmpx developer tools",
        "name_for_model": SERVICE_NAME,
        "description_for_human": "Developer utilities: JSON, Base64, hashes, JWT, UUIDs, timestamps, cron, regex and more.",
        "description_for_model": format!(
            "{SERVICE_DESCRIPTION} Call a tool with POST {}/api/tools/<id> and a JSON object of its parameters; every answer is a CTP ToolResult (success, then data or error and errorCode). The tool list is in the OpenAPI document and in {}.",
            opts.base_url,
            opts.url("api/ai-tools.json")
        ),
        "auth": auth,
        "api": { "type": "openapi", "url": opts.url("api/openapi.yaml") },
    })
}
