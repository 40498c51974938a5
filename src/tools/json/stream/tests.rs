//! The streaming formatter against the in-memory one (`json::json_formatter`,
//! `json::json_minifier`): same output, same sizes, same errors, on real JSON files, the
//! catalogue's examples and a generated corpus of valid and broken documents, with the piece
//! boundary put everywhere.

use super::*;
use crate::tools::json::emit::{AVX2, AVX512, SSE2, simd_level};
use crate::tools::json::scan::{digit_run, next_special, next_special_swar, special_bits};
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

/// The in-memory result, as `Ok(data)` or `Err("ERROR code: message")`.
fn in_memory(id: &str, args: &Map<String, Value>) -> Result<Value, String> {
    let result = testing::run(id, Value::Object(args.clone()));
    match (result.success, result.data, result.error_code, result.error) {
        (true, Some(data), _, _) => Ok(data),
        (_, _, Some(code), Some(msg)) => Err(format!("ERROR {code:?}: {msg}")),
        other => panic!("odd result {other:?}"),
    }
}

/// Checks one input under one set of options, cut into pieces of `chunk` bytes.
#[track_caller]
fn same(id: &str, input: &str, extra: &Value, chunk: usize) {
    let args = args_for(id, input, extra);
    let expected = in_memory(id, &args);
    let pieces = || Chunks::text(input).with_chunk_size(chunk);
    let Some(plan) = plan_for(id, &args, pieces()) else {
        // Refused input takes the ordinary path, which must refuse it too.
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
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
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
fn real_files_and_catalogue_examples_match_the_in_memory_path() {
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
fn generated_documents_and_their_mutations_match_the_in_memory_path() {
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

#[test]
fn edge_inputs_match_the_in_memory_path() {
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
fn tokens_cut_at_every_place_match_the_in_memory_path() {
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
fn long_strings_cut_at_the_real_piece_size_match_the_in_memory_path() {
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
fn next_special_finds_the_first_byte_to_stop_at() {
    assert_eq!(next_special(b"abcdefghijklmnop", false), 16);
    assert_eq!(next_special(b"abcdefgh\"ijk", false), 8);
    assert_eq!(next_special(b"ab\\", false), 2);
    assert_eq!(next_special(b"abcdefghij\x1fk", false), 10);
    assert_eq!(next_special("abcdefgé".as_bytes(), true), 7);
    assert_eq!(next_special("abcdefgé\"".as_bytes(), false), 9);
    assert_eq!(next_special("é\"".as_bytes(), false), 2);
    assert_eq!(next_special(b"!#~ \x7f", true), 5);
    assert_eq!(next_special(b"\x20\x21\x22", false), 2);
}

#[test]
fn next_special_agrees_with_a_byte_by_byte_search_at_every_place() {
    // Both ends of each block of 16 (SSE2) and 8 (SWAR) bytes, and the tail after them.
    let naive = |bytes: &[u8], ascii: bool| {
        bytes
            .iter()
            .position(|&b| b < 0x20 || b == b'"' || b == b'\\' || (ascii && b >= 0x80))
            .unwrap_or(bytes.len())
    };
    for len in 0..=40 {
        for at in 0..len {
            for stop in [b'"', b'\\', 0x00, 0x1f, 0x80, 0xff] {
                // Bytes next to the ones searched for: none of them stops a search.
                let mut bytes: Vec<u8> = (0..len)
                    .map(|i| [b'!', b'#', b'[', 0x7f, b' '][i % 5])
                    .collect();
                bytes[at] = stop;
                for ascii in [false, true] {
                    let want = naive(&bytes, ascii);
                    assert_eq!(next_special(&bytes, ascii), want, "{bytes:?} {ascii}");
                    assert_eq!(next_special_swar(&bytes, ascii), want, "{bytes:?} {ascii}");
                }
            }
        }
    }
}

#[test]
fn special_bits_agree_with_a_byte_by_byte_test_with_every_kind_of_simd() {
    let naive = |block: &[u8; 64], ascii: bool| {
        block.iter().enumerate().fold(0u64, |bits, (k, &b)| {
            let stop = b < 0x20 || b == b'"' || b == b'\\' || (ascii && b >= 0x80);
            bits | u64::from(stop) << k
        })
    };
    let alphabet = b"\"\\ \x00\x1f\x20\x21\x7f\x80\xc3\xffab[";
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for _ in 0..20_000 {
        let block = rng.block(alphabet, 4);
        for ascii in [false, true] {
            let want = naive(&block, ascii);
            assert_eq!(special_bits::<SSE2>(&block, ascii), want, "{block:?}");
            // The wider kinds only where this CPU has them (the scanner chooses the same way).
            if simd_level() >= AVX2 {
                assert_eq!(special_bits::<AVX2>(&block, ascii), want, "{block:?}");
            }
            if simd_level() >= AVX512 {
                assert_eq!(special_bits::<AVX512>(&block, ascii), want, "{block:?}");
            }
        }
    }
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
