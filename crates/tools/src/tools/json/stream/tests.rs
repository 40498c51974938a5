//! The streaming plan, which json-formatter and json-minifier run on text in memory as over a
//! file, against the whole-document path (`format::whole`: serde_json's validation and the
//! literal-preserving tree): same output, same sizes, same errors, on real JSON files, the
//! catalogue's examples and a generated corpus of valid and broken documents, with the piece
//! boundary put everywhere.

use super::*;
use crate::tools::json::scan::digit_run;
use crate::tools::kit::plan::run_in_memory;
use crate::tools::kit::testing;
use serde_json::json;

const TOOLS: [&str; 2] = ["json-formatter", "json-minifier"];

fn options(i: usize) -> Value {
    match i % 6 {
        0 => json!({}),
        1 => json!({"indent": "4"}),
        2 => json!({"indent": "8", "ensureAscii": true}),
        3 => json!({"indent": "tab"}),
        4 => json!({"ensureAscii": true}),
        _ => json!({"indent": "2"}),
    }
}

fn args_for(id: &str, input: &str, extra: &Value) -> Map<String, Value> {
    let mut args = Map::new();
    args.insert("input".into(), Value::from(input));
    if let Some(extra) = extra.as_object() {
        for (k, v) in extra {
            if id == "json-formatter" || k != "indent" {
                args.insert(k.clone(), v.clone());
            }
        }
    }
    args
}

fn plan_for<'a>(id: &str, args: &Map<String, Value>, input: Chunks<'a>) -> Option<Plan<'a>> {
    let def = crate::catalogue::get(id).expect(id);
    let prepared = crate::ctp::params::prepare_owned(&def, args.clone()).expect("valid args");
    let args = Args::new(&prepared);
    let planned = if id == "json-formatter" {
        plan_format(&args, input)
    } else {
        plan_minify(&args, input)
    };
    match planned {
        Ok(plan) => plan,
        Err(Stop::Tool(e)) => Some(Plan {
            fields: Map::new(),
            output: Output::Ready(format!("ERROR {:?}: {}", e.code, e.message)),
        }),
        Err(Stop::Io(e)) => panic!("io: {e}"),
    }
}

/// The tool's result, as `Ok(data)` or `Err("ERROR code: message")`.
fn in_memory(id: &str, args: &Map<String, Value>) -> Result<Value, String> {
    let result = testing::run(id, Value::Object(args.clone()));
    match (result.success, result.data, result.error_code, result.error) {
        (true, Some(data), _, _) => Ok(data),
        (_, _, Some(code), Some(msg)) => Err(format!("ERROR {code:?}: {msg}")),
        other => panic!("odd result {other:?}"),
    }
}

/// What the whole-document path makes of the call, in the same form: the reference.
fn reference(id: &str, args: &Map<String, Value>) -> Result<Value, String> {
    let input = args["input"].as_str().expect("input");
    let flag = |name: &str| args.get(name).and_then(Value::as_bool).unwrap_or(false);
    let unit = (id == "json-formatter").then(|| match args.get("indent").and_then(Value::as_str) {
        Some("4") => "    ",
        Some("8") => "        ",
        Some("tab") => "\t",
        _ => "  ",
    });
    match crate::tools::json::format::whole(input, unit, flag("ensureAscii"), flag("sortKeys")) {
        Ok(output) if unit.is_some() => Ok(json!({ "output": output })),
        Ok(output) => Ok(json!({
            "output": output,
            "originalSize": input.len(),
            "minifiedSize": output.len(),
        })),
        Err(e) => Err(format!("ERROR {:?}: {}", e.code, e.message)),
    }
}

