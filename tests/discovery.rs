//! Discovery documents (`cmpx discover`), tool specifications (`cmpx doc`) and the agent snippet
//! (`cmpx agent-setup`).
//!
//! Golden files live in tests/golden/; after a deliberate change (or a catalogue that grew)
//! regenerate them with `UPDATE_GOLDEN=1 cargo test --test discovery` and review the diff.

use crate::common;

use common::Test;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const FILES: [(&str, &str); 9] = [
    ("ctp-manifest", ".well-known/ctp-manifest.json"),
    ("openapi", "api/openapi.yaml"),
    ("ai-tools", "api/ai-tools.json"),
    ("ai-plugin", ".well-known/ai-plugin.json"),
    ("llms-txt", "llms.txt"),
    ("llms-full-txt", "llms-full.txt"),
    ("mcp", "mcp-tools.json"),
    ("openai", "openai-tools.json"),
    ("anthropic", "anthropic-tools.json"),
];

/// Tools whose specification pages are pinned: a plain one and one with a secret and constraints.
const DOC_GOLDEN: [&str; 2] = ["json-formatter", "hmac-generator"];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `actual` with the golden file `name`, or rewrites it when UPDATE_GOLDEN is set.
/// Returns a description of the mismatch instead of panicking, so one run reports every file.
fn check_golden(name: &str, actual: &str) -> Option<String> {
    let path = golden_dir().join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    let expected = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => return Some(format!("{name}: cannot read golden file ({e})")),
    };
    if expected == actual {
        return None;
    }
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .map_or_else(
            || expected.lines().count().min(actual.lines().count()) + 1,
            |i| i + 1,
        );
    Some(format!(
        "{name} differs from the golden file from line {line}:\n  golden: {:?}\n  actual: {:?}",
        expected.lines().nth(line - 1).unwrap_or("<end>"),
        actual.lines().nth(line - 1).unwrap_or("<end>"),
    ))
}

fn discover_all() -> (tempfile::TempDir, Value) {
    let out = tempfile::tempdir().unwrap();
    let run = Test::new()
        .args(["discover", "--out", out.path().to_str().unwrap()])
        .run();
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    (out, run.json())
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn every_format_matches_its_golden_file() {
    let (out, summary) = discover_all();
    let files = summary["files"].as_array().unwrap();
    assert_eq!(files.len(), FILES.len(), "{summary}");
    let mut problems = Vec::new();
    for (format, file) in FILES {
        assert!(
            files
                .iter()
                .any(|f| f["format"] == format && f["status"] == "created"),
            "{format} missing from {summary}"
        );
        problems.extend(check_golden(
            &format!("discover/{file}"),
            &read(out.path(), file),
        ));
    }
    assert!(
        problems.is_empty(),
        "{}\n(regenerate with UPDATE_GOLDEN=1 cargo test --test discovery)",
        problems.join("\n")
    );
}

#[test]
fn printing_a_format_gives_the_same_text_as_writing_it() {
    let (out, _) = discover_all();
    let mut t = Test::new();
    for (format, file) in FILES {
        let run = t.args(["discover", "--format", format]).run();
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        assert_eq!(run.stdout, read(out.path(), file), "{format}");
    }
}

#[test]
fn writing_one_format_writes_only_its_file() {
    let out = tempfile::tempdir().unwrap();
    let run = Test::new()
        .args([
            "discover",
            "--format",
            "ctp-manifest",
            "--out",
            out.path().to_str().unwrap(),
        ])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["files"].as_array().unwrap().len(), 1);
    assert!(out.path().join(".well-known/ctp-manifest.json").is_file());
    assert!(!out.path().join("api/openapi.yaml").exists());
}

