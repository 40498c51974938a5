//! What both build scripts share (this crate's, which embeds the catalogue, and cmpx's, which
//! embeds the adapters): finding the JSON files, writing them as a table of `include_str!`,
//! and a digest of them. Included by each with `#[path] mod embed;`.

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// `*.json` files one level below each subfolder of `root` (`<root>/<sub>/<file>.json`), or in
/// `<root>/<sub>/<inner>/` when `inner` is given; sorted.
pub fn json_files(root: &Path, inner: Option<&str>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return files;
    };
    for sub in entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        let dir = inner.map_or(sub.clone(), |i| sub.join(i));
        println!("cargo:rerun-if-changed={}", dir.display());
        for file in std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
        {
            if file.extension().is_some_and(|e| e == "json") {
                files.push(file);
            }
        }
    }
    files.sort();
    files
}

pub fn table(name: &str, root: &Path, files: &[PathBuf]) -> String {
    let mut out = format!("pub(crate) static {name}: &[(&str, &str)] = &[\n");
    for file in files {
        let rel = file
            .strip_prefix(root)
            .expect("under its root")
            .to_string_lossy()
            .replace('\\', "/");
        writeln!(
            out,
            "    ({rel:?}, include_str!({:?})),",
            file.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    out
}

/// Appends `/// {doc}` and `{vis} const DIGEST` to `out`: a hash of each file's path
/// under `base` and its bytes, so any change to an embedded file changes it.
pub fn digest<'a>(
    out: &mut String,
    vis: &str,
    doc: &str,
    base: &Path,
    files: impl IntoIterator<Item = &'a PathBuf>,
) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for file in files {
        file.strip_prefix(base).unwrap_or(file).hash(&mut h);
        std::fs::read(file)
            .expect("read embedded file")
            .hash(&mut h);
    }
    writeln!(
        out,
        "/// {doc}\n{vis} const DIGEST: u64 = {:#018x};",
        h.finish()
    )
    .unwrap();
}
