//! Embeds every `catalogue/<category>/<id>.json` into the binary, so cmpx runs from any directory.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogue");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    for category in std::fs::read_dir(&root).expect("catalogue/ exists") {
        let category = category.expect("readable catalogue entry").path();
        if !category.is_dir() {
            continue;
        }
        println!("cargo:rerun-if-changed={}", category.display());
        for file in std::fs::read_dir(&category).expect("readable category") {
            let file = file.expect("readable catalogue file").path();
            if file.extension().is_some_and(|e| e == "json") {
                files.push(file);
            }
        }
    }
    files.sort();
    let mut out = String::from("pub static FILES: &[(&str, &str)] = &[\n");
    for file in &files {
        let rel = file.strip_prefix(&root).expect("under catalogue/");
        let rel = rel.to_string_lossy().replace('\\', "/");
        writeln!(
            out,
            "    ({rel:?}, include_str!({:?})),",
            file.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("catalogue_files.rs");
    std::fs::write(dest, out).expect("write generated catalogue index");
}
