//! Resolution quality on the labelled requests in tests/data/resolve-requests*.json, written
//! independently of the catalogue's keywords: top-1 and top-3 accuracy, how often `cmpx do`
//! would act (confident) and how often it would act wrongly, per kind of request and per split.
//!
//! Every request carries a `split`: `test` when the 64-bit FNV-1a hash of its text is divisible
//! by 4, else `train`. The rule is fixed here and checked against the files, so no request can be
//! moved between splits after its result is known. Tuning looks at the train split only; the
//! test split is reported, never tuned on.
//!
//! The resolver learns phrasing from the train split (src/resolve/learned.json, checked below to
//! be exactly that split). Its train figures are therefore cross-validated: the train split is
//! cut in four folds by another part of the same hash, and each fold is resolved by an index
//! that learned from the other three. The test split is resolved by the shipped index.
//!
//! `cargo test --test resolve_accuracy -- --nocapture` prints the figures and the train split's
//! misses (`CMPX_SHOW_TEST_MISSES=1` adds the test split's, for a final look only).

use cmpx::resolve::{self, Options};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

struct Labelled {
    text: String,
    /// `None` for a negative: no installed tool serves it.
    tool: Option<String>,
    /// The first pattern of the intent that serves it, where the request names a mode or an
    /// adapter's intent.
    intent: Option<String>,
    kind: String,
    split: String,
    /// The file it came from: `1` for resolve-requests.json, else its suffix (`2a`, `3`, `4`).
    set: String,
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn split_of(text: &str) -> &'static str {
    if fnv1a(text).is_multiple_of(4) {
        "test"
    } else {
        "train"
    }
}

fn data() -> Vec<Labelled> {
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
    let mut out = Vec::new();
    for path in files {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let set = match stem.strip_prefix("resolve-requests-") {
            Some(suffix) => suffix.to_string(),
            None => "1".to_string(),
        };
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for section in ["requests", "adapter_requests", "negatives"] {
            for r in doc[section].as_array().into_iter().flatten() {
                let text = r["text"].as_str().unwrap().to_string();
                let split = r["split"].as_str().unwrap_or("missing").to_string();
                assert_eq!(
                    split,
                    split_of(&text),
                    "{}: {text:?} is in the wrong split",
                    path.display()
                );
                let tool = r["tool"].as_str().map(String::from);
                assert_eq!(tool.is_none(), section == "negatives", "{text:?}");
                out.push(Labelled {
                    tool,
                    intent: r["intent"].as_str().map(String::from),
                    kind: r["kind"].as_str().unwrap_or("unlabelled").to_string(),
                    split,
                    set: set.clone(),
                    text,
                });
            }
        }
    }
    out
}

/// The cross-validation fold of a train request.
fn fold_of(text: &str) -> usize {
    ((fnv1a(text) >> 8) % 4) as usize
}

/// The catalogue exported, plus every bundled adapter, in a temporary root.
fn installed() -> (tempfile::TempDir, resolve::index::Index, std::path::PathBuf) {
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
    let index = resolve::index::build(std::slice::from_ref(&root));
    (dir, index, root)
}

/// One index per fold, each learning from the train split's other folds.
fn fold_indexes(root: &Path) -> Vec<resolve::index::Index> {
    let learned = resolve::learned::all();
    (0..4)
        .map(|k| {
            let others: Vec<_> = learned
                .iter()
                .filter(|p| fold_of(&p.text) != k)
                .cloned()
                .collect();
            resolve::index::build_learning(&[root.to_path_buf()], &others)
        })
        .collect()
}

