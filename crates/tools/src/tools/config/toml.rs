//! TOML converters: JSON ⇄ TOML and YAML ⇄ TOML (TOML 1.0/1.1 through the toml crate).
//!
//! All four go through `Tree`, a JSON-like value that also holds TOML datetimes and keeps key
//! order, so what TOML cannot express (null, a non-table top level, integers beyond 64 bits) and
//! what JSON cannot (inf, nan) is refused in one place with the offending key path named.
//! The toml crate's tables are sorted maps, so TOML is read as its spanned document tree and
//! each table's keys are put back in the order they first appear in the source.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::config::yaml;
use crate::tools::json;
use crate::tools::kit::args::Args;
use crate::tools::kit::budget;
use crate::tools::kit::depth;
use crate::tools::kit::tool::Tool;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Value as Json, json};
use serde_norway::Value as Yaml;
use toml::de::{DeTable, DeValue};
use toml::value::Datetime;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("json-to-toml", json_to_toml),
    Tool::new("toml-to-json", toml_to_json),
    Tool::new("yaml-to-toml", yaml_to_toml),
    Tool::new("toml-to-yaml", toml_to_yaml),
];

enum Tree {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Datetime(Datetime),
    Array(Vec<Tree>),
    Table(Vec<(String, Tree)>),
}

/// A location in a document, shown as `servers.alpha.ports[1]` (keys quoted when not bare).
#[derive(Default)]
struct Path(Vec<Seg>);

enum Seg {
    Key(String),
    Index(usize),
}

impl Path {
    fn with<T>(&mut self, seg: Seg, f: impl FnOnce(&mut Path) -> T) -> T {
        self.0.push(seg);
        let out = f(self);
        self.0.pop();
        out
    }
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("the top level");
        }
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Index(n) => write!(f, "[{n}]")?,
                Seg::Key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    let bare = !k.is_empty()
                        && k.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
                    if bare {
                        f.write_str(k)?;
                    } else {
                        write!(f, "{}", Json::String(k.clone()))?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn no_null(path: &Path) -> ToolError {
    ToolError::invalid(format!(
        "null at {path}: TOML has no null value; remove the key or give it a value"
    ))
}

fn not_a_table(found: &str) -> ToolError {
    ToolError::invalid(format!(
        "a TOML document is a table of key/value pairs, so the top level must be an object/mapping, but it is {found}"
    ))
}

// ---- reading ---------------------------------------------------------------------------

fn json_kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

fn from_json(v: &Json, path: &mut Path, dates: bool) -> Result<Tree, ToolError> {
    Ok(match v {
        Json::Null => return Err(no_null(path)),
        Json::Bool(b) => Tree::Bool(*b),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Tree::Int(i)
            } else if n.is_u64() {
                return Err(ToolError::invalid(format!(
                    "the integer {n} at {path} is outside TOML's 64-bit signed range (-2^63 to 2^63-1); write it as a string"
                )));
            } else {
                Tree::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(s) => match s.parse::<Datetime>() {
            Ok(dt) if dates => Tree::Datetime(dt),
            _ => Tree::Str(s.clone()),
        },
        Json::Array(items) => Tree::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| path.with(Seg::Index(i), |p| from_json(item, p, dates)))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(map) => Tree::Table(
            map.iter()
                .map(|(k, v)| {
                    path.with(Seg::Key(k.clone()), |p| {
                        Ok((k.clone(), from_json(v, p, dates)?))
                    })
                })
                .collect::<Result<_, ToolError>>()?,
        ),
    })
}

fn yaml_kind(v: &Yaml) -> &'static str {
    match v {
        Yaml::Null => "null",
        Yaml::Bool(_) => "a boolean",
        Yaml::Number(_) => "a number",
        Yaml::String(_) => "a string",
        Yaml::Sequence(_) => "a sequence",
        Yaml::Mapping(_) => "a mapping",
        Yaml::Tagged(t) => yaml_kind(&t.value),
    }
}

