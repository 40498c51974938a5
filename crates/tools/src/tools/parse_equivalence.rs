//! Parse-equivalence properties of the formatters and minifiers (JSON, XML, CSS, YAML): over
//! a generated corpus and every option, the output parses to the same value or tree as the
//! input. Each format is re-read by a parser independent of the tool's printer.

use crate::tools::kit::testing::run;
use serde_json::{Value, json};

/// xorshift64*: deterministic, so a failure reproduces from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const TEXTS: &[&str] = &[
    "",
    "plain",
    "two  spaces",
    "quote \" and ' apostrophe",
    "back\\slash",
    "tab\tnew\nline",
    "ünïcødé ✓ 😀",
    "<tag> & amp;",
    "{braces} [brackets]: colon, comma",
    "- dash",
    "# hash",
    "yes",
    "null",
    "0x1F",
    "1e3",
    "  lead and trail  ",
    "\u{2028}sep",
];

fn output_of(id: &str, args: Value) -> Result<String, String> {
    let r = run(id, args);
    match (r.success, r.data) {
        (true, Some(d)) => Ok(d["output"].as_str().unwrap_or_default().to_string()),
        _ => Err(format!("{id} failed: {:?}", r.error)),
    }
}

fn report(what: &str, failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{what}: {} of {total} changed meaning:\n{}",
        failures.len(),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

// ---------- JSON ----------

fn json_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 3 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!(rng.pick(TEXTS)),
        3 => {
            let n = [
                json!(0),
                json!(-17),
                json!(u64::MAX),
                json!(i64::MIN),
                json!(1.5e300),
                json!(-2.25e-7),
                json!(0.1),
            ];
            n[rng.below(n.len())].clone()
        }
        4 => json!(rng.next() as i64 >> rng.below(60)),
        5 | 6 => {
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                m.insert(rng.pick(TEXTS).to_string(), json_value(rng, depth + 1));
            }
            Value::Object(m)
        }
        _ => Value::Array(
            (0..rng.below(5))
                .map(|_| json_value(rng, depth + 1))
                .collect(),
        ),
    }
}

#[test]
fn json_formatter_and_minifier_keep_the_value() {
    let mut rng = Rng(0x15_0000);
    let mut failures = Vec::new();
    let total = 1500;
    for k in 0..total {
        let value = json_value(&mut rng, 0);
        let input = if k % 2 == 0 {
            serde_json::to_string(&value).unwrap_or_default()
        } else {
            serde_json::to_string_pretty(&value).unwrap_or_default()
        };
        let sort = rng.below(2) == 0;
        let ascii = rng.below(2) == 0;
        let (id, args) = if k % 3 == 0 {
            (
                "json-minifier",
                json!({"input": input, "sortKeys": sort, "ensureAscii": ascii}),
            )
        } else {
            let indent = rng.pick(&["2", "4", "8", "tab"]);
            (
                "json-formatter",
                json!({"input": input, "indent": indent, "sortKeys": sort, "ensureAscii": ascii}),
            )
        };
        let result = output_of(id, args.clone()).and_then(|out| {
            serde_json::from_str::<Value>(&out)
                .map_err(|e| format!("output does not parse: {e}\n{out}"))
        });
        match result {
            Ok(v) if v == value => {}
            Ok(v) => failures.push(format!("{id} {args}\n got {v}")),
            Err(e) => failures.push(format!("{id} {args}\n{e}")),
        }
    }
    report("JSON", &failures, total);
}

// ---------- YAML ----------

#[test]
fn yaml_formatter_keeps_the_value() {
    let mut rng = Rng(0x7A_0000);
    let mut failures = Vec::new();
    let total = 800;
    for k in 0..total {
        let value = json_value(&mut rng, 0);
        // The input in several styles: flow (JSON is YAML), block, and block with comments.
        let input = match k % 3 {
            0 => serde_json::to_string(&value).unwrap_or_default(),
            1 => serde_norway::to_string(&value).unwrap_or_default(),
            _ => format!(
                "# leading comment\n{}",
                serde_norway::to_string(&value).unwrap_or_default()
            ),
        };
        // JSON text is YAML except where YAML 1.1 reads U+2028 as a line break: such inputs
        // are not YAML, so they are skipped rather than counted.
        let Ok(expected) = serde_norway::from_str::<serde_norway::Value>(&input) else {
            assert_eq!(
                k % 3,
                0,
                "block YAML from serde_norway must parse:\n{input}"
            );
            continue;
        };
        let sort = rng.below(2) == 0;
        let args = json!({"input": input, "sortKeys": sort});
        match output_of("yaml-formatter", args.clone()) {
            Ok(out) => match serde_norway::from_str::<serde_norway::Value>(&out) {
                Ok(v) if v == expected => {}
                Ok(v) => failures.push(format!("{args}\n got {v:?}\n---\n{out}")),
                Err(e) => failures.push(format!("{args}\noutput does not parse: {e}\n{out}")),
            },
            Err(e) => failures.push(format!("{args}\n{e}")),
        }
    }
    report("YAML", &failures, total);
}

