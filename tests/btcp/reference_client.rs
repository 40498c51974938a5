//! The reference BTCP client, built at test time: copied from `$BTCP_CLIENT_DIR` (default
//! ../shared/third_party/btcp-client) into target/btcp-client and built there (npm ci, tsc),
//! so no copy of it enters the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The built client's `dist/` (ES modules); `None` (a skip, a failure in CI) when the source
/// or node is missing. Builds once; later calls, in this process or another (nextest runs each
/// test in its own), reuse target/btcp-client/dist.
pub fn built() -> Option<PathBuf> {
    let source = std::env::var_os("BTCP_CLIENT_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/third_party/btcp-client"),
        PathBuf::from,
    );
    let node = Command::new("node").arg("--version").output().is_ok();
    if !source.join("package.json").exists() || !node {
        crate::common::skip(format!(
            "node or the BTCP client at {} is missing (set BTCP_CLIENT_DIR)",
            source.display()
        ));
        return None;
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/btcp-client");
    let _one = crate::common::lock_file("btcp-client");
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