fn from_yaml(v: Yaml, path: &mut Path, dates: bool) -> Result<Tree, ToolError> {
    Ok(match v {
        Yaml::Null => return Err(no_null(path)),
        Yaml::Bool(b) => Tree::Bool(b),
        Yaml::Number(n) => {
            if let Some(i) = n.as_i64() {
                Tree::Int(i)
            } else if n.is_u64() {
                return Err(ToolError::invalid(format!(
                    "the integer {n} at {path} is outside TOML's 64-bit signed range (-2^63 to 2^63-1); write it as a string"
                )));
            } else {
                Tree::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Yaml::String(s) => match s.parse::<Datetime>() {
            Ok(dt) if dates => Tree::Datetime(dt),
            _ => Tree::Str(s),
        },
        Yaml::Sequence(items) => Tree::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| path.with(Seg::Index(i), |p| from_yaml(item, p, dates)))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Mapping(mapping) => {
            let mut entries: Vec<(String, Tree)> = Vec::with_capacity(mapping.len());
            for (k, v) in mapping {
                let key = yaml::key_string(k)?;
                let value = path.with(Seg::Key(key.clone()), |p| from_yaml(v, p, dates))?;
                entries.push((key, value));
            }
            Tree::Table(entries)
        }
        Yaml::Tagged(tagged) => from_yaml(tagged.value, path, dates)?,
    })
}

/// The largest TOML input read. The toml crate keeps every key, value and table with its
/// span, and tables cost over a kilobyte each: up to 125 bytes per byte of input.
pub(crate) const MAX_TOML: usize = 4 << 20;

/// TOML text to a tree in document order, with the toml crate's errors (line, column, snippet).
fn parse_toml(input: &str) -> Result<Tree, ToolError> {
    let src = input.strip_prefix('\u{feff}').unwrap_or(input);
    if src.len() > MAX_TOML {
        return Err(budget::input_too_large(
            "the TOML",
            src.len(),
            MAX_TOML,
            "its parser keeps every key, value and table with its position, up to 125 bytes for each byte of input",
        ));
    }
    let doc = DeTable::parse(src).map_err(|e| toml_error(src, &e))?;
    from_de_table(doc.into_inner(), &mut Path::default())
}

/// The toml crate's error with its snippet, or without it when the line is too long to show;
/// its nesting limit is reported like every other tool's.
fn toml_error(src: &str, e: &toml::de::Error) -> ToolError {
    let place = e
        .span()
        .map_or(depth::Place::Unknown, |span| depth::place(src, span.start));
    // toml reports its limit as "recursion limit" (keys) or "max recursion depth" (values).
    if e.message().contains("recursion") {
        return depth::too_deep("input", depth::TOML_DEPTH, place);
    }
    let full = e.to_string();
    if full.len() <= 2000 {
        return ToolError::invalid(format!("invalid TOML: {}", full.trim_end()));
    }
    match place {
        depth::Place::Text { line, column } => ToolError::invalid(format!(
            "invalid TOML: TOML parse error at line {line}, column {column}: {}",
            e.message().trim_end()
        )),
        _ => ToolError::invalid(format!("invalid TOML: {}", e.message().trim_end())),
    }
}

fn from_de_table(table: DeTable<'_>, path: &mut Path) -> Result<Tree, ToolError> {
    let mut entries: Vec<_> = table.into_iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut out = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let key = key.into_inner().into_owned();
        let value = path.with(Seg::Key(key.clone()), |p| {
            from_de_value(value.into_inner(), p)
        })?;
        out.push((key, value));
    }
    Ok(Tree::Table(out))
}