/// Counts for one group of requests.
#[derive(Default, Clone, Copy)]
struct Tally {
    n: usize,
    top1: usize,
    top3: usize,
    /// `cmpx do` would run something.
    confident: usize,
    /// …and it would be the wrong tool, or the wrong intent where one is labelled.
    confident_wrong: usize,
    /// Requests with a labelled intent, and how many got it first.
    intents: usize,
    intent_top1: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.n += o.n;
        self.top1 += o.top1;
        self.top3 += o.top3;
        self.confident += o.confident;
        self.confident_wrong += o.confident_wrong;
        self.intents += o.intents;
        self.intent_top1 += o.intent_top1;
    }

    fn pct(&self, x: usize) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            x as f64 * 100.0 / self.n as f64
        }
    }

    fn row(&self, label: &str, negative: bool) -> String {
        if negative {
            return format!(
                "  {label:<22} {:>5}   abstained {:5.1}%   confident {:5.1}%",
                self.n,
                self.pct(self.n - self.confident),
                self.pct(self.confident)
            );
        }
        format!(
            "  {label:<22} {:>5}   top-1 {:5.1}%  top-3 {:5.1}%  confident {:5.1}%  confident-wrong {:4.1}%  intent {}/{}",
            self.n,
            self.pct(self.top1),
            self.pct(self.top3),
            self.pct(self.confident),
            self.pct(self.confident_wrong),
            self.intent_top1,
            self.intents
        )
    }
}

fn evaluate(
    index: &resolve::index::Index,
    r: &Labelled,
    misses: &mut Vec<String>,
) -> Option<Tally> {
    let opts = Options {
        top: 3,
        domain: None,
    };
    let res = resolve::resolve(index, &r.text, &opts);
    let mut t = Tally {
        n: 1,
        ..Tally::default()
    };
    let chosen = res.chosen();
    let Some(want) = &r.tool else {
        if let Some(c) = chosen {
            t.confident = 1;
            t.confident_wrong = 1;
            misses.push(format!("negative {:?} → {} {:.2}", r.text, c.tool, c.score));
        }
        return Some(t);
    };
    if !index.tools.iter().any(|tool| &tool.name == want) {
        return None;
    }
    let same_intent = |c: &resolve::Candidate| {
        r.intent
            .as_ref()
            .is_none_or(|i| c.intent.pattern.eq_ignore_ascii_case(i))
    };
    let first = res.candidates.first();
    t.top1 = first.is_some_and(|c| &c.tool == want) as usize;
    t.top3 = res.candidates.iter().any(|c| &c.tool == want) as usize;
    if r.intent.is_some() {
        t.intents = 1;
        t.intent_top1 = first.is_some_and(|c| &c.tool == want && same_intent(c)) as usize;
    }
    if let Some(c) = chosen {
        t.confident = 1;
        t.confident_wrong = (&c.tool != want || !same_intent(c)) as usize;
    }
    if t.top1 == 0 || t.confident_wrong == 1 || (t.intents == 1 && t.intent_top1 == 0) {
        let got: Vec<String> = res
            .candidates
            .iter()
            .map(|c| format!("{} [{}] {:.2}", c.tool, c.intent.pattern, c.score))
            .collect();
        misses.push(format!(
            "{} {:?} → want {want}{}, got {got:?}{}",
            r.kind,
            r.text,
            r.intent
                .as_ref()
                .map(|i| format!(" [{i}]"))
                .unwrap_or_default(),
            if chosen.is_some() { " (confident)" } else { "" }
        ));
    }
    Some(t)
}