/// Checks one input under one set of options, cut into pieces of `chunk` bytes.
#[track_caller]
fn same(id: &str, input: &str, extra: &Value, chunk: usize) {
    let args = args_for(id, input, extra);
    let expected = reference(id, &args);
    // The tool itself: the plan, or the whole-document path where the plan declines.
    assert_eq!(
        in_memory(id, &args),
        expected,
        "{id} {extra}: the tool differs on {input:?}"
    );
    let pieces = || Chunks::text(input).with_chunk_size(chunk);
    let Some(plan) = plan_for(id, &args, pieces()) else {
        // Refused input takes the whole-document path, which must refuse it too.
        assert!(
            expected.is_err(),
            "{id} {extra} chunk {chunk}: the scanner refused valid {input:?}"
        );
        return;
    };
    let got = match plan.output {
        Output::Ready(ref e) if e.starts_with("ERROR") => Err(e.clone()),
        _ => Ok(run_in_memory(plan).expect("in-memory run")),
    };
    assert_eq!(
        got, expected,
        "{id} {extra} chunk {chunk} differs on {input:?}"
    );
    // The escaped form the envelope carries, and both measured lengths.
    let Ok(data) = expected else { return };
    let output = data["output"].as_str().expect("output");
    let Some(Plan {
        output:
            Output::Escaping {
                len,
                escaped_len,
                emit,
            },
        ..
    }) = plan_for(id, &args, pieces())
    else {
        panic!("no escaping output for {input:?}");
    };
    let mut escaped = Vec::new();
    emit(&mut escaped, true).expect("emit");
    let quoted = serde_json::to_string(output).expect("string");
    assert_eq!(
        String::from_utf8(escaped).expect("utf-8"),
        quoted[1..quoted.len() - 1],
        "{id} {extra} escaped on {input:?}"
    );
    assert_eq!(len, output.len() as u64);
    assert_eq!(escaped_len, quoted.len() as u64 - 2);
}

fn corpus_files() -> Vec<String> {
    // The workspace root, where the catalogue and the test data are.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    let mut dirs = vec![
        root.join("catalogue"),
        root.join("tests/golden"),
        root.join("tests/data"),
        root.join("adapters"),
    ];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "json")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                found.push(text);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn real_files_and_catalogue_examples_match_the_whole_document_path() {
    let files = corpus_files();
    assert!(files.len() > 100, "only {} JSON files found", files.len());
    for (i, text) in files.iter().enumerate() {
        for id in TOOLS {
            same(id, text, &options(i), 32 << 10);
        }
        // Piece boundaries everywhere, on a few of them.
        if i % 40 == 0 {
            same("json-formatter", text, &options(i + 1), 1);
            same("json-minifier", text, &json!({"ensureAscii": true}), 3);
        }
    }
    // Every example input the two tools' definitions and contracts give.
    for id in TOOLS {
        let def = crate::catalogue::get(id).expect(id);
        let contract = crate::catalogue::contract(id);
        let inputs: Vec<Value> = crate::contract::examples(&def, contract.as_ref())
            .iter()
            .map(|e| serde_json::to_value(&e.input).expect("example input"))
            .collect();
        assert!(inputs.len() >= 3, "{id}: {} examples", inputs.len());
        for input in inputs {
            let text = input["input"].as_str().expect("input text");
            let mut extra = input.clone();
            if let Some(o) = extra.as_object_mut() {
                o.remove("input");
            }
            if extra["sortKeys"] == true {
                continue;
            }
            for chunk in [1, 5, 32 << 10] {
                same(id, text, &extra, chunk);
            }
        }
    }
}

