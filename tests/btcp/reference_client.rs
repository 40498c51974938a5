//! The reference BTCP client, built at test time: copied from `$BTCP_CLIENT_DIR` (default
//! ../shared/third_party/btcp-client) into target/btcp-client and built there (npm ci, tsc),
//! so no copy of it enters the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The built client's `dist/` (ES modules); `None` (a skip, outside CI) when the source or
/// node is missing. Builds once; later calls reuse target/btcp-client/dist.
pub fn built() -> Option<PathBuf> {
    let source = std::env::var_os("BTCP_CLIENT_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/third_party/btcp-client"),
        PathBuf::from,
    );
    let node = Command::new("node").arg("--version").output().is_ok();
    if !source.join("package.json").exists() || !node {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs node and the BTCP client at {} (set BTCP_CLIENT_DIR)",
            source.display()
        );
        eprintln!(
            "note: node or the BTCP client at {} is missing; skipping",
            source.display()
        );
        return None;
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/btcp-client");
    static BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = BUILD.lock().unwrap_or_else(|p| p.into_inner());
    if !built.join("dist/index.js").exists() {
        let _ = std::fs::remove_dir_all(&built);
        std::fs::create_dir_all(&built).unwrap();
        let copied = Command::new("sh")
            .arg("-c")
            .arg("tar cf - --exclude=node_modules --exclude=dist . | (cd \"$1\" && tar xf -)")
            .arg("sh")
            .arg(&built)
            .current_dir(&source)
            .status()
            .unwrap();
        assert!(copied.success(), "copying {} failed", source.display());
        for step in [
            &["npm", "ci", "--no-audit", "--no-fund", "--silent"][..],
            &["npx", "tsc"][..],
        ] {
            let out = Command::new(step[0])
                .args(&step[1..])
                .current_dir(&built)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{step:?} in {}: {}",
                built.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    Some(built.join("dist"))
}
