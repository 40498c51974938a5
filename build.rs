//! Embeds the bundled adapters (`adapters/<name>/cmp/*.json`) into the binary, so cmpx runs
//! from any directory, with a digest of them and of the learned phrasings (with the tool
//! library's digest of the catalogue, the resolver's cache key: hashing the files on every run
//! was a millisecond of each warm `resolve`). The catalogue is embedded by crates/tools.

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// `*.json` files one level below each subfolder of `root` (`<root>/<sub>/<file>.json`), or in
/// `<root>/<sub>/<inner>/` when `inner` is given; sorted.
fn json_files(root: &Path, inner: Option<&str>) -> Vec<PathBuf> {
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

fn table(name: &str, root: &Path, files: &[PathBuf]) -> String {
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

fn main() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let adapters = manifest_dir.join("adapters");
    println!("cargo:rerun-if-changed={}", adapters.display());
    let adapter_files = json_files(&adapters, Some("cmp"));
    let mut out = table("ADAPTER_FILES", &adapters, &adapter_files);
    // The learned phrasings are embedded by src/resolve/learned.rs; they shape the index too.
    let learned = manifest_dir.join("src/resolve/learned.json");
    println!("cargo:rerun-if-changed={}", learned.display());
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for file in adapter_files.iter().chain([&learned]) {
        file.strip_prefix(manifest_dir).unwrap_or(file).hash(&mut h);
        std::fs::read(file)
            .expect("read embedded file")
            .hash(&mut h);
    }
    writeln!(
        out,
        "/// A digest of every embedded adapter file and the learned phrasings.\npub(crate) const DIGEST: u64 = {:#018x};",
        h.finish()
    )
    .unwrap();
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("adapter_files.rs");
    std::fs::write(dest, out).expect("write generated adapter index");
}