/// A small deterministic generator (xorshift), so the corpus is the same on every run (and
/// json_emit's tests reproduce).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A 64-byte block for the SIMD classifiers' tests: one byte in `raw_every` any byte below
    /// 0x80, the rest from `alphabet` (the bytes the classifier must tell apart).
    pub(crate) fn block(&mut self, alphabet: &[u8], raw_every: u64) -> [u8; 64] {
        let mut block = [0u8; 64];
        for b in block.iter_mut() {
            let r = self.next();
            *b = if r.is_multiple_of(raw_every) {
                r as u8 >> 1
            } else {
                alphabet[(r >> 8) as usize % alphabet.len()]
            };
        }
        block
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn ws(rng: &mut Rng, out: &mut String) {
    if rng.below(3) == 0 {
        out.push_str(rng.pick(&[" ", "\n", "\t", "\r\n", "  ", "\n    ", " \t "]));
    }
}

fn value(rng: &mut Rng, depth: usize, out: &mut String) {
    let kind = if depth > 6 {
        rng.below(4)
    } else {
        rng.below(7)
    };
    match kind {
        0 => out.push_str(rng.pick(&[
            "0",
            "-0",
            "1",
            "-12",
            "3.14",
            "1e3",
            "1E+30",
            "2.5e-7",
            "-0.0",
            "1e400",
            "123456789012345678901234567890",
            "-9223372036854775809",
            "0.000000000000000000000000000001",
            "18446744073709551616",
        ])),
        1 => out.push_str(rng.pick(&["true", "false", "null"])),
        2 | 3 => {
            out.push('"');
            for _ in 0..rng.below(6) {
                out.push_str(rng.pick(&[
                    "a",
                    "hello world",
                    "é",
                    "東京",
                    "😀",
                    "\u{2028}",
                    "\\n",
                    "\\\"",
                    "\\\\",
                    "\\/",
                    "\\b\\f\\r\\t",
                    "\\u00e9",
                    "\\uD83D\\uDE00",
                    "\\ud800",
                    "\\uDC00x",
                    "\u{7f}",
                    "'",
                    "x".repeat(40).as_str(),
                ]));
            }
            out.push('"');
        }
        4 => {
            out.push('[');
            ws(rng, out);
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                    ws(rng, out);
                }
                value(rng, depth + 1, out);
                ws(rng, out);
            }
            out.push(']');
        }
        5 => {
            out.push('{');
            ws(rng, out);
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                    ws(rng, out);
                }
                out.push_str(rng.pick(&["\"k\"", "\"\"", "\"ключ\"", "\"a\\u0062\"", "\"k\""]));
                ws(rng, out);
                out.push(':');
                ws(rng, out);
                value(rng, depth + 1, out);
                ws(rng, out);
            }
            out.push('}');
        }
        _ => {
            // Deep nesting around the limit of 128 levels.
            let n = 120 + rng.below(12);
            let (open, close) = if rng.below(2) == 0 {
                ("[", "]")
            } else {
                ("{\"d\":", "}")
            };
            out.push_str(&open.repeat(n));
            out.push_str(if rng.below(2) == 0 { "1" } else { "[]" });
            out.push_str(&close.repeat(n));
        }
    }
}

/// A random edit that usually breaks the document.
fn mutate(rng: &mut Rng, doc: &str) -> String {
    let mut chars: Vec<char> = doc.chars().collect();
    let at = rng.below(chars.len() + 1);
    match rng.below(5) {
        0 if at < chars.len() => {
            chars.remove(at);
        }
        1 => {
            let bits = [
                ',', ']', '}', '[', '{', '"', '\\', '0', 'e', '.', '-', '+', ' ', '\u{1}',
                '\u{1f}', 'a', 'é', ':', 't', '\u{a0}', '\u{feff}', 'u',
            ];
            chars.insert(at.min(chars.len()), bits[rng.below(bits.len())]);
        }
        2 => chars.truncate(at),
        3 if at < chars.len() => {
            let end = (at + 1 + rng.below(8)).min(chars.len());
            let piece: Vec<char> = chars[at..end].to_vec();
            chars.splice(at..at, piece);
        }
        _ => {
            let tail = rng.pick(&[",", "]", " x", "\n", "}", "[", "\"", "1"]);
            chars.extend(tail.chars());
        }
    }
    chars.into_iter().collect()
}