#[test]
fn a_second_run_rewrites_nothing() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let mut t = Test::new();
    assert_eq!(t.args(["discover", "--out", dir]).run().code, 0);
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for (_, file) in FILES {
        let f = std::fs::File::options()
            .append(true)
            .open(out.path().join(file))
            .unwrap();
        f.set_modified(old).unwrap();
    }
    let run = t.args(["discover", "--out", dir]).run();
    assert_eq!(run.code, 0);
    for f in run.json()["files"].as_array().unwrap() {
        assert_eq!(f["status"], "unchanged", "{f}");
    }
    for (_, file) in FILES {
        let mtime = std::fs::metadata(out.path().join(file))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(mtime, old, "{file} was rewritten");
    }
}

#[test]
fn usage_errors_list_the_formats() {
    let mut t = Test::new();
    let run = t.args(["discover", "--format", "swagger"]).run();
    assert_eq!(run.code, 2);
    let doc = run.json();
    assert_eq!(doc["errorCode"], "INVALID_INPUT");
    let message = doc["error"].as_str().unwrap();
    for (format, _) in FILES {
        assert!(message.contains(format), "{message}");
    }
    let run = t.args(["discover"]).run();
    assert_eq!(run.code, 2);
    assert!(run.stdout.contains("llms-full-txt"), "{}", run.stdout);
    let run = t
        .args([
            "discover",
            "--format",
            "ai-tools",
            "--base-url",
            "not a url",
        ])
        .run();
    assert_eq!(run.code, 2, "{}", run.stdout);
}

#[test]
fn the_base_url_reaches_every_endpoint() {
    let run = Test::new()
        .args([
            "discover",
            "--format",
            "ctp-manifest",
            "--base-url",
            "https://tools.example.org/",
        ])
        .run();
    let doc = run.json();
    assert_eq!(doc["baseUrl"], "https://tools.example.org");
    assert_eq!(
        doc["tools"][0]["apiEndpoint"],
        format!(
            "https://tools.example.org/api/tools/{}",
            doc["tools"][0]["id"].as_str().unwrap()
        )
    );
}

/// A validator for ctp-manifest.schema.json, whose parameters `$ref` tool-definition.schema.json:
/// that document is registered under its `$id`, so nothing is fetched.
fn manifest_validator() -> Option<jsonschema::Validator> {
    let dir = common::schema_dir()?;
    let load = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    let definition = load("tool-definition.schema.json");
    let id = definition["$id"].as_str().unwrap().to_string();
    let registry = jsonschema::Registry::new()
        .add(id, definition)
        .unwrap()
        .prepare()
        .unwrap();
    Some(
        jsonschema::options()
            .with_registry(&registry)
            .build(&load("ctp-manifest.schema.json"))
            .expect("ctp-manifest schema compiles"),
    )
}

#[test]
fn the_ctp_manifest_is_valid_and_lists_every_tool() {
    let text = Test::new()
        .args(["discover", "--format", "ctp-manifest"])
        .run()
        .stdout;
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["ctpVersion"], "1.0.0");
    assert_eq!(doc["name"], "cmpx");
    let tools = doc["tools"].as_array().unwrap();
    assert_eq!(tools.len(), cmpx::catalogue::all().len());
    for t in tools {
        for field in [
            "id",
            "name",
            "description",
            "category",
            "tags",
            "method",
            "parameters",
            "apiEndpoint",
        ] {
            assert!(t.get(field).is_some(), "{} has no {field}", t["id"]);
        }
    }
    assert!(!doc["categories"].as_array().unwrap().is_empty());
    assert!(doc["capabilities"].is_object());
    if let Some(v) = manifest_validator() {
        common::assert_valid(&v, &doc, "ctp-manifest.json");
        // The validator does follow the external $ref: a bad parameter is caught.
        let mut bad = doc.clone();
        bad["tools"][0]["parameters"][0]["type"] = "nonsense".into();
        assert!(!v.is_valid(&bad));
    }
}

