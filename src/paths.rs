//! Where cmpx reads and writes on disk; every location can be overridden by an env var.

use std::path::PathBuf;

/// `$CMP_HOME`, or `~/.cmp` when unset or empty.
pub(crate) fn cmp_home() -> Option<PathBuf> {
    match std::env::var_os("CMP_HOME") {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => dirs::home_dir().map(|h| h.join(".cmp")),
    }
}

/// `text` with the absolute `$CMP_HOME` written as `$CMP_HOME`: messages sent to remote
/// clients (HTTP, MCP over HTTP) name where the policy lives without revealing the server's
/// directory layout.
pub(crate) fn redact_home(text: &str) -> std::borrow::Cow<'_, str> {
    match cmp_home() {
        Some(home) => {
            let home = home.to_string_lossy();
            let home = home.trim_end_matches('/');
            if home.len() > 1 && text.contains(home) {
                std::borrow::Cow::Owned(text.replace(home, "$CMP_HOME"))
            } else {
                std::borrow::Cow::Borrowed(text)
            }
        }
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// The canonical install root, `$CMP_HOME/tools`.
pub(crate) fn tools_root() -> Option<PathBuf> {
    cmp_home().map(|h| h.join("tools"))
}

/// Extra roots from `CMP_TOOL_PATH` (`:`-separated; empty entries ignored).
pub(crate) fn extra_roots() -> Vec<PathBuf> {
    std::env::var_os("CMP_TOOL_PATH")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Every root scanned for installed tools: the canonical one first, then `CMP_TOOL_PATH`.
pub(crate) fn all_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = tools_root().into_iter().collect();
    for extra in extra_roots() {
        if !roots.contains(&extra) {
            roots.push(extra);
        }
    }
    roots
}
