//! Embeds the bundled adapters (`adapters/<name>/cmp/*.json`) into the binary, so cmpx runs
//! from any directory, with a digest of them and of the learned phrasings (with the tool
//! library's digest of the catalogue, the resolver's cache key: hashing the files on every run
//! was a millisecond of each warm `resolve`). The catalogue is embedded by crates/tools.

#[path = "crates/tools/embed.rs"]
mod embed;

use std::path::Path;

fn main() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let adapters = manifest_dir.join("adapters");
    println!("cargo:rerun-if-changed={}", adapters.display());
    let adapter_files = embed::json_files(&adapters, Some("cmp"));
    let mut out = embed::table("ADAPTER_FILES", &adapters, &adapter_files);
    // The learned phrasings are embedded by src/resolve/learned.rs; they shape the index too.
    let learned = manifest_dir.join("src/resolve/learned.json");
    println!("cargo:rerun-if-changed={}", learned.display());
    embed::digest(
        &mut out,
        "pub(crate)",
        "A digest of every embedded adapter file and the learned phrasings.",
        manifest_dir,
        adapter_files.iter().chain([&learned]),
    );
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("adapter_files.rs");
    std::fs::write(dest, out).expect("write generated adapter index");
}
