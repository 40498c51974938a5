//! The resolution index's fast paths give exactly what a from-scratch build gives: the cached
//! index, and an index rebuilt from the folder records after folders were added, edited in
//! place, renamed, moved to `.cmp/` and removed (only those folders are read again), and after
//! the index file was cut short or zero-filled.

use cmpx::resolve::{self, Options, index};
use std::path::{Path, PathBuf};

const NOUNS: &[&str] = &[
    "archive", "bucket", "cert", "cluster", "cron", "dns", "docker", "invoice", "kafka", "ledger",
    "metric", "queue", "redis", "secret", "ticket", "tunnel", "webhook", "yaml",
];
const VERBS: &[&str] = &[
    "list", "show", "create", "delete", "sync", "rotate", "inspect",
];

/// A deterministic stand-in for the bench's generated folders (xorshift, no dependency).
struct Gen(u64);

impl Gen {
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        from[(self.0 % from.len() as u64) as usize]
    }
}

fn write_folder(root: &Path, name: &str, sub: &str, capability: &str) {
    let dir = root.join(name).join(sub);
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = format!(
        r#"{{"domain":"devops","name":"{name}","summary":"Manage {name} records","version":"1.0.0","tags":["{name}"]}}"#
    );
    std::fs::write(dir.join("manifest.json"), manifest).unwrap();
    std::fs::write(dir.join("capability.json"), capability).unwrap();
}

fn capability(g: &mut Gen, noun: &str, other: &str, intents: usize) -> String {
    let intents: Vec<String> = (0..intents)
        .map(|_| {
            let verb = g.pick(VERBS);
            format!(
                r#"{{"patterns":["{verb} {noun} {other}","{verb} the {other} of a {noun}"],"command":"echo {verb}"}}"#
            )
        })
        .collect();
    format!(r#"{{"intents":[{}]}}"#, intents.join(","))
}

fn generate(root: &Path, n: usize) {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for i in 0..n {
        let (noun, other) = (g.pick(NOUNS), g.pick(NOUNS));
        let cap = capability(&mut g, noun, other, 1 + i % 3);
        write_folder(root, &format!("{noun}-{other}-{i}"), "cmp", &cap);
    }
}

fn bytes(i: &index::Index) -> Vec<u8> {
    rmp_serde::to_vec(i).unwrap()
}

const REQUESTS: &[&str] = &[
    "pretty print this json",
    "rotate the kafka secret",
    "list redis queue",
    "delete the ticket of a cron",
    "base64 encode hello",
    "sync dns tunnel",
];

fn answers(i: &index::Index) -> Vec<String> {
    REQUESTS
        .iter()
        .map(|r| serde_json::to_string(&resolve::resolve(i, r, &Options::default())).unwrap())
        .collect()
}

/// Asserts the cached path matches a from-scratch build, and returns how many folders it read.
fn load_matches_build(roots: &[PathBuf], cache: &Path) -> usize {
    let (loaded, fresh) = index::load_at(roots, cache);
    let scratch = index::build(roots);
    assert!(
        bytes(&loaded) == bytes(&scratch),
        "cached index differs from a fresh build"
    );
    assert_eq!(answers(&loaded), answers(&scratch));
    fresh
}

/// Rewrites a file in place (same inode), keeping its size and restoring its mtime.
fn rewrite_in_place(path: &Path, text: &str) {
    let before = std::fs::metadata(path).unwrap();
    assert_eq!(
        before.len(),
        text.len() as u64,
        "the edit must keep the size"
    );
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
}

#[test]
fn cached_and_incremental_indexes_equal_a_fresh_build() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("tools");
    let cache = home.path().join("cache");
    generate(&root, 300);
    let roots = vec![root.clone()];

    // Cold: every folder read; then warm: none.
    assert_eq!(load_matches_build(&roots, &cache), 300);
    assert_eq!(load_matches_build(&roots, &cache), 0);
    assert!(cache.join("resolve-folders.bin").is_file());

    // Five folders change; only they are read again.
    let names: Vec<String> = {
        let mut n: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        n.sort();
        n
    };
    write_folder(
        &root,
        "zz-installed-now",
        "cmp",
        r#"{"intents":[{"patterns":["polish the gadgets"],"command":"echo new"}]}"#,
    );
    let edited = root.join(&names[0]).join("cmp/capability.json");
    let text = std::fs::read_to_string(&edited).unwrap();
    let swapped = text
        .replacen("\"echo ", "\"ECHO ", 1)
        .replacen(" the ", " ThE ", 1);
    rewrite_in_place(&edited, &swapped);
    std::fs::remove_dir_all(root.join(&names[1])).unwrap();
    std::fs::rename(root.join(&names[2]), root.join("renamed-folder")).unwrap();
    let grown = root.join(&names[3]).join("cmp/capability.json");
    let text = std::fs::read_to_string(&grown).unwrap();
    std::fs::write(
        &grown,
        text.replace(
            "]}",
            r#",{"patterns":["scrub the sprocket"],"command":"echo more"}]}"#,
        ),
    )
    .unwrap();
    std::fs::rename(
        root.join(&names[4]).join("cmp"),
        root.join(&names[4]).join(".cmp"),
    )
    .unwrap();
    // Added, edited, renamed, grown, moved: five reads; the removed one is simply gone.
    assert_eq!(load_matches_build(&roots, &cache), 5);
    let (i, _) = index::load_at(&roots, &cache);
    let best = |q: &str| {
        resolve::resolve(&i, q, &Options::default())
            .candidates
            .first()
            .map(|c| c.tool.clone())
    };
    assert_eq!(
        best("polish the gadgets").as_deref(),
        Some("zz-installed-now")
    );
    assert_eq!(
        best("scrub the sprocket").as_deref(),
        Some(names[3].as_str())
    );

    // An index cut short or zero-filled after its header (what a crash can leave, since the
    // cache is not synced) is rebuilt from the folder records, reading no folder.
    let index_file = cache.join("resolve-index.bin");
    let whole = std::fs::read(&index_file).unwrap();
    let header = whole.iter().position(|&b| b == b'\n').unwrap() + 1;
    std::fs::write(&index_file, &whole[..header + (whole.len() - header) / 2]).unwrap();
    assert_eq!(load_matches_build(&roots, &cache), 0);
    assert_eq!(std::fs::read(&index_file).unwrap(), whole);
    let mut zeroed = whole.clone();
    zeroed[header..].fill(0);
    std::fs::write(&index_file, &zeroed).unwrap();
    assert_eq!(load_matches_build(&roots, &cache), 0);
    assert_eq!(std::fs::read(&index_file).unwrap(), whole);
    // One changed byte anywhere in the body (where tools and intents, decoded only when used,
    // would still decode) fails the header's checksum: rebuilt, not served.
    for at in [
        header + 40,
        header + (whole.len() - header) / 2,
        whole.len() - 1,
    ] {
        let mut flipped = whole.clone();
        flipped[at] ^= 0x01;
        std::fs::write(&index_file, &flipped).unwrap();
        assert_eq!(load_matches_build(&roots, &cache), 0);
        assert_eq!(std::fs::read(&index_file).unwrap(), whole);
    }

    // A corrupt record file is ignored: every folder is read again, same index.
    std::fs::write(cache.join("resolve-folders.bin"), "garbage").unwrap();
    std::fs::remove_file(cache.join("resolve-index.bin")).unwrap();
    assert_eq!(load_matches_build(&roots, &cache), 300);
}
