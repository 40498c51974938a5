//! The files under `web/`, embedded at build time, served at `/assets/<name>` (and the host
//! script at `/embed.js`), with the hashes that let the self-contained forms inline them
//! under a strict Content-Security-Policy.

use base64::Engine as _;
use sha2::Digest as _;

pub(crate) const PAGE_CSS: &str = include_str!("../../web/page.css");
/// The form: fields, `dependsOn`, validation, examples, result, copy and download.
pub(crate) const FORM_JS: &str = include_str!("../../web/form.js");
/// How the form runs a tool: HTTP fetch, or the MCP Apps host bridge.
pub(crate) const TRANSPORT_JS: &str = include_str!("../../web/transport.js");
/// Inside an embed: messages to and from the host page (CTP §10).
pub(crate) const EMBED_BRIDGE_JS: &str = include_str!("../../web/embed-bridge.js");
/// On the host page: `<div data-ctp-tool>`, `ConveniencePro.embed()`, autosense.
pub(crate) const EMBED_JS: &str = include_str!("../../web/embed.js");
/// The web UI's index: search through the resolver, theme switch.
pub(crate) const INDEX_JS: &str = include_str!("../../web/index.js");

/// An asset by the name it is served under: (content type, text).
pub(crate) fn get(name: &str) -> Option<(&'static str, &'static str)> {
    const JS: &str = "text/javascript; charset=utf-8";
    Some(match name {
        "page.css" => ("text/css; charset=utf-8", PAGE_CSS),
        "form.js" => (JS, FORM_JS),
        "transport.js" => (JS, TRANSPORT_JS),
        "embed-bridge.js" => (JS, EMBED_BRIDGE_JS),
        "embed.js" => (JS, EMBED_JS),
        "index.js" => (JS, INDEX_JS),
        _ => return None,
    })
}

/// A CSP source expression allowing exactly this inline text: `'sha256-…'`.
pub(crate) fn hash_source(text: &str) -> String {
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_is_served_and_hashes_are_csp_sources() {
        for name in [
            "page.css",
            "form.js",
            "transport.js",
            "embed-bridge.js",
            "embed.js",
            "index.js",
        ] {
            let (_, text) = get(name).unwrap();
            assert!(!text.is_empty(), "{name}");
        }
        assert!(get("../Cargo.toml").is_none());
        // echo -n 'alert(1)' | openssl dgst -sha256 -binary | base64
        assert_eq!(
            hash_source("alert(1)"),
            "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"
        );
    }
}
