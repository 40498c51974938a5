//! Embeds the catalogue (`catalogue/<category>/<id>.json` at the workspace root, each with its
//! declared contract `<id>.cmpx.json`) into the library, so it runs from any directory, with a
//! digest of every embedded file (part of the resolver's cache key: hashing the files on every
//! run was a millisecond of each warm `resolve`).

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
    // The catalogue is the workspace's data: front ends, docs and tests read it too.
    let catalogue = manifest_dir.join("../../catalogue");
    println!("cargo:rerun-if-changed={}", catalogue.display());
    let (contracts, definitions): (Vec<PathBuf>, Vec<PathBuf>) = json_files(&catalogue, None)
        .into_iter()
        .partition(|f| f.to_string_lossy().ends_with(".cmpx.json"));
    let mut out = table("FILES", &catalogue, &definitions);
    out.push_str(&table("CONTRACT_FILES", &catalogue, &contracts));
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for file in definitions.iter().chain(&contracts) {
        file.strip_prefix(&catalogue).unwrap_or(file).hash(&mut h);
        std::fs::read(file)
            .expect("read embedded file")
            .hash(&mut h);
    }
    writeln!(
        out,
        "/// A digest of every embedded catalogue file.\npub const DIGEST: u64 = {:#018x};",
        h.finish()
    )
    .unwrap();
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("catalogue_files.rs");
    std::fs::write(dest, out).expect("write generated catalogue index");
}