fn from_de_value(value: DeValue<'_>, path: &mut Path) -> Result<Tree, ToolError> {
    Ok(match value {
        DeValue::String(s) => Tree::Str(s.into_owned()),
        DeValue::Integer(i) => {
            Tree::Int(i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| {
                ToolError::invalid(format!(
                    "the integer {i} at {path} is outside TOML's 64-bit signed range"
                ))
            })?)
        }
        DeValue::Float(f) => Tree::Float(f.as_str().parse::<f64>().map_err(|_| {
            ToolError::invalid(format!("the float {f} at {path} could not be read"))
        })?),
        DeValue::Boolean(b) => Tree::Bool(b),
        DeValue::Datetime(dt) => Tree::Datetime(dt),
        DeValue::Array(items) => Tree::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| path.with(Seg::Index(i), |p| from_de_value(item.into_inner(), p)))
                .collect::<Result<_, _>>()?,
        ),
        DeValue::Table(table) => from_de_table(table, path)?,
    })
}

// ---- writing ---------------------------------------------------------------------------

/// TOML datetimes become their RFC 3339 text; inf and nan have no JSON form.
fn to_json(tree: &Tree, path: &mut Path) -> Result<Json, ToolError> {
    Ok(match tree {
        Tree::Bool(b) => Json::Bool(*b),
        Tree::Int(i) => Json::from(*i),
        Tree::Float(f) => serde_json::Number::from_f64(*f)
            .map(Json::Number)
            .ok_or_else(|| {
                ToolError::invalid(format!(
                    "the float {f} at {path} has no JSON equivalent (JSON has no inf or nan)"
                ))
            })?,
        Tree::Str(s) => Json::String(s.clone()),
        Tree::Datetime(dt) => Json::String(dt.to_string()),
        Tree::Array(items) => Json::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| path.with(Seg::Index(i), |p| to_json(item, p)))
                .collect::<Result<_, _>>()?,
        ),
        Tree::Table(entries) => {
            let mut map = serde_json::Map::with_capacity(entries.len());
            for (k, v) in entries {
                let value = path.with(Seg::Key(k.clone()), |p| to_json(v, p))?;
                map.insert(k.clone(), value);
            }
            Json::Object(map)
        }
    })
}

