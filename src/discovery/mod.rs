//! Discovery documents: pure functions of the catalogue (and installed adapters) that describe
//! the tools to other ecosystems — MCP tool lists, JSON Schemas, and the formats built on them.

pub mod agent_setup;
pub mod ai_plugin;
pub mod ai_tools;
pub mod btcp;
pub mod ctp_manifest;
pub mod documents;
/// The JSON Schemas of a tool's input and output live with the CMP model, which uses them too.
pub use crate::cmp::schema as json_schema;
pub mod llms_txt;
pub mod mcp;
pub mod openapi;
pub mod tool_doc;
pub mod vendors;
pub mod written;

use crate::ctp::ToolDefinition;

/// The CTP version the documents declare.
pub const CTP_VERSION: &str = "1.0.0";

/// The service name every document carries.
pub const SERVICE_NAME: &str = "cmpx";

/// Where HTTP endpoints are said to live when no `--base-url` is given: the address `cmpx
/// serve` listens on by default.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:7878";

/// The path prefix of tool endpoints (CTP's `apiPath` default).
pub const API_PATH: &str = "/api/tools";

/// One sentence on the service, shared by the documents that describe it.
pub const SERVICE_DESCRIPTION: &str = "Developer utilities (JSON, Base64, hashes, HMAC, JWT, UUIDs, timestamps, cron, case conversion, diff, regex, CSV/YAML/XML, QR codes and more) as CTP tools, run locally by the cmpx command line.";

/// What the documents are rendered against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Absolute base URL without a trailing slash.
    pub base_url: String,
    /// Whether the server wants `Authorization: Bearer <token>` (`cmpx serve --token`).
    pub bearer: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            base_url: DEFAULT_BASE_URL.to_string(),
            bearer: false,
        }
    }
}

impl Options {
    /// Options for `base_url`, which must be an absolute http(s) URL; a trailing slash is dropped.
    pub fn new(base_url: &str) -> Result<Options, String> {
        let parsed = url::Url::parse(base_url)
            .map_err(|e| format!("--base-url '{base_url}' is not an absolute URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "--base-url '{base_url}' must be an http or https URL"
            ));
        }
        Ok(Options {
            base_url: base_url.trim_end_matches('/').to_string(),
            bearer: false,
        })
    }

    /// The tool's HTTP endpoint path, e.g. `/api/tools/json-formatter`.
    pub fn path(&self, id: &str) -> String {
        format!("{API_PATH}/{id}")
    }

    /// The tool's full HTTP endpoint URL.
    pub fn endpoint(&self, id: &str) -> String {
        format!("{}{}", self.base_url, self.path(id))
    }

    /// A document's URL under the base, e.g. `llms-full.txt`.
    pub fn url(&self, file: &str) -> String {
        format!("{}/{file}", self.base_url)
    }
}

/// The description agents see: the CTP description, then the tool's AI instructions.
pub fn description_for_agents(def: &ToolDefinition) -> String {
    match &def.ai_instructions {
        Some(hint) => format!("{} {hint}", def.description),
        None => def.description.clone(),
    }
}

/// A category id as a heading: `formatters` → `Formatters`, `data-tools` → `Data Tools`.
pub fn category_name(id: &str) -> String {
    id.split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A one-line description of a category; unknown categories get a generic line.
pub fn category_description(id: &str) -> String {
    match id {
        "analyzers" => {
            "Inspect text and patterns: statistics, differences, regular expressions".into()
        }
        "converters" => {
            "Turn one representation into another: data formats, cases, number bases, times".into()
        }
        "editors" => "Rearrange text: sort, deduplicate, reverse".into(),
        "encoders" => {
            "Encode, decode and escape: Base64, URLs, HTML entities, JWTs, compression".into()
        }
        "formatters" => "Pretty-print and minify structured text: JSON, XML, SQL".into(),
        "generators" => {
            "Produce new values: hashes, MACs, identifiers, passwords, placeholder text, QR codes"
                .into()
        }
        other => format!("Tools in the {other} category"),
    }
}

/// The catalogue's categories in name order, each with its tools (in id order).
pub fn by_category(tools: &[ToolDefinition]) -> Vec<(&str, Vec<&ToolDefinition>)> {
    let mut groups: std::collections::BTreeMap<&str, Vec<&ToolDefinition>> = Default::default();
    for def in tools {
        groups.entry(def.category.as_str()).or_default().push(def);
    }
    for list in groups.values_mut() {
        list.sort_by(|a, b| a.id.cmp(&b.id));
    }
    groups.into_iter().collect()
}
