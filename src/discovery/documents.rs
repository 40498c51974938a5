//! The discovery formats `cmpx discover` knows, where each one lives in the well-known layout,
//! and how each is rendered from the catalogue.

use super::Options;
use crate::ctp::ToolDefinition;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.well-known/ctp-manifest.json`, valid against `ctp-manifest.schema.json`.
    CtpManifest,
    /// `api/openapi.yaml`: OpenAPI 3.1, one POST operation per tool.
    OpenApi,
    /// `api/ai-tools.json`: see [`super::ai_tools`].
    AiTools,
    /// `.well-known/ai-plugin.json`: the plugin manifest CTP §9.1 lists, pointing at the OpenAPI
    /// document.
    AiPlugin,
    /// `llms.txt`: the llmstxt.org index.
    LlmsTxt,
    /// `llms-full.txt`: every tool's description, parameters and example in one file.
    LlmsFullTxt,
    /// `mcp-tools.json`: the `tools` array of an MCP `tools/list` result.
    Mcp,
    /// `openai-tools.json`: OpenAI function-calling tools.
    OpenAi,
    /// `anthropic-tools.json`: Anthropic Messages API tools.
    Anthropic,
    /// `btcp-manifest.json`: a BTCP manifest (see [`super::btcp`]). Printed or written on
    /// request only, not part of the well-known layout `--out` writes by default.
    Btcp,
}

impl Format {
    pub const ALL: [Format; 9] = [
        Format::CtpManifest,
        Format::OpenApi,
        Format::AiTools,
        Format::AiPlugin,
        Format::LlmsTxt,
        Format::LlmsFullTxt,
        Format::Mcp,
        Format::OpenAi,
        Format::Anthropic,
    ];

    /// The name given to `--format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::CtpManifest => "ctp-manifest",
            Format::OpenApi => "openapi",
            Format::AiTools => "ai-tools",
            Format::AiPlugin => "ai-plugin",
            Format::LlmsTxt => "llms-txt",
            Format::LlmsFullTxt => "llms-full-txt",
            Format::Mcp => "mcp",
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Btcp => "btcp",
        }
    }

    /// The file's path relative to the output directory (`/` separated), which is also its
    /// path on `cmpx serve` (CTP §9.5), so a static host serving the directory matches it.
    pub fn file(self) -> &'static str {
        match self {
            Format::CtpManifest => ".well-known/ctp-manifest.json",
            Format::OpenApi => "api/openapi.yaml",
            Format::AiTools => "api/ai-tools.json",
            Format::AiPlugin => ".well-known/ai-plugin.json",
            Format::LlmsTxt => "llms.txt",
            Format::LlmsFullTxt => "llms-full.txt",
            Format::Mcp => "mcp-tools.json",
            Format::OpenAi => "openai-tools.json",
            Format::Anthropic => "anthropic-tools.json",
            Format::Btcp => "btcp-manifest.json",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .chain([Format::Btcp])
            .find(|f| f.name() == name)
    }

    /// Every format name, comma separated, for usage messages.
    pub fn names() -> String {
        let mut names = Format::ALL.map(Format::name).join(", ");
        names.push_str(", btcp");
        names
    }

    /// The document's text, ending with a newline.
    pub fn render(self, tools: &[ToolDefinition], opts: &Options) -> String {
        match self {
            Format::CtpManifest => json(&super::ctp_manifest::manifest(tools, opts)),
            Format::OpenApi => super::openapi::yaml(tools, opts),
            Format::AiTools => json(&super::ai_tools::document(tools, opts)),
            Format::AiPlugin => json(&super::ai_plugin::manifest(opts)),
            Format::LlmsTxt => super::llms_txt::index(tools, opts),
            Format::LlmsFullTxt => super::llms_txt::full(tools, opts),
            Format::Mcp => json(&Value::Array(
                tools.iter().map(super::mcp::builtin_tool).collect(),
            )),
            Format::OpenAi => json(&super::vendors::openai(tools)),
            Format::Anthropic => json(&super::vendors::anthropic(tools)),
            Format::Btcp => json(&super::btcp::manifest(tools, opts)),
        }
    }
}

/// Pretty JSON with a final newline, the way every JSON document is written.
fn json(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into());
    text.push('\n');
    text
}