#[test]
fn generated_documents_and_their_mutations_match_the_whole_document_path() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut valid, mut invalid) = (0, 0);
    for i in 0..1500 {
        let mut doc = String::new();
        if i % 50 == 0 {
            doc.push('\u{feff}');
        }
        ws(&mut rng, &mut doc);
        value(&mut rng, 0, &mut doc);
        ws(&mut rng, &mut doc);
        let doc = if i % 2 == 1 {
            mutate(&mut rng, &doc)
        } else {
            doc
        };
        let id = TOOLS[(i / 7) % 2];
        let chunk = [1, 2, 3, 7, 64, 32 << 10][rng.below(6)];
        same(id, &doc, &options(i / 3), chunk);
        if in_memory(id, &args_for(id, &doc, &json!({}))).is_ok() {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    // Both halves of the corpus are exercised.
    assert!(
        valid > 500 && invalid > 300,
        "{valid} valid, {invalid} invalid"
    );
}

/// The scanner at every level of SIMD instructions (forced, `simd::forced`: natively where this
/// CPU has the level, else the portable kernels in its place) accepts and writes the same as
/// the portable level, on the generated corpus and its mutations, whole and in small pieces.
#[test]
fn every_simd_level_scans_the_generated_corpus_alike() {
    use crate::tools::json::simd;
    use crate::tools::json::sink::Writer;
    let scan = |level: u8, doc: &[u8], chunk: usize, ascii: bool| {
        let mut out = Vec::new();
        let mut w = Writer::new(&mut out, Some(b"  "), false);
        let mut s = Scanner::new(true, ascii, true).with_simd(level);
        let ok = doc.chunks(chunk).all(|piece| s.feed(piece, &mut w).is_ok()) && s.end().is_ok();
        w.flush().expect("flush");
        (ok, if ok { out } else { Vec::new() })
    };
    let mut rng = Rng(0x0dd_ba11_5eed_0002);
    for i in 0..400 {
        let mut doc = String::new();
        value(&mut rng, 0, &mut doc);
        let doc = if i % 2 == 1 {
            mutate(&mut rng, &doc)
        } else {
            doc
        };
        let ascii = i % 3 == 0;
        for chunk in [7, doc.len().max(1)] {
            let portable = scan(simd::SCALAR, doc.as_bytes(), chunk, ascii);
            for level in simd::LEVELS {
                assert!(
                    scan(level, doc.as_bytes(), chunk, ascii) == portable,
                    "{} differs from scalar on {doc:?} in pieces of {chunk}",
                    simd::name(level)
                );
            }
        }
    }
}

#[test]
fn edge_inputs_match_the_whole_document_path() {
    let cases = [
        "",
        " ",
        "\u{feff}",
        "\u{feff} [1]",
        "\u{a0}",
        "\u{a0}1",
        " \u{3000} ",
        "[]",
        "{}",
        "[ ]",
        "{ }",
        "0",
        "-",
        "-a",
        "01",
        "1.",
        "1.e1",
        "1e",
        "1e+",
        ".5",
        "+1",
        "tru",
        "truex",
        "nul",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\"}",
        "{1:2}",
        "[1 2]",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\u12g4\"",
        "\"\u{1}\"",
        "\"\t\"",
        "[1] [2]",
        "[1]]",
        "\"a",
        "[\"a\\",
        "{\"a\":",
        "\u{feff}\u{feff}1",
        "\"\u{7f}\"",
        "[1e400, -0, 1E-400]",
        "\"\\uDEAD\"",
        "nan",
        "[-]",
    ];
    for (i, case) in cases.iter().enumerate() {
        for id in TOOLS {
            for chunk in [1, 2, 32 << 10] {
                same(id, case, &options(i), chunk);
            }
        }
    }
}

/// Tokens cut by a piece boundary at every place: strings of every length around the 32-byte
/// block the writer copies at once, escapes, multi-byte characters, numbers, literals, runs of
/// whitespace longer than a piece, a byte order mark, and trailing garbage.
#[test]
fn tokens_cut_at_every_place_match_the_whole_document_path() {
    let lengths: Vec<String> = (0..41).map(|n| format!("\"{}\"", "s".repeat(n))).collect();
    let docs = [
        format!(
            "[\"{}\",\"a\\\\b\\u00e9\\\"\\/\",\"{}\",-12.5e+3,0,1E-7,true,false,null,{{}},[],\"é東😀\"]",
            "x".repeat(100),
            "y".repeat(31)
        ),
        format!(
            "{}[1,{}2]{}",
            " ".repeat(70),
            "\n".repeat(50),
            "\t \r\n".repeat(10)
        ),
        format!(
            "\u{feff}{{\"k\":\"{}\",\"n\":123456789012345678901234567890,\"e\":{{ }}}}",
            "é".repeat(40)
        ),
        format!("[{}]", lengths.join(",")),
        format!("{{\"a\":[{}]}} x", lengths.join(" , ")),
        "[1, 2] ]".to_string(),
        "[\"abc\\u12".to_string(),
    ];
    for (d, doc) in docs.iter().enumerate() {
        for chunk in (1..=48).chain([63, 64, 65, 100, 4096]) {
            for id in TOOLS {
                same(id, doc, &options(d + chunk), chunk);
            }
        }
    }
}

/// A string longer than a whole piece, with an escape, a `\u` escape or a multi-byte
/// character cut at the real piece size, at each offset.
#[test]
fn long_strings_cut_at_the_real_piece_size_match_the_whole_document_path() {
    let piece = 32 << 10;
    for tail in ["\\n", "\\u00e9", "\\\"", "é", "😀", "東"] {
        for offset in 0..7 {
            // `[` and `"` come first; the tail starts `offset` bytes before the piece ends.
            let fill = "a".repeat(piece - 2 - offset);
            let doc = format!("[\"{fill}{tail}{}\", 1]", "b".repeat(piece + 100));
            for (i, id) in TOOLS.iter().enumerate() {
                same(id, &doc, &options(offset + i), piece);
            }
        }
    }
    // A number and a literal cut at the piece boundary.
    for offset in 1..6 {
        for token in ["-12.5e+30", "true", "false", "null"] {
            let doc = format!("[{}{token}]", " ".repeat(piece - 1 - offset));
            same("json-minifier", &doc, &json!({}), piece);
            same("json-formatter", &doc, &json!({"indent": "4"}), piece);
        }
    }
}

#[test]
fn bytes_that_are_not_utf8_take_the_ordinary_path() {
    for bytes in [
        &b"\xff"[..],
        b"[\"\xc3\"]",
        b"[\"\xed\xa0\x80\"]",
        b"[1, \"\xe6\x9d\"",
        b"{\"a\":\xff}",
    ] {
        let args = args_for("json-formatter", "", &json!({}));
        for chunk in [1, 2, 64] {
            assert!(
                plan_for(
                    "json-formatter",
                    &args,
                    Chunks::bytes(bytes).with_chunk_size(chunk)
                )
                .is_none(),
                "{bytes:?}"
            );
        }
    }
}

#[test]
fn sorted_keys_take_the_ordinary_path() {
    let args = args_for("json-minifier", "", &json!({"sortKeys": true}));
    assert!(plan_for("json-minifier", &args, Chunks::text("{\"b\":1,\"a\":2}")).is_none());
}

#[test]
fn digit_run_counts_leading_digits_at_every_place() {
    for len in 0..=20 {
        for at in 0..=len {
            for stop in [b'/', b':', b'.', b'e', b'-', b' ', 0xb0, 0xb9, 0x00, 0x7f] {
                let mut bytes: Vec<u8> = (0..len).map(|i| b'0' + (i % 10) as u8).collect();
                if at < len {
                    bytes[at] = stop;
                }
                assert_eq!(digit_run(&bytes), at, "{bytes:?}");
            }
        }
    }
}
