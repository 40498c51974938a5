//! A fluent builder that runs the real `cmpx` binary in a hermetic temporary CMP_HOME.

#![allow(dead_code)]

pub mod fixtures;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_cmpx")
}

pub struct Test {
    home: tempfile::TempDir,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
    cwd: Option<PathBuf>,
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// stdout parsed as exactly one JSON document.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

impl Test {
    pub fn new() -> Self {
        Test {
            home: tempfile::tempdir().expect("temp dir"),
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            cwd: None,
        }
    }

    /// The hermetic CMP_HOME every run of this test uses.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    pub fn tools_dir(&self) -> PathBuf {
        self.home.path().join("tools")
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.args = args.into_iter().map(|s| s.as_ref().to_string()).collect();
        self
    }

    pub fn env(&mut self, key: &str, value: impl AsRef<str>) -> &mut Self {
        self.env.push((key.to_string(), value.as_ref().to_string()));
        self
    }

    pub fn stdin(&mut self, input: impl Into<Vec<u8>>) -> &mut Self {
        self.stdin = Some(input.into());
        self
    }

    pub fn cwd(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Runs the binary with the current arguments; the builder can be reused with new ones.
    #[track_caller]
    pub fn run(&self) -> Output {
        let mut cmd = Command::new(bin());
        cmd.args(&self.args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("CMP_HOME", self.home.path())
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn cmpx");
        if let Some(input) = &self.stdin {
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(input)
                .expect("write stdin");
        }
        let out = child.wait_with_output().expect("wait for cmpx");
        let code = out.status.code().unwrap_or(-1);
        assert_ne!(
            code,
            101,
            "cmpx panicked: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Output {
            code,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

// "In CI" and skips mean one thing in every test of the workspace: the tool library's
// (`.ci/run` runs with CI=true; in CI a skip fails the test).
pub use cmpx::tools::testing::skip;

/// `present`, or a [`skip`] for `what` when it is not: `if !require(…) { return; }`.
#[track_caller]
pub fn require(what: &str, present: bool) -> bool {
    if !present {
        skip(format!("{what} is missing"));
    }
    present
}

/// Whether `program` runs with `args` and exits 0 (a probe for what a test needs).
pub fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// An exclusive lock named `name`, held until the file is dropped: for a fixture that tests
/// share on disk (target/btcp-client), which threads of one test binary and processes of
/// another runner (nextest runs each test in its own) must not build at the same time.
pub fn lock_file(name: &str) -> std::fs::File {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.lock"));
    let file =
        std::fs::File::create(&path).unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
    file.lock()
        .unwrap_or_else(|e| panic!("lock {}: {e}", path.display()));
    file
}

/// The CTP schema folder: `$CTP_SCHEMA_DIR`, else `../shared/ctp-schemas` beside the clone.
pub fn schema_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("CTP_SCHEMA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/ctp-schemas"));
    if dir.join("tool-definition.schema.json").is_file() {
        Some(dir)
    } else {
        // CI has ../shared beside the clone: there the checks must not fall back.
        skip(format!(
            "the CTP schemas at {} (set CTP_SCHEMA_DIR); the schema checks fall back to cmpx's own rules",
            dir.display()
        ));
        None
    }
}

/// A validator for one schema file, or `None` when the schemas are absent.
pub fn schema(name: &str) -> Option<jsonschema::Validator> {
    let dir = schema_dir()?;
    let text = std::fs::read_to_string(dir.join(name)).expect("read schema");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    Some(jsonschema::validator_for(&schema).expect("schema compiles"))
}

#[track_caller]
pub fn assert_valid(validator: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what} is invalid: {errors:#?}\n{doc}");
}

/// The wave-1 tool ids the catalogue must carry.
pub const WAVE1: &[&str] = &[
    "json-formatter",
    "base64-encoder",
    "url-encoder",
    "hash-generator",
    "jwt-decoder",
    "uuid-generator",
    "timestamp-converter",
    "json-to-yaml",
    "yaml-to-json",
    "case-converter",
    "number-base-converter",
    "hmac-generator",
    "json-minifier",
    "html-entity-encoder",
    "xml-formatter",
    "sql-formatter",
    "regex-tester",
    "text-diff",
    "json-to-csv",
    "lorem-ipsum-generator",
    "markdown-to-html",
    "text-statistics",
    "line-sorter",
    "qr-code-generator",
    "text-reverser",
    "password-generator",
    "cron-parser",
    "jwt-encoder",
    "gzip-compressor",
    "string-escaper",
    "csv-to-json",
    "slugify",
];

/// The wave-2a tool ids.
pub const WAVE2A: &[&str] = &[
    "jsonpath-tester",
    "list-comparer",
    "line-deduplicator",
    "color-converter",
    "certificate-decoder",
    "base64-file-encoder",
    "file-type-detector",
    "format-detector",
    "otp-generator",
    "bcrypt-hasher",
    "url-parser",
    "chmod-calculator",
    "text-to-binary",
    "char-code-converter",
    "ipv4-subnet-calculator",
    "ipv4-address-converter",
    "ipv4-range-expander",
    "user-agent-parser",
    "text-encryptor",
    "rsa-key-pair-generator",
    "nato-alphabet-converter",
    "unit-converter",
    "random-number-generator",
    "math-evaluator",
    "json-diff",
    "roman-numeral-converter",
    "ulid-generator",
    "json-to-toml",
    "toml-to-json",
    "yaml-formatter",
    "yaml-to-toml",
    "toml-to-yaml",
    "xml-to-json",
    "json-to-xml",
    "basic-auth-generator",
    "list-converter",
    "string-obfuscator",
    "http-status-lookup",
    "mime-type-lookup",
    "password-strength-analyzer",
    "iban-validator",
    "email-normalizer",
    "phone-number-parser",
    "docker-run-to-compose",
    "percentage-calculator",
    "eta-calculator",
    "duration-formatter",
    "safelink-decoder",
    "mac-address-generator",
    "ipv6-ula-generator",
    "bip39-generator",
    "numeronym-generator",
    "ascii-art-generator",
    "emoji-lookup",
    "svg-placeholder-generator",
    "meta-tag-generator",
    "line-ending-converter",
];