#[test]
fn resolution_accuracy_meets_the_targets() {
    let (_dir, index, root) = installed();
    let folds = fold_indexes(&root);
    let requests = data();
    // (split, file, kind) → tally.
    let mut by: BTreeMap<(String, String, String), Tally> = BTreeMap::new();
    let (mut train_misses, mut test_misses) = (Vec::new(), Vec::new());
    // `CMPX_ONLY=words` resolves only the requests containing them (with `CMPX_RESOLVE_DEBUG`,
    // to see one request scored by the index that did not learn from it).
    let only = std::env::var("CMPX_ONLY").ok();
    for r in &requests {
        if only.as_ref().is_some_and(|o| !r.text.contains(o.as_str())) {
            continue;
        }
        let misses = if r.split == "test" {
            &mut test_misses
        } else {
            &mut train_misses
        };
        let index = if r.split == "test" {
            &index
        } else {
            &folds[fold_of(&r.text)]
        };
        if let Some(t) = evaluate(index, r, misses) {
            by.entry((r.split.clone(), r.set.clone(), r.kind.clone()))
                .or_default()
                .add(&t);
        }
    }
    if only.is_some() {
        for m in train_misses.iter().chain(&test_misses) {
            println!("  miss: {m}");
        }
        return;
    }
    // (split, file or "all") → tool requests; split → negatives; (split, kind) over all files.
    let mut totals: BTreeMap<(&str, String), Tally> = BTreeMap::new();
    let mut negatives: BTreeMap<(&str, String), Tally> = BTreeMap::new();
    let mut kinds: BTreeMap<(&str, String), Tally> = BTreeMap::new();
    println!(
        "resolution over {} labelled requests ({} tools installed)",
        requests.len(),
        index.tools.len()
    );
    for split in ["train", "test"] {
        println!("{split} split:");
        for ((s, set, kind), t) in &by {
            if s != split {
                continue;
            }
            kinds.entry((split, kind.clone())).or_default().add(t);
            let sum = if kind == "negative" {
                &mut negatives
            } else {
                &mut totals
            };
            sum.entry((split, set.clone())).or_default().add(t);
            sum.entry((split, "all".to_string())).or_default().add(t);
        }
        for ((s, set), t) in &totals {
            if *s == split && set != "all" {
                println!("{}", t.row(&format!("file {set} requests"), false));
            }
        }
        for ((s, set), t) in &negatives {
            if *s == split && set != "all" {
                println!("{}", t.row(&format!("file {set} negatives"), true));
            }
        }
        for ((s, kind), t) in &kinds {
            if *s == split {
                println!("{}", t.row(&format!("all {kind}"), kind == "negative"));
            }
        }
        println!(
            "{}",
            totals[&(split, "all".to_string())].row("all tool requests", false)
        );
    }
    for m in &train_misses {
        println!("  train miss: {m}");
    }
    if std::env::var_os("CMPX_SHOW_TEST_MISSES").is_some() {
        for m in &test_misses {
            println!("  test miss: {m}");
        }
    }
    // Floors one point under what the resolver achieves on each split (and ceilings one point
    // over, for the rates that must stay low): a change that makes resolution act less often,
    // or wrongly more often, fails here.
    for (split, floor) in FLOORS {
        let t = totals[&(split, "all".to_string())];
        let neg = negatives[&(split, "all".to_string())];
        let (p1, p3) = (t.pct(t.top1), t.pct(t.top3));
        let (conf, wrong) = (t.pct(t.confident), t.pct(t.confident_wrong));
        let false_conf = neg.pct(neg.confident);
        assert!(p1 >= floor.top1, "{split}: top-1 {p1:.1}% < {}", floor.top1);
        assert!(p3 >= floor.top3, "{split}: top-3 {p3:.1}% < {}", floor.top3);
        assert!(
            conf >= floor.confident,
            "{split}: confident on {conf:.1}% < {}",
            floor.confident
        );
        assert!(
            wrong <= floor.confident_wrong,
            "{split}: confident-wrong {wrong:.1}% > {}",
            floor.confident_wrong
        );
        assert!(
            false_conf <= floor.false_confidence,
            "{split}: confident on {false_conf:.1}% of negatives > {}",
            floor.false_confidence
        );
    }
}

struct Floors {
    top1: f64,
    top3: f64,
    confident: f64,
    confident_wrong: f64,
    false_confidence: f64,
}

