//! Embeds the catalogue (`catalogue/<category>/<id>.json`, each with its declared contract
//! `<id>.cmpx.json`) and the bundled adapters (`adapters/<name>/cmp/*.json`) into the binary,
//! so cmpx runs from any directory.

use std::fmt::Write as _;
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
    let mut out = format!("pub static {name}: &[(&str, &str)] = &[\n");
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
    let catalogue = manifest_dir.join("catalogue");
    let adapters = manifest_dir.join("adapters");
    println!("cargo:rerun-if-changed={}", catalogue.display());
    println!("cargo:rerun-if-changed={}", adapters.display());
    let (contracts, definitions): (Vec<PathBuf>, Vec<PathBuf>) = json_files(&catalogue, None)
        .into_iter()
        .partition(|f| f.to_string_lossy().ends_with(".cmpx.json"));
    let mut out = table("FILES", &catalogue, &definitions);
    out.push_str(&table("CONTRACT_FILES", &catalogue, &contracts));
    out.push_str(&table(
        "ADAPTER_FILES",
        &adapters,
        &json_files(&adapters, Some("cmp")),
    ));
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("catalogue_files.rs");
    std::fs::write(dest, out).expect("write generated catalogue index");
}
