//! Resolution quality on a labelled set of requests (tests/data/resolve-requests.json), written
//! independently of the catalogue's keywords: top-1 and top-3 accuracy over every installed tool,
//! and how often cmpx claims confidence for requests no tool serves.
//!
//! `cargo test --test resolve_accuracy -- --nocapture` prints the figures and every miss.

use cmpx::resolve::{self, Options};
use serde_json::Value;
use std::path::Path;

struct Labelled {
    text: String,
    tool: String,
}

/// Every labelled set in tests/data (`resolve-requests*.json`), each written independently of
/// the catalogue's keywords.
fn data() -> (Vec<Labelled>, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("resolve-requests"))
        })
        .collect();
    files.sort();
    let mut labelled = Vec::new();
    let mut negatives = Vec::new();
    for path in files {
        let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        for section in ["requests", "adapter_requests"] {
            for r in doc[section].as_array().into_iter().flatten() {
                labelled.push(Labelled {
                    text: r["text"].as_str().unwrap().into(),
                    tool: r["tool"].as_str().unwrap().into(),
                });
            }
        }
        negatives.extend(
            doc["negatives"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v.as_str().unwrap().to_string()),
        );
    }
    (labelled, negatives)
}

/// The catalogue exported, plus every bundled adapter, in a temporary root.
fn installed() -> (tempfile::TempDir, resolve::index::Index) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tools");
    let bundles: Vec<_> = cmpx::catalogue::all()
        .iter()
        .map(cmpx::cmp::export::bundle)
        .collect();
    cmpx::cmp::export::export(&bundles, &root, &Default::default()).unwrap();
    let adapters = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters");
    for entry in std::fs::read_dir(&adapters).unwrap() {
        let src = entry.unwrap().path();
        if src.join("cmp/manifest.json").is_file() {
            let dest = root.join(src.file_name().unwrap()).join("cmp");
            std::fs::create_dir_all(&dest).unwrap();
            for f in ["manifest.json", "capability.json", "examples.json"] {
                if src.join("cmp").join(f).is_file() {
                    std::fs::copy(src.join("cmp").join(f), dest.join(f)).unwrap();
                }
            }
        }
    }
    let index = resolve::index::build(&[root]);
    (dir, index)
}

#[test]
fn resolution_accuracy_meets_the_targets() {
    let (_dir, index) = installed();
    let tools: std::collections::HashSet<&str> =
        index.tools.iter().map(|t| t.name.as_str()).collect();
    let (labelled, negatives) = data();
    let opts = Options {
        top: 3,
        domain: None,
    };
    let (mut n, mut top1, mut top3) = (0, 0, 0);
    let (mut confident_right, mut confident_wrong) = (0, 0);
    let mut misses = Vec::new();
    for r in labelled.iter().filter(|r| tools.contains(r.tool.as_str())) {
        n += 1;
        let res = resolve::resolve(&index, &r.text, &opts);
        let names: Vec<&str> = res.candidates.iter().map(|c| c.tool.as_str()).collect();
        if names.first() == Some(&r.tool.as_str()) {
            top1 += 1;
        } else {
            let got: Vec<String> = res
                .candidates
                .iter()
                .map(|c| format!("{} {:.2}", c.tool, c.score))
                .collect();
            misses.push(format!("{:?} → want {}, got {:?}", r.text, r.tool, got));
        }
        if names.contains(&r.tool.as_str()) {
            top3 += 1;
        }
        match res.chosen() {
            Some(c) if c.tool == r.tool => confident_right += 1,
            Some(_) => confident_wrong += 1,
            None => {}
        }
    }
    let mut false_confident = Vec::new();
    for text in &negatives {
        let res = resolve::resolve(&index, text, &opts);
        if let Some(c) = res.chosen() {
            false_confident.push(format!("{text:?} → {} {:.2}", c.tool, c.score));
        }
    }
    let p1 = top1 as f64 / n as f64;
    let p3 = top3 as f64 / n as f64;
    let fc = false_confident.len() as f64 / negatives.len() as f64;
    println!(
        "resolution over {n} labelled requests ({} tools installed):",
        tools.len()
    );
    println!(
        "  top-1 {:.1}%  top-3 {:.1}%  false confidence on {} negatives {:.1}%",
        p1 * 100.0,
        p3 * 100.0,
        negatives.len(),
        fc * 100.0
    );
    println!(
        "  cmpx do would run {:.1}% of requests (the right tool for {:.1}%, a wrong one for {:.1}%)",
        (confident_right + confident_wrong) as f64 / n as f64 * 100.0,
        confident_right as f64 / n as f64 * 100.0,
        confident_wrong as f64 / n as f64 * 100.0
    );
    for m in &misses {
        println!("  miss: {m}");
    }
    for f in &false_confident {
        println!("  false confidence: {f}");
    }
    assert!(p1 >= 0.90, "top-1 {:.3} < 0.90", p1);
    assert!(p3 >= 0.98, "top-3 {:.3} < 0.98", p3);
    assert!(fc <= 0.05, "false confidence {:.3} > 0.05", fc);
}