// Achieved (debug build, 2026-12-07, five files; train cross-validated), top-1 / top-3 /
// confident / confident-wrong / confident on negatives: train 95.6 / 98.3 / 66.6 / 0.6 / 0.0,
// test 94.2 / 97.7 / 65.9 / 0.8 / 0.0. Floors one point under; acting wrongly is held to the
// 1.0% target and acting on a negative to none (issue 40).
const FLOORS: [(&str, Floors); 2] = [
    (
        "train",
        Floors {
            top1: 94.6,
            top3: 97.3,
            confident: 65.6,
            confident_wrong: 1.0,
            false_confidence: 0.0,
        },
    ),
    (
        "test",
        Floors {
            top1: 93.2,
            top3: 96.7,
            confident: 64.9,
            confident_wrong: 1.0,
            false_confidence: 0.0,
        },
    ),
];

#[test]
fn the_resolver_learns_from_exactly_the_train_split() {
    let mut want: Vec<(String, String, Option<String>)> = data()
        .into_iter()
        .filter(|r| r.split == "train")
        .filter_map(|r| Some((r.text, r.tool?, r.intent)))
        .collect();
    let mut got: Vec<(String, String, Option<String>)> = resolve::learned::all()
        .iter()
        .map(|p| (p.text.clone(), p.tool.clone(), p.intent.clone()))
        .collect();
    want.sort();
    got.sort();
    assert!(
        got.iter().all(|(text, _, _)| split_of(text) == "train"),
        "a test-split request is in src/resolve/learned.json"
    );
    assert_eq!(
        got, want,
        "src/resolve/learned.json is not the train split: run bench/learn-phrasings.py"
    );
}

#[test]
fn the_split_rule_is_stable() {
    // The hash, not the files, decides the split: these values pin it.
    assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    let texts = data();
    let test = texts.iter().filter(|r| r.split == "test").count();
    let share = test as f64 / texts.len() as f64;
    assert!((0.2..0.3).contains(&share), "test share {share:.3}");
}

/// resolver/weights.toml is what bench/fit-weights.py writes from the features the resolver
/// computes now for the train split (each request resolved by the fold's index that did not
/// learn from it). `UPDATE_WEIGHTS=1` rewrites the file; rebuild and run again to check it.
#[test]
fn the_weights_file_is_what_the_fit_gives() {
    let (dir, _index, root) = installed();
    let folds = fold_indexes(&root);
    let opts = Options {
        top: 3,
        domain: None,
    };
    let mut table = format!(
        "fold\tright\tnegative\tveto\t{}\n",
        resolve::Features::NAMES.join("\t")
    );
    for r in data().iter().filter(|r| r.split == "train") {
        let fold = fold_of(&r.text);
        let res = resolve::resolve(&folds[fold], &r.text, &opts);
        let right = r.tool.as_ref().is_some_and(|want| {
            res.candidates.first().is_some_and(|c| {
                &c.tool == want
                    && r.intent
                        .as_ref()
                        .is_none_or(|i| c.intent.pattern.eq_ignore_ascii_case(i))
            })
        });
        let f = &res.features;
        let x: Vec<String> = f.vector().iter().map(|v| format!("{v:.6}")).collect();
        table.push_str(&format!(
            "{fold}\t{}\t{}\t{}\t{}\n",
            right as u8,
            r.tool.is_none() as u8,
            f.veto as u8,
            x.join("\t")
        ));
    }
    let features = match std::env::var_os("CMPX_FEATURES_OUT") {
        Some(path) => std::path::PathBuf::from(path),
        None => dir.path().join("features.tsv"),
    };
    std::fs::write(&features, table).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(repo.join("bench/fit-weights.py"))
        .arg("--features")
        .arg(&features)
        .output()
        .expect("python3 runs bench/fit-weights.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fitted = String::from_utf8(out.stdout).unwrap();
    let path = repo.join("resolver/weights.toml");
    if std::env::var_os("UPDATE_WEIGHTS").is_some() {
        std::fs::write(&path, &fitted).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(
        committed == fitted,
        "resolver/weights.toml is not what bench/fit-weights.py fits now; rerun this test with \
         UPDATE_WEIGHTS=1 (then rebuild and rerun)\n--- fitted:\n{fitted}"
    );
}
