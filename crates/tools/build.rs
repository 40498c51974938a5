//! Embeds the catalogue (`catalogue/<category>/<id>.json` at the workspace root, each with its
//! declared contract `<id>.cmpx.json`) into the library, so it runs from any directory, with a
//! digest of every embedded file (part of the resolver's cache key: hashing the files on every
//! run was a millisecond of each warm `resolve`).

mod embed;

use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The catalogue is the workspace's data: front ends, docs and tests read it too.
    let catalogue = manifest_dir.join("../../catalogue");
    println!("cargo:rerun-if-changed={}", catalogue.display());
    let (contracts, definitions): (Vec<PathBuf>, Vec<PathBuf>) =
        embed::json_files(&catalogue, None)
            .into_iter()
            .partition(|f| f.to_string_lossy().ends_with(".cmpx.json"));
    let mut out = embed::table("FILES", &catalogue, &definitions);
    out.push_str(&embed::table("CONTRACT_FILES", &catalogue, &contracts));
    embed::digest(
        &mut out,
        "pub",
        "A digest of every embedded catalogue file.",
        &catalogue,
        definitions.iter().chain(&contracts),
    );
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("catalogue_files.rs");
    std::fs::write(dest, out).expect("write generated catalogue index");
}