impl Serialize for Tree {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Tree::Bool(b) => s.serialize_bool(*b),
            Tree::Int(i) => s.serialize_i64(*i),
            Tree::Float(f) => s.serialize_f64(*f),
            Tree::Str(text) => s.serialize_str(text),
            Tree::Datetime(dt) => dt.serialize(s),
            Tree::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Tree::Table(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// An upper bound on the bytes of the headers TOML repeats: every table and array-of-tables
/// element spells its full dotted path (`[a.b.c]`), so nesting under long keys multiplies them.
fn header_bytes(tree: &Tree, path: usize) -> usize {
    match tree {
        Tree::Table(entries) => entries
            .iter()
            .map(|(k, v)| {
                let inner = path + k.len() + 3;
                let own = if matches!(v, Tree::Table(_) | Tree::Array(_)) {
                    inner
                } else {
                    0
                };
                own.saturating_add(header_bytes(v, inner))
            })
            .fold(0, usize::saturating_add),
        Tree::Array(items) => items
            .iter()
            .map(|v| path.saturating_add(header_bytes(v, path)))
            .fold(0, usize::saturating_add),
        _ => 0,
    }
}

fn write_toml(tree: &Tree) -> Result<String, ToolError> {
    if header_bytes(tree, 0) > budget::output_ceiling() {
        return Err(budget::output_too_large(
            "the TOML",
            "every nested table repeats its full dotted path as a [header]: shorten the keys or flatten the document",
        ));
    }
    toml::to_string(tree).map_err(|e| ToolError::invalid(format!("cannot write TOML: {e}")))
}

// ---- tools -----------------------------------------------------------------------------

fn json_to_toml(args: &Args) -> ToolOutcome {
    let value = json::parse_value(args.str("input")?)?;
    if !value.is_object() {
        return Err(not_a_table(json_kind(&value)));
    }
    let tree = from_json(&value, &mut Path::default(), args.flag("detectDates"))?;
    Ok(json!({ "output": write_toml(&tree)? }))
}

fn toml_to_json(args: &Args) -> ToolOutcome {
    let tree = parse_toml(args.str("input")?)?;
    let value = to_json(&tree, &mut Path::default())?;
    Ok(json!({ "output": crate::tools::json::write_indented(&value, args.str("indent")?)? }))
}

fn yaml_to_toml(args: &Args) -> ToolOutcome {
    let mut docs = yaml::parse_documents(args.str("input")?, true)?;
    if docs.len() != 1 {
        return Err(ToolError::invalid(format!(
            "the input holds {} YAML documents, but a TOML file holds exactly one; convert them one at a time",
            docs.len()
        )));
    }
    let doc = docs.pop().unwrap_or(Yaml::Null);
    if !matches!(&doc, Yaml::Mapping(_)) {
        return Err(not_a_table(yaml_kind(&doc)));
    }
    let tree = from_yaml(doc, &mut Path::default(), args.flag("detectDates"))?;
    Ok(json!({ "output": write_toml(&tree)? }))
}

fn toml_to_yaml(args: &Args) -> ToolOutcome {
    let tree = parse_toml(args.str("input")?)?;
    let value = to_json(&tree, &mut Path::default())?;
    let text = serde_json::to_string(&value)
        .map_err(|e| ToolError::execution(format!("JSON serialisation failed: {e}")))?;
    Ok(json!({ "output": yaml::json_text_to_yaml(&text)? }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn out(id: &str, args: serde_json::Value) -> String {
        run_ok(id, args)["output"].as_str().unwrap().to_string()
    }

    fn to_json(toml: &str) -> serde_json::Value {
        serde_json::from_str(&out("toml-to-json", json!({"input": toml, "indent": "0"}))).unwrap()
    }

    // toml.io v1.0.0 spec, "Array of Tables", "Integer" and "Keys".
    #[test]
    fn toml_to_json_spec_examples() {
        let products = "[[products]]\nname = \"Hammer\"\nsku = 738594937\n\n[[products]]  # empty table within the array\n\n[[products]]\nname = \"Nail\"\nsku = 284758393\n\ncolor = \"gray\"\n";
        assert_eq!(
            out("toml-to-json", json!({"input": products, "indent": "0"})),
            r#"{"products":[{"name":"Hammer","sku":738594937},{},{"name":"Nail","sku":284758393,"color":"gray"}]}"#
        );
        let ints = "int5 = 1_000\nhex3 = 0xdead_beef\noct1 = 0o01234567\nbin1 = 0b11010110\nflt8 = 224_617.445_991_228\n";
        assert_eq!(
            to_json(ints),
            json!({"int5": 1000, "hex3": 3735928559u64, "oct1": 342391, "bin1": 214, "flt8": 224617.445991228})
        );
        let keys = "name = \"Orange\"\nphysical.color = \"orange\"\nphysical.shape = \"round\"\nsite.\"google.com\" = true\n";
        assert_eq!(
            out("toml-to-json", json!({"input": keys, "indent": "0"})),
            r#"{"name":"Orange","physical":{"color":"orange","shape":"round"},"site":{"google.com":true}}"#
        );
    }

    // toml.io v1.0.0 spec, "Offset Date-Time", "Local Date-Time", "Local Date", "Local Time".
    #[test]
    fn toml_datetimes_become_rfc3339_strings() {
        let doc = "odt1 = 1979-05-27T07:32:00Z\nodt2 = 1979-05-27T00:32:00-07:00\nodt3 = 1979-05-27T00:32:00.999999-07:00\nodt4 = 1979-05-27 07:32:00Z\nldt1 = 1979-05-27T07:32:00\nld1 = 1979-05-27\nlt1 = 07:32:00\nlt2 = 00:32:00.999999\n";
        assert_eq!(
            to_json(doc),
            json!({
                "odt1": "1979-05-27T07:32:00Z",
                "odt2": "1979-05-27T00:32:00-07:00",
                "odt3": "1979-05-27T00:32:00.999999-07:00",
                "odt4": "1979-05-27T07:32:00Z",
                "ldt1": "1979-05-27T07:32:00",
                "ld1": "1979-05-27",
                "lt1": "07:32:00",
                "lt2": "00:32:00.999999"
            })
        );
        // With detectDates the strings go back to TOML datetimes.
        let json_text = out("toml-to-json", json!({"input": doc}));
        let back = out(
            "json-to-toml",
            json!({"input": json_text, "detectDates": true}),
        );
        assert!(back.starts_with("odt1 = 1979-05-27T07:32:00Z\n"), "{back}");
        assert!(
            back.contains("ld1 = 1979-05-27\nlt1 = 07:32:00\n"),
            "{back}"
        );
        let plain = out("json-to-toml", json!({"input": "{\"d\":\"1979-05-27\"}"}));
        assert_eq!(plain, "d = \"1979-05-27\"\n");
    }

    #[test]
    fn toml_errors_name_line_and_column() {
        // Both invalid per the toml.io spec ("Keys", "Table").
        let (code, msg) = run_err(
            "toml-to-json",
            json!({"input": "name = \"Tom\"\nname = \"Pradyun\"\n"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("invalid TOML: TOML parse error at line 2, column 1"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "toml-to-json",
            json!({"input": "[fruit]\napple = \"red\"\n\n[fruit]\norange = \"orange\"\n"}),
        );
        assert!(msg.contains("line 4"), "{msg}");
        let (_, msg) = run_err("toml-to-json", json!({"input": "sf1 = inf\n"}));
        assert!(msg.contains("at sf1 has no JSON equivalent"), "{msg}");
        let (_, msg) = run_err("toml-to-yaml", json!({"input": "a = [1, 2\n"}));
        assert!(
            msg.starts_with("invalid TOML: TOML parse error at line"),
            "{msg}"
        );
    }

    #[test]
    fn json_to_toml_tables_arrays_of_tables_and_quoted_keys() {
        let input = r#"{"title":"TOML Example","servers":{"alpha":{"ip":"10.0.0.1","role":"frontend"}},"products":[{"name":"Hammer","sku":738594937},{"name":"Nail","sku":284758393,"color":"gray"}],"mixed":[0.1,"a",[1,2]],"a b":1,"":2,"f":1.0}"#;
        assert_eq!(
            out("json-to-toml", json!({"input": input})),
            "title = \"TOML Example\"\nmixed = [0.1, \"a\", [1, 2]]\n\"a b\" = 1\n\"\" = 2\nf = 1.0\n\n[servers.alpha]\nip = \"10.0.0.1\"\nrole = \"frontend\"\n\n[[products]]\nname = \"Hammer\"\nsku = 738594937\n\n[[products]]\nname = \"Nail\"\nsku = 284758393\ncolor = \"gray\"\n"
        );
    }

    #[test]
    fn json_to_toml_refuses_what_toml_cannot_express() {
        let (code, msg) = run_err(
            "json-to-toml",
            json!({"input": r#"{"servers":{"alpha":{"ip":null}}}"#}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "null at servers.alpha.ip: TOML has no null value; remove the key or give it a value"
        );
        let (_, msg) = run_err("json-to-toml", json!({"input": r#"{"a b":[1,null]}"#}));
        assert!(msg.starts_with("null at \"a b\"[1]:"), "{msg}");
        let (_, msg) = run_err("json-to-toml", json!({"input": "[1, 2]"}));
        assert!(
            msg.contains("top level must be an object/mapping, but it is an array"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "json-to-toml",
            json!({"input": r#"{"n":18446744073709551615}"#}),
        );
        assert!(
            msg.contains("18446744073709551615 at n is outside TOML's 64-bit"),
            "{msg}"
        );
        let (_, msg) = run_err("json-to-toml", json!({"input": "{\"a\":"}));
        assert!(msg.starts_with("invalid JSON at line 1"), "{msg}");
    }

    #[test]
    fn yaml_to_toml_and_back() {
        let yaml = "defaults: &d\n  adapter: postgres\n  port: 5432\ndevelopment:\n  <<: *d\n  database: dev\nflags: [yes, 'on', 1.5]\n";
        let toml = out("yaml-to-toml", json!({"input": yaml}));
        assert_eq!(
            toml,
            "flags = [\"yes\", \"on\", 1.5]\n\n[defaults]\nadapter = \"postgres\"\nport = 5432\n\n[development]\ndatabase = \"dev\"\nadapter = \"postgres\"\nport = 5432\n"
        );
        let back = out("toml-to-yaml", json!({"input": toml}));
        assert_eq!(
            back,
            "flags:\n- 'yes'\n- 'on'\n- 1.5\ndefaults:\n  adapter: postgres\n  port: 5432\ndevelopment:\n  database: dev\n  adapter: postgres\n  port: 5432\n"
        );
    }

    #[test]
    fn yaml_to_toml_errors() {
        let (code, msg) = run_err("yaml-to-toml", json!({"input": "a:\n  b: ~\n"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("null at a.b: TOML has no null"), "{msg}");
        let (_, msg) = run_err("yaml-to-toml", json!({"input": "- 1\n- 2\n"}));
        assert!(msg.contains("but it is a sequence"), "{msg}");
        let (_, msg) = run_err("yaml-to-toml", json!({"input": "a: 1\n---\nb: 2\n"}));
        assert!(msg.contains("holds 2 YAML documents"), "{msg}");
        let (_, msg) = run_err("yaml-to-toml", json!({"input": "a: [1\n"}));
        assert!(msg.starts_with("invalid YAML at line"), "{msg}");
    }

    #[test]
    fn toml_to_yaml_quotes_dates_and_keeps_order() {
        let toml = "[server]\nhost = \"example.com\"\nstarted = 1979-05-27T07:32:00Z\nenabled = true\nversion = \"1.0\"\n";
        assert_eq!(
            out("toml-to-yaml", json!({"input": toml})),
            "server:\n  host: example.com\n  started: '1979-05-27T07:32:00Z'\n  enabled: true\n  version: '1.0'\n"
        );
    }

    #[test]
    fn nesting_is_limited_with_one_message() {
        use crate::tools::kit::depth::{JSON_DEPTH, TOML_DEPTH, YAML_DEPTH};
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let arrays = format!("a = {}\n", nest("[", "", "]", 1_000_000));
        let dotted = vec!["a"; 1_000_000].join(".") + " = 1\n";
        for id in ["toml-to-json", "toml-to-yaml"] {
            assert_too_deep(id, json!({"input": arrays}), "input", TOML_DEPTH);
            assert_too_deep(id, json!({"input": dotted}), "input", TOML_DEPTH);
        }
        let (_, msg) = run_err("toml-to-json", json!({"input": arrays}));
        assert!(msg.contains("(at line 1, column"), "{msg}");
        let deep_json = format!("{{\"a\": {}}}", nest("[", "", "]", 1_000_000));
        assert_too_deep(
            "json-to-toml",
            json!({"input": deep_json}),
            "input",
            JSON_DEPTH,
        );
        let deep_yaml = "a:\n".to_string() + &"- ".repeat(1_000_000) + "x\n";
        assert_too_deep(
            "yaml-to-toml",
            json!({"input": deep_yaml}),
            "input",
            YAML_DEPTH,
        );
        // Just under: arrays inside the top-level table.
        let ok = format!("a = {}\n", nest("[", "1", "]", TOML_DEPTH - 1));
        let v = to_json(&ok);
        assert_eq!(
            v["a"],
            serde_json::from_str::<serde_json::Value>(&nest("[", "1", "]", TOML_DEPTH - 1))
                .unwrap()
        );
        let json_ok = format!("{{\"a\": {}}}", nest("[", "1", "]", JSON_DEPTH - 1));
        let toml_text = out("json-to-toml", json!({"input": json_ok}));
        assert!(toml_text.starts_with("a = [[["), "{toml_text}");
    }

    #[test]
    fn toml_over_its_size_limit_is_refused() {
        let big = "a = 1\n".repeat((super::MAX_TOML / 6) + 1);
        let (code, msg) = run_err("toml-to-json", json!({"input": big}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("the TOML is 4.0 MiB, more than the 4.0 MiB cmpx parses"),
            "{msg}"
        );
    }
}
