//! Tool pages: one HTML page per catalogue tool, generated from its CTP definition, in four
//! forms — the page of the local web UI (`/tools/{id}`), the CTP embed (`/embed/{id}`), a
//! self-contained bundle (`/embed/{id}?format=bundle`) and the MCP Apps view (`ui://cmpx/{id}`)
//! — plus the web UI's index (`/`) and the host-side embed script (`/embed.js`). The assets
//! live in `web/` and are embedded into the binary; nothing is fetched from elsewhere.

pub(crate) mod assets;
mod fields;
pub(crate) mod index;
pub(crate) mod page;
pub mod style;

pub use page::{Kind, render};

/// The MCP Apps resource URI of a tool's view.
pub(crate) fn app_uri(id: &str) -> String {
    format!("ui://cmpx/{id}")
}

/// The tool id a `ui://cmpx/<id>` URI names, if it names a catalogue tool.
pub(crate) fn app_tool(uri: &str) -> Option<crate::ctp::ToolDefinition> {
    crate::catalogue::get(uri.strip_prefix("ui://cmpx/")?)
}

/// MIME type of an MCP Apps view (SEP-1865).
pub(crate) const APP_MIME: &str = "text/html;profile=mcp-app";

/// HTML-escapes text for element content and double-quoted attribute values.
pub(crate) fn esc(s: &str) -> String {
    html_escape::encode_quoted_attribute(s).into_owned()
}