// ---------- XML ----------

fn xml_escape(s: &str, attr: bool) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '>' => out.push_str("&gt;"),
            '"' if attr => out.push_str("&quot;"),
            '\n' if attr => out.push_str("&#10;"),
            '\t' if attr => out.push_str("&#9;"),
            '\u{2028}' => out.push_str("&#x2028;"),
            c => out.push(c),
        }
    }
    out
}

fn xml_element(rng: &mut Rng, depth: usize, out: &mut String) {
    let name = rng.pick(&["a", "b", "item", "ns:x", "data-set", "_u"]);
    out.push('<');
    out.push_str(name);
    if depth == 0 {
        out.push_str(" xmlns:ns=\"urn:n\"");
    }
    for attr in ["id", "ns:k", "title"] {
        if rng.below(3) == 0 {
            let q = if rng.below(2) == 0 { '"' } else { '\'' };
            let v = xml_escape(rng.pick(TEXTS), true).replace('\'', "&apos;");
            out.push_str(&format!(" {attr}={q}{v}{q}"));
        }
    }
    if depth > 3 || rng.below(5) == 0 {
        out.push_str("/>");
        return;
    }
    out.push('>');
    for _ in 0..rng.below(4) {
        match rng.below(7) {
            0 | 1 => out.push_str(&xml_escape(rng.pick(TEXTS), false)),
            2 => out.push_str(rng.pick(&["\n  ", " ", "\n\t\t"])),
            3 => out.push_str("<!-- a comment -->"),
            4 => out.push_str("<![CDATA[ <kept> & ]]>"),
            _ => xml_element(rng, depth + 1, out),
        }
    }
    out.push_str(&format!("</{name}>"));
}

/// A tree as nested lists: elements with sorted attributes; text kept exactly unless the
/// element holds only elements and blank text (indentation, which formatting may change).
fn xml_shape(node: roxmltree::Node, keep_comments: bool, out: &mut Vec<String>) {
    let mut attrs: Vec<String> = node
        .attributes()
        .map(|a| format!("{:?}{}={:?}", a.namespace(), a.name(), a.value()))
        .collect();
    attrs.sort();
    out.push(format!(
        "<{:?}{} {}>",
        node.tag_name().namespace(),
        node.tag_name().name(),
        attrs.join(" ")
    ));
    let mixed = node
        .children()
        .any(|c| c.is_text() && !c.text().unwrap_or("").trim().is_empty());
    let mut text = String::new();
    for child in node.children() {
        if child.is_text() {
            text.push_str(child.text().unwrap_or(""));
            continue;
        }
        if child.is_comment() && !keep_comments {
            continue;
        }
        if !text.is_empty() && (mixed || !text.trim().is_empty()) {
            out.push(format!("text {text:?}"));
        }
        text.clear();
        if child.is_element() {
            xml_shape(child, keep_comments, out);
        } else if child.is_comment() {
            out.push(format!("comment {:?}", child.text()));
        } else {
            out.push(format!("pi {:?}", child.pi()));
        }
    }
    if !text.is_empty() && (mixed || !text.trim().is_empty()) {
        out.push(format!("text {text:?}"));
    }
    out.push("</>".into());
}

fn xml_tree(src: &str, keep_comments: bool) -> Result<Vec<String>, String> {
    let doc = roxmltree::Document::parse(src).map_err(|e| format!("does not parse: {e}"))?;
    let mut out = Vec::new();
    xml_shape(doc.root_element(), keep_comments, &mut out);
    Ok(out)
}

#[test]
fn xml_formatter_keeps_the_tree() {
    let mut rng = Rng(0x3E_0000);
    let mut failures = Vec::new();
    let total = 1000;
    for _ in 0..total {
        let mut input = String::new();
        if rng.below(2) == 0 {
            input.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        }
        xml_element(&mut rng, 0, &mut input);
        let mode = rng.pick(&["beautify", "minify"]);
        let indent = rng.pick(&["2", "4", "tab"]);
        let remove = rng.below(3) == 0;
        let split = rng.below(2) == 0;
        let args = json!({"input": input, "mode": mode, "indent": indent, "removeComments": remove, "attributePerLine": split});
        let expected = match xml_tree(&input, !remove) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("generator made invalid XML ({e}):\n{input}"));
                continue;
            }
        };
        match output_of("xml-formatter", args.clone()) {
            Ok(out) => match xml_tree(&out, !remove) {
                Ok(t) if t == expected => {}
                Ok(t) => failures.push(format!(
                    "{args}\n got {t:?}\nexpected {expected:?}\n---\n{out}"
                )),
                Err(e) => failures.push(format!("{args}\noutput {e}\n{out}")),
            },
            Err(e) => failures.push(format!("{args}\n{e}")),
        }
    }
    report("XML", &failures, total);
}

