//! Tests of the layout ARCHITECTURE.md describes: no import cycle between a crate's top-level
//! modules (in cmpx and in the tool library, crates/tools), and no source file much over 1,000
//! lines. That the tool library uses nothing of cmpx the compiler checks: it cannot name it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The source folder of each crate in the workspace.
fn crate_roots() -> [PathBuf; 2] {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    [workspace.join("src"), workspace.join("crates/tools/src")]
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files of modules declared only for tests (`#[cfg(test)] mod x;`): what they import is
/// not part of the crate's layout.
fn test_only(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let base = match file.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs" | "main.rs") => file.parent().unwrap().to_path_buf(),
            _ => file.with_extension(""),
        };
        for pair in lines.windows(2) {
            let decl = pair[1].trim();
            // `cfg(test)`, or test helpers other crates' tests turn on with the `testing` feature.
            let test_cfg = matches!(
                pair[0].trim(),
                "#[cfg(test)]" | "#[cfg(any(test, feature = \"testing\"))]"
            );
            if test_cfg && decl.ends_with(';') && decl.contains("mod ") {
                let name = decl.trim_end_matches(';').rsplit(' ').next().unwrap();
                out.insert(base.join(format!("{name}.rs")));
                out.insert(base.join(name).join("mod.rs"));
            }
        }
    }
    out
}

/// Top-level module → the top-level modules its non-test code names, with one file each, for
/// the crate whose sources are under `root`.
fn imports(root: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let skip = test_only(&files);
    let tops: BTreeSet<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let name = name
                .strip_suffix(".rs")
                .map_or(name.clone(), str::to_string);
            (p.is_dir() || p.extension().is_some_and(|e| e == "rs")).then_some(name)
        })
        .filter(|n| n != "lib" && n != "main")
        .collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in files.iter().filter(|f| !skip.contains(*f)) {
        let rel = file.strip_prefix(root).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let top = top.strip_suffix(".rs").unwrap_or(&top).to_string();
        if !tops.contains(&top) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut named = Vec::new();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (i, _) in line.match_indices("crate::") {
                let rest = &line[i + 7..];
                if let Some(group) = rest.strip_prefix('{') {
                    // `use crate::{a, b::c}`: each item's first name (on this line).
                    let group = group.split('}').next().unwrap_or("");
                    named.extend(
                        group
                            .split(',')
                            .map(|item| item.trim().split("::").next().unwrap_or("").to_string()),
                    );
                } else {
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    named.push(rest[..end].to_string());
                }
            }
        }
        for name in named {
            if tops.contains(&name) && name != top {
                graph
                    .entry(top.clone())
                    .or_default()
                    .entry(name)
                    .or_insert_with(|| rel.display().to_string());
            }
        }
    }
    graph
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    for root in crate_roots() {
        no_cycle_in(&root);
    }
}

fn no_cycle_in(root: &Path) {
    let graph = imports(root);
    // Depth-first search for a back edge; the cycle is reported with a file for each edge.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeMap<String, String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flat_map(|m| m.keys()) {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, &graph, &mut Vec::new(), &mut done) {
            let edges: Vec<String> = cycle
                .windows(2)
                .map(|w| format!("{} -> {} ({})", w[0], w[1], graph[&w[0]][&w[1]]))
                .collect();
            panic!(
                "import cycle between top-level modules of {}:\n  {}",
                root.display(),
                edges.join("\n  ")
            );
        }
    }
}

/// A file over this many lines is split along a natural seam (a family, a format, its tests).
const LINE_LIMIT: usize = 1_050;

#[test]
fn no_source_file_is_much_over_a_thousand_lines() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for root in crate_roots() {
        rust_files(&root, &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            let rel = f.strip_prefix(workspace).unwrap().display().to_string();
            (lines > LINE_LIMIT).then(|| format!("{rel} ({lines} lines)"))
        })
        .collect();
    assert!(long.is_empty(), "split along a natural seam: {long:?}");
}
