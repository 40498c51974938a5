#![no_main]
//! The registry scan of a hostile folder: fuzz bytes become tool folders and their CMP files,
//! then everything that reads installed tools runs over them. None of it may panic.
//!
//! Input: one flags byte, then NUL-separated fields, four per tool folder (up to three):
//! `folder name, manifest.json, capability.json, examples.json`. An empty field leaves the
//! file out. Flags, per folder `i` (bits 2i, 2i+1): 0 `cmp/`, 1 `.cmp/`, 2 both, 3 `cmp/`
//! with `manifest.json` a directory. Bit 6 also builds the MCP registry from the folder (slow:
//! it copies the whole catalogue); bit 7 scans the root twice (every name is then shadowed).
//! Every tree also has a bare folder with an empty `cmp/` and a stray file.

use cmpx::cmp::{registry, validate};
use libfuzzer_sys::fuzz_target;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

fn base() -> &'static Path {
    static BASE: OnceLock<tempfile::TempDir> = OnceLock::new();
    BASE.get_or_init(|| tempfile::tempdir().expect("temp dir"))
        .path()
}

/// A folder name from fuzz bytes that stays one component inside the root.
fn folder_name(raw: &[u8], i: usize) -> String {
    let name: String = String::from_utf8_lossy(raw)
        .chars()
        .filter(|c| *c != '/' && *c != '\\')
        .take(64)
        .collect();
    if name.is_empty() || name == "." || name == ".." {
        format!("tool{i}")
    } else {
        name
    }
}

fn write_files(cmp: &Path, files: &[&[u8]]) {
    if fs::create_dir_all(cmp).is_err() {
        return;
    }
    for (file, bytes) in ["manifest.json", "capability.json", "examples.json"]
        .iter()
        .zip(files)
    {
        if !bytes.is_empty() {
            let _ = fs::write(cmp.join(file), bytes);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    static N: AtomicU64 = AtomicU64::new(0);
    let root: PathBuf = base().join(format!("r{}", N.fetch_add(1, Ordering::Relaxed)));
    fs::create_dir(&root).expect("root dir");

    let fields: Vec<&[u8]> = rest.split(|b| *b == 0).collect();
    for (i, tool) in fields.chunks(4).take(3).enumerate() {
        let dir = root.join(folder_name(tool[0], i));
        let files = &tool[1..];
        match (flags >> (2 * i)) & 3 {
            0 => write_files(&dir.join("cmp"), files),
            1 => write_files(&dir.join(".cmp"), files),
            2 => {
                write_files(&dir.join("cmp"), files);
                write_files(&dir.join(".cmp"), files);
            }
            _ => {
                let _ = fs::create_dir_all(dir.join("cmp").join("manifest.json"));
                write_files(&dir.join(".cmp"), files);
            }
        }
    }
    let _ = fs::create_dir_all(root.join("bare").join("cmp"));
    let _ = fs::write(root.join("stray-file"), b"{}");

    let roots = if flags & 0x80 != 0 {
        vec![root.clone(), root.clone()]
    } else {
        vec![root.clone()]
    };
    let scan = registry::scan(&roots);
    for tool in &scan.tools {
        assert!(
            tool.manifest.problems().is_empty(),
            "a tool with problems was installed"
        );
        assert!(scan.find(tool.name()).is_some());
        if let Ok(cap) = tool.capability() {
            let _ = validate::check_capability(&cap);
        }
        let _ = tool.examples();
        let _ = validate::check_folder(&tool.dir);
        let _ = registry::read_folder(&tool.dir);
    }
    for skipped in &scan.skipped {
        let _ = validate::check_folder(&skipped.path);
    }
    // The MCP registry builds tool definitions from every installed intent.
    if flags & 0x40 != 0 && !scan.tools.is_empty() {
        let mcp = cmpx::mcp::registry::Registry::load(&roots);
        for t in &mcp.tools {
            assert!(mcp.get(&t.name).is_some());
        }
    }

    let _ = fs::remove_dir_all(&root);
});
