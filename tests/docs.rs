//! The documents promise numbers; these tests keep the promises true.

use std::path::Path;

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

fn snippet() -> String {
    let doc = read("AGENT_SETUP.md");
    let start = doc.find("<!-- cmp:start -->").expect("start marker");
    let end = doc.find("<!-- cmp:end -->").expect("end marker");
    doc[start..end + "<!-- cmp:end -->".len()].to_string()
}

#[test]
fn the_agent_snippet_is_under_100_tokens() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = bpe.encode_with_special_tokens(&snippet()).len();
    assert!(tokens < 100, "snippet is {tokens} tokens");
}

#[test]
fn the_snippet_points_at_the_exported_layout() {
    let s = snippet();
    assert!(s.contains("~/.cmp/tools/"));
    assert!(s.contains("manifest.json") && s.contains("capability.json") && s.contains("command"));
}

#[test]
fn readme_documents_every_exit_code() {
    let readme = read("README.md");
    for code in cmpx::ExitCode::ALL {
        let row = format!("| {} |", code.code());
        assert!(
            readme.contains(&row),
            "README.md has no row for exit code {}",
            code.code()
        );
    }
}