#[test]
fn the_openapi_document_passes_openapi_spec_validator() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("openapi.yaml");
    let text = Test::new()
        .args(["discover", "--format", "openapi"])
        .run()
        .stdout;
    std::fs::write(&path, &text).unwrap();

    let doc: Value = serde_norway::from_str(&text).expect("openapi.yaml is YAML");
    assert_eq!(doc["openapi"], "3.1.0");
    for def in cmpx::catalogue::all() {
        let op = &doc["paths"][format!("/api/tools/{}", def.id)]["post"];
        assert_eq!(op["operationId"], def.id.as_str());
        assert_eq!(op["tags"][0], def.category.as_str());
        assert_eq!(
            op["requestBody"]["content"]["application/json"]["schema"],
            cmpx::discovery::json_schema::input_schema(def)
        );
        let success = &op["responses"]["200"]["content"]["application/json"]["schema"];
        assert_eq!(
            success["properties"]["data"],
            cmpx::discovery::json_schema::output_schema(def)
        );
    }

    let module = std::process::Command::new("python3")
        .args(["-c", "import openapi_spec_validator"])
        .output();
    if !module.is_ok_and(|o| o.status.success()) {
        common::skip(
            "the OpenAPI validation: python3 has no openapi_spec_validator (pip install openapi-spec-validator)",
        );
        return;
    }
    let out = std::process::Command::new("python3")
        .args(["-m", "openapi_spec_validator"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openapi-spec-validator rejected openapi.yaml:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn function_calling_formats_have_valid_names_and_schemas() {
    let mut t = Test::new();
    let name_rule = regex::Regex::new("^[a-zA-Z0-9_-]{1,64}$").unwrap();
    let n = cmpx::catalogue::all().len();

    let openai = t.args(["discover", "--format", "openai"]).run().json();
    assert_eq!(openai.as_array().unwrap().len(), n);
    for tool in openai.as_array().unwrap() {
        assert_eq!(tool["type"], "function");
        let f = &tool["function"];
        assert!(
            name_rule.is_match(f["name"].as_str().unwrap()),
            "{}",
            f["name"]
        );
        assert!(f["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert_eq!(f["parameters"]["type"], "object");
        assert_eq!(f["strict"], false);
        assert_eq!(
            f.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["name", "description", "parameters", "strict"]
        );
    }

    let anthropic = t.args(["discover", "--format", "anthropic"]).run().json();
    assert_eq!(anthropic.as_array().unwrap().len(), n);
    for tool in anthropic.as_array().unwrap() {
        assert!(name_rule.is_match(tool["name"].as_str().unwrap()));
        assert_eq!(tool["input_schema"]["type"], "object");
        assert_eq!(
            tool.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["name", "description", "input_schema"]
        );
    }

    let mcp = t.args(["discover", "--format", "mcp"]).run().json();
    assert_eq!(mcp, Value::Array(cmpx::discovery::mcp::catalogue_tools()));

    let ai = t.args(["discover", "--format", "ai-tools"]).run().json();
    let tools = ai["tools"].as_array().unwrap();
    assert_eq!(tools.len(), n);
    for tool in tools {
        for field in ["name", "description", "parameters", "endpoint"] {
            assert!(tool.get(field).is_some(), "ai-tools entry lacks {field}");
        }
        assert!(
            tool["endpoint"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/api/tools/{}", tool["name"].as_str().unwrap()))
        );
    }
}

#[test]
fn llms_txt_follows_the_convention() {
    let mut t = Test::new();
    let index = t.args(["discover", "--format", "llms-txt"]).run().stdout;
    let mut lines = index.lines();
    assert_eq!(lines.next(), Some("# cmpx"));
    assert_eq!(lines.next(), Some(""));
    assert!(lines.next().unwrap().starts_with("> "));
    for def in cmpx::catalogue::all() {
        let heading = format!("## {}", cmpx::discovery::category_name(&def.category));
        assert!(index.contains(&heading), "no section {heading}");
        let line = format!(
            "- [{}](http://127.0.0.1:7878/docs/{}.md): ",
            def.name, def.id
        );
        assert_eq!(index.matches(&line).count(), 1, "{line}");
    }
    assert!(index.contains("\n## Optional\n"));
    let full = t
        .args(["discover", "--format", "llms-full-txt"])
        .run()
        .stdout;
    assert!(full.starts_with("# cmpx\n\n> "));
    for def in cmpx::catalogue::all() {
        assert!(full.contains(&format!("### {} (`{}`)", def.name, def.id)));
        assert!(full.contains(&def.description));
        assert!(full.contains(&Value::Object(def.example.input.clone()).to_string()));
        for p in &def.parameters {
            assert!(
                full.contains(&format!("- `{}` (", p.name)),
                "{} {}",
                def.id,
                p.name
            );
        }
    }
}

// ---- cmpx doc ----

const SECTIONS: [&str; 8] = [
    "## Purpose",
    "## Invocation name",
    "## Input schema",
    "## Output schema",
    "## Error handling",
    "## Idempotency",
    "## Usage examples",
    "## Security considerations",
];

#[test]
fn tool_docs_match_their_golden_files() {
    let mut t = Test::new();
    let mut problems = Vec::new();
    for id in DOC_GOLDEN {
        let run = t.args(["doc", id]).run();
        assert_eq!(run.code, 0, "{}", run.stderr);
        problems.extend(check_golden(&format!("doc/{id}.md"), &run.stdout));
    }
    assert!(
        problems.is_empty(),
        "{}\n(regenerate with UPDATE_GOLDEN=1 cargo test --test discovery)",
        problems.join("\n")
    );
}

#[test]
fn doc_all_writes_one_page_per_tool_with_every_section() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let mut t = Test::new();
    let run = t.args(["doc", "--all", "--out", dir]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let files = run.json()["files"].as_array().unwrap().clone();
    assert_eq!(files.len(), cmpx::catalogue::all().len());
    for def in cmpx::catalogue::all() {
        let page = read(out.path(), &format!("{}.md", def.id));
        let mut at = 0;
        for s in SECTIONS {
            let i = page[at..]
                .find(&format!("\n{s}\n"))
                .unwrap_or_else(|| panic!("{}: no '{s}' after byte {at}", def.id));
            at += i + 1;
        }
        for code in ["TYPE_ERROR", "INVALID_INPUT", "INTERNAL_ERROR"] {
            assert!(
                page.contains(code) || def.parameters.is_empty(),
                "{} {code}",
                def.id
            );
        }
        if def.parameters.iter().any(|p| p.required) {
            assert!(page.contains("MISSING_REQUIRED"), "{}", def.id);
        }
        if def.parameters.iter().any(|p| !p.options.is_empty()) {
            assert!(page.contains("CONSTRAINT_VIOLATION"), "{}", def.id);
        }
        assert!(page.contains("\"method\": \"tools/call\""), "{}", def.id);
        assert!(
            page.contains(&cmpx::cmp::mapping::command(def)),
            "{}",
            def.id
        );
    }
    // A second run rewrites nothing.
    let again = t.args(["doc", "--all", "--out", dir]).run().json();
    assert!(
        again["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["status"] == "unchanged")
    );
}

#[test]
fn secrets_are_flagged_in_the_security_section() {
    let page = Test::new().args(["doc", "hmac-generator"]).run().stdout;
    let security = &page[page.find("## Security considerations").unwrap()..];
    assert!(security.contains("`key` carries a secret"), "{security}");
    assert!(!security.contains("`keyEncoding` carries"), "{security}");
    let page = Test::new().args(["doc", "json-formatter"]).run().stdout;
    assert!(!page.contains("carries a secret"));
}

/// The command line each page shows reproduces the tool's example.
#[test]
fn the_cli_example_of_every_tool_runs() {
    let mut t = Test::new();
    for def in cmpx::catalogue::all() {
        let line = cmpx::discovery::tool_doc::cli_example(def);
        let page = t.args(["doc", &def.id]).run().stdout;
        assert!(page.contains(&format!("```sh\n{line}\n```")), "{}", def.id);
        let words = shell_words::split(&line).unwrap();
        assert_eq!(&words[..2], ["cmpx", "run"]);
        let mut args: Vec<String> = words[1..].to_vec();
        args.push("--json".into());
        let run = t.args(&args).run();
        assert_eq!(run.code, 0, "{line}\n{}{}", run.stdout, run.stderr);
        let data = run.json()["data"].clone();
        if cmpx::catalogue::flags(&def.id).always_random() {
            assert!(
                cmpx::tools::same_shape(&data, &def.example.output),
                "{}",
                def.id
            );
        } else {
            assert_eq!(data, def.example.output, "{line}");
        }
    }
}

#[test]
fn doc_errors() {
    let mut t = Test::new();
    let run = t.args(["doc", "json-formater"]).run();
    assert_eq!(run.code, 4);
    let doc = run.json();
    assert_eq!(doc["errorCode"], "NOT_FOUND");
    assert_eq!(doc["data"]["didYouMean"], "json-formatter");
    assert_eq!(t.args(["doc"]).run().code, 2);
    assert_eq!(t.args(["doc", "--all"]).run().code, 2);
    assert_eq!(t.args(["doc", "json-formatter", "--all"]).run().code, 2);
}

// ---- cmpx agent-setup ----

fn snippet() -> String {
    let run = Test::new().args(["agent-setup"]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn the_snippet_is_short_and_says_where_to_look() {
    let s = snippet();
    assert!(s.starts_with("<!-- cmp:start -->\n") && s.ends_with("<!-- cmp:end -->\n"));
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = bpe.encode_with_special_tokens(&s).len();
    assert!(tokens < 100, "snippet is {tokens} tokens");
    for needle in [
        "~/.cmp/tools",
        "manifest.json",
        "capability.json",
        "command",
        "cmpx resolve \"<what you want>\"",
    ] {
        assert!(s.contains(needle), "snippet lacks {needle}");
    }
}

#[test]
fn agent_setup_md_shows_the_same_snippet() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("AGENT_SETUP.md"))
        .unwrap();
    let start = doc.find("<!-- cmp:start -->").unwrap();
    let end = doc.find("<!-- cmp:end -->").unwrap() + "<!-- cmp:end -->".len();
    assert_eq!(
        format!("{}\n", &doc[start..end]),
        snippet(),
        "AGENT_SETUP.md is out of date: run cmpx agent-setup --write AGENT_SETUP.md"
    );
}

fn write_to(t: &mut Test, file: &Path) -> common::Output {
    t.args(["agent-setup", "--write", file.to_str().unwrap()])
        .run()
}

#[test]
fn write_creates_a_missing_file_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sub/CLAUDE.md");
    let mut t = Test::new();
    let run = write_to(&mut t, &file);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["status"], "created");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), snippet());

    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .append(true)
        .open(&file)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let before = std::fs::read(&file).unwrap();
    let run = write_to(&mut t, &file);
    assert_eq!(run.json()["status"], "unchanged");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), old);
}