// ---------- CSS ----------

fn css_rule(rng: &mut Rng, depth: usize) -> String {
    let selector = rng.pick(&[
        "a",
        "div > p",
        ".c1, #id",
        "a[href^=\"http\"]",
        "li:nth-child(2n+1)",
        "p::before",
        "input:not([type='text'])",
        "*",
    ]);
    let mut decls = Vec::new();
    for _ in 0..1 + rng.below(4) {
        decls.push(
            rng.pick(&[
                "color: red",
                "margin: 0 auto",
                "content: \"a;b}c\"",
                "background: url(\"x y.png\") no-repeat",
                "width: calc(100% - 2px)",
                "font-family: 'Open Sans', sans-serif",
                "--custom: 12px",
                "color: #ff0000 !important",
                "transition: opacity 0.3s ease-in-out",
                "grid-template-columns: repeat(3, 1fr)",
                "color:#FF0000",
                "margin : 0px 0px",
                "background:url(data:image/png;base64,iVBO=)",
            ])
            .to_string(),
        );
    }
    let body = format!("{selector} {{ {} }}", decls.join("; "));
    match (depth, rng.below(6)) {
        (0, 0) => format!(
            "@media (max-width:600px) {{ {} {} }}",
            body,
            css_rule(rng, 1)
        ),
        (0, 1) => format!("@supports (display: grid) {{ {body} }}"),
        (_, 2) => format!("/* comment {{ }} */ {body}"),
        _ => body,
    }
}

/// CSS without comments, whitespace outside strings, and `;` before `}`.
fn css_skeleton(src: &str) -> String {
    let mut out = String::new();
    let mut chars = src.chars().peekable();
    let mut quote = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == '\\' {
                    out.extend(chars.next());
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '/' && chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
            }
            None if c.is_whitespace() => {}
            None => {
                if c == '"' || c == '\'' {
                    quote = Some(c);
                }
                if c == '}' && out.ends_with(';') {
                    out.pop();
                }
                out.push(c);
            }
        }
    }
    out
}

fn css_canonical(src: &str) -> Result<String, String> {
    use lightningcss::stylesheet::{MinifyOptions, ParserOptions, PrinterOptions, StyleSheet};
    let mut sheet =
        StyleSheet::parse(src, ParserOptions::default()).map_err(|e| format!("parse: {e}"))?;
    sheet
        .minify(MinifyOptions::default())
        .map_err(|e| format!("minify: {e}"))?;
    sheet
        .to_css(PrinterOptions {
            minify: true,
            ..Default::default()
        })
        .map(|r| r.code)
        .map_err(|e| format!("print: {e}"))
}

#[test]
fn css_formatter_keeps_the_stylesheet() {
    let mut rng = Rng(0xC5_0000);
    let mut failures = Vec::new();
    let total = 600;
    for _ in 0..total {
        let input = (0..1 + rng.below(4))
            .map(|_| css_rule(&mut rng, 0))
            .collect::<Vec<_>>()
            .join(rng.pick(&["\n", "", "\n\n  "]));
        let mode = rng.pick(&["beautify", "minify"]);
        let indent = rng.pick(&["2", "4", "tab"]);
        let args = json!({"input": input, "mode": mode, "indent": indent});
        let expected = match css_canonical(&input) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("generator made invalid CSS ({e}):\n{input}"));
                continue;
            }
        };
        match output_of("css-formatter", args.clone()).and_then(|out| {
            // The author's bytes survive: only whitespace, comments and a block's last `;`
            // may differ.
            if css_skeleton(&out) != css_skeleton(&input) {
                return Err(format!("changed more than whitespace:\n{out}"));
            }
            css_canonical(&out).map_err(|e| format!("output {e}\n{out}"))
        }) {
            Ok(c) if c == expected => {}
            Ok(c) => failures.push(format!("{args}\n got {c}\nexpected {expected}")),
            Err(e) => failures.push(format!("{args}\n{e}")),
        }
    }
    report("CSS", &failures, total);
}