#[test]
fn write_appends_and_keeps_the_rest_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("AGENTS.md");
    let original = "# Project rules\n\n- run the tests\r\n- no tabs";
    std::fs::write(&file, original).unwrap();
    let mut t = Test::new();
    let run = write_to(&mut t, &file);
    assert_eq!(run.json()["status"], "updated");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(original), "{text:?}");
    assert_eq!(text, format!("{original}\n\n{}", snippet()));
    // And the second run changes nothing.
    assert_eq!(write_to(&mut t, &file).json()["status"], "unchanged");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn write_replaces_an_older_block_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("CLAUDE.md");
    let before = "# Notes\n\nintro line\n";
    let after = "\n## Later section\nkeep me  \n";
    let old_block = "<!-- cmp:start -->\nold snippet text\n<!-- cmp:end -->";
    std::fs::write(&file, format!("{before}{old_block}{after}")).unwrap();
    let run = write_to(&mut Test::new(), &file);
    assert_eq!(run.json()["status"], "updated");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        text,
        format!("{before}{}{after}", snippet().trim_end_matches('\n'))
    );
    assert!(!text.contains("old snippet text"));
}

#[test]
fn write_refuses_broken_markers() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("CLAUDE.md");
    let broken = "# Notes\n<!-- cmp:start -->\nhalf a block\n";
    std::fs::write(&file, broken).unwrap();
    let run = write_to(&mut Test::new(), &file);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
}
