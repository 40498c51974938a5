//! Probes for documents: JSON, YAML, TOML, XML and HTML, CSV, Markdown and SQL.

use super::{Found, add};
use crate::tools::json;
use regex::Regex;
use std::sync::OnceLock;

/// Validated without building a tree (any size, any depth); only the top level is counted.
pub(super) fn probe_json(s: &str, found: &mut Found) {
    if json::validate(s).is_err() {
        return;
    }
    match json::top_level(s) {
        (b'{', members) => add(
            found,
            "json",
            0.98,
            format!("parses as JSON: an object with {members} key(s)"),
        ),
        (b'[', items) => add(
            found,
            "json",
            0.97,
            format!("parses as JSON: an array of {items} item(s)"),
        ),
        (b'"', _) => add(found, "json", 0.4, "parses as JSON: a single string"),
        // Bare numbers and literals are JSON too, but rarely what was meant.
        _ => add(found, "json", 0.3, "parses as a JSON scalar"),
    }
}

pub(super) fn probe_yaml(s: &str, found: &mut Found) {
    use serde_norway::Value as Yaml;
    if s.len() > crate::tools::config::yaml::MAX_YAML {
        return;
    }
    let Ok(value) = serde_norway::from_str::<Yaml>(s) else {
        return;
    };
    let flow = s.starts_with('{') || s.starts_with('[');
    match value {
        Yaml::Mapping(map) if flow => add(
            found,
            "yaml",
            0.5,
            format!(
                "parses as a YAML flow mapping of {} key(s) (JSON is also valid YAML)",
                map.len()
            ),
        ),
        // "Note: call me" is a one-key YAML mapping, and as likely to be prose.
        Yaml::Mapping(map) if map.len() < 2 && !s.contains('\n') => add(
            found,
            "yaml",
            0.45,
            "parses as a YAML mapping with a single key on one line",
        ),
        Yaml::Mapping(map) => add(
            found,
            "yaml",
            0.85,
            format!("parses as YAML: a mapping with {} key(s)", map.len()),
        ),
        Yaml::Sequence(items) if !flow && items.len() > 1 => add(
            found,
            "yaml",
            0.7,
            format!(
                "parses as YAML: a block sequence of {} item(s)",
                items.len()
            ),
        ),
        _ => {}
    }
}

pub(super) fn probe_toml(s: &str, found: &mut Found) {
    if s.len() > crate::tools::config::toml::MAX_TOML {
        return;
    }
    let Ok(table) = toml::from_str::<toml::Table>(s) else {
        return;
    };
    if table.is_empty() {
        return;
    }
    let sections = s
        .lines()
        .filter(|l| l.trim_start().starts_with('['))
        .count();
    let keys = table.len();
    if sections > 0 {
        add(
            found,
            "toml",
            0.95,
            format!(
                "parses as TOML: {keys} top-level key(s) or table(s), {sections} [table] header(s)"
            ),
        );
    } else if keys > 1 || s.contains('\n') {
        add(
            found,
            "toml",
            0.85,
            format!("parses as TOML: {keys} key = value pair(s)"),
        );
    } else {
        add(
            found,
            "toml",
            0.6,
            "parses as a single TOML key = value pair",
        );
    }
}

pub(super) fn probe_xml_html(s: &str, found: &mut Found) {
    if !s.starts_with('<') {
        probe_html_fragment(s, found);
        return;
    }
    let lower: String = s.chars().take(200).collect::<String>().to_ascii_lowercase();
    let html_root = lower.starts_with("<!doctype html") || lower.contains("<html");
    match xml_root(s) {
        Some(root) if root.eq_ignore_ascii_case("html") => {
            add(
                found,
                "html",
                0.97,
                "well-formed XHTML document with an <html> root",
            );
            add(found, "xml", 0.6, "well-formed XML (XHTML)");
        }
        Some(root) => {
            let declared = lower.starts_with("<?xml");
            let what = if root == "svg" {
                "an SVG image".to_string()
            } else {
                format!("root element <{root}>")
            };
            let tags = html_tags(s);
            // <div>…</div> is well-formed XML, but an HTML element at the root says HTML.
            let html_element = html_tags(&format!("<{root}>")) == 1;
            let xml_confidence = match (declared, html_element) {
                (true, _) => 0.98,
                (false, true) => 0.75,
                (false, false) => 0.9,
            };
            add(
                found,
                "xml",
                xml_confidence,
                format!("well-formed XML, {what}"),
            );
            if html_element && !declared {
                add(
                    found,
                    "html",
                    0.92,
                    format!("markup rooted in the HTML element <{root}>"),
                );
            } else if tags >= 2 {
                add(
                    found,
                    "html",
                    0.8,
                    format!("well-formed markup using {tags} HTML element name(s)"),
                );
            }
        }
        None if html_root => add(
            found,
            "html",
            0.95,
            "starts with an HTML doctype or <html> element",
        ),
        None => probe_html_fragment(s, found),
    }
}

fn probe_html_fragment(s: &str, found: &mut Found) {
    let tags = html_tags(s);
    if tags == 0 {
        return;
    }
    let (confidence, where_) = if s.starts_with('<') {
        (if tags >= 2 { 0.85 } else { 0.7 }, "starts with markup")
    } else {
        (0.4, "inside other text")
    };
    add(
        found,
        "html",
        confidence,
        format!("{tags} HTML element(s) {where_}"),
    );
}

/// The number of HTML element start tags (by well-known names).
fn html_tags(s: &str) -> usize {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)<(html|head|body|div|span|p|a|br|hr|img|ul|ol|li|table|thead|tbody|tr|td|th|script|style|h[1-6]|section|article|nav|header|footer|main|form|input|button|label|select|textarea|meta|link|title|strong|em|b|i|code|pre|iframe)[\s>/]").expect("constant regex compiles")
    });
    re.find_iter(s).count()
}

/// The root element's name if `s` is a well-formed XML document with exactly one root.
fn xml_root(s: &str) -> Option<String> {
    use quick_xml::Reader;
    use quick_xml::events::Event;
    let mut reader = Reader::from_str(s);
    reader.config_mut().check_end_names = true;
    let mut depth = 0usize;
    let mut root: Option<String> = None;
    loop {
        match reader.read_event().ok()? {
            // A second root element: not a well-formed document.
            Event::Start(_) | Event::Empty(_) if depth == 0 && root.is_some() => return None,
            Event::Start(e) => {
                if depth == 0 {
                    root = Some(e.name().as_ref().to_string());
                }
                depth += 1;
            }
            Event::Empty(e) if depth == 0 => root = Some(e.name().as_ref().to_string()),
            Event::End(_) => depth = depth.checked_sub(1)?,
            Event::Text(t) if depth == 0 && !t.trim().is_empty() => return None,
            Event::Eof => break,
            _ => {}
        }
    }
    if depth == 0 { root } else { None }
}

pub(super) fn probe_csv(s: &str, found: &mut Found) {
    if s.lines().count() < 2 {
        return;
    }
    for (delimiter, label) in [(b',', "','"), (b'\t', "tabs"), (b';', "';'"), (b'|', "'|'")] {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(s.as_bytes());
        let mut widths = Vec::new();
        for record in reader.records() {
            match record {
                Ok(r) => widths.push(r.len()),
                Err(_) => return,
            }
        }
        let Some(&first) = widths.first() else {
            continue;
        };
        if first >= 2 && widths.len() >= 2 && widths.iter().all(|&w| w == first) {
            let confidence = if widths.len() >= 3 { 0.8 } else { 0.65 };
            add(
                found,
                "csv",
                confidence,
                format!(
                    "{} rows of {first} columns separated by {label}",
                    widths.len()
                ),
            );
            return;
        }
    }
}

pub(super) fn probe_markdown(s: &str, found: &mut Found) {
    static FEATURES: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    let features = FEATURES.get_or_init(|| {
        [
            // CommonMark ATX headings: up to three spaces of indent, one to six #, then at
            // least one space or tab.
            ("headings", r"(?m)^ {0,3}#{1,6}[ \t]+\S"),
            ("fenced code", r"(?m)^(```|~~~)"),
            ("links", r"\[[^\]\n]+\]\([^)\s]+\)"),
            (
                "emphasis",
                r"\*\*[^*\n]+\*\*|__[^_\n]+__|(^|\s)_[^_\n]+_(\s|$)",
            ),
            (
                "lists",
                r"(?m)^\s{0,3}([-*+]|\d+\.) \S[^\n]*\n\s{0,3}([-*+]|\d+\.) \S",
            ),
            ("block quotes", r"(?m)^> "),
            // A GFM table: a header row holding a pipe, then a delimiter row of cells of one or
            // more hyphens, each with optional colons, outer pipes optional (required for a
            // single column).
            (
                "tables",
                r"(?m)^[^\n]*\|[^\n]*\n {0,3}(?:\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?|\|[ \t]*:?-+:?[ \t]*\|)[ \t]*\r?$",
            ),
            ("inline code", r"`[^`\n]+`"),
        ]
        .into_iter()
        .filter_map(|(name, re)| Regex::new(re).ok().map(|r| (name, r)))
        .collect()
    });
    let seen: Vec<&str> = features
        .iter()
        .filter(|(_, re)| re.is_match(s))
        .map(|(name, _)| *name)
        .collect();
    let mut confidence = match seen.len() {
        0 => return,
        1 if matches!(seen[0], "headings" | "fenced code") => 0.65,
        1 => 0.45,
        2 => 0.8,
        _ => 0.9,
    };
    // A delimiter row under a piped header is Markdown's own: it outranks the same text read
    // as '|'-separated values.
    if seen.contains(&"tables") {
        confidence = f64::max(confidence, 0.85);
    }
    add(
        found,
        "markdown",
        confidence,
        format!("Markdown syntax: {}", seen.join(", ")),
    );
}

pub(super) fn probe_sql(s: &str, found: &mut Found) {
    static RE: OnceLock<(Regex, Regex)> = OnceLock::new();
    let (start, clause) = RE.get_or_init(|| {
        let start = Regex::new(r"(?i)^\s*(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|CREATE\s+(OR\s+REPLACE\s+)?(TEMP(ORARY)?\s+)?(TABLE|INDEX|UNIQUE\s+INDEX|VIEW|DATABASE|SCHEMA|FUNCTION|PROCEDURE|TRIGGER|SEQUENCE)|ALTER\s+TABLE|DROP\s+(TABLE|INDEX|VIEW|DATABASE|SCHEMA)|WITH\s+(RECURSIVE\s+)?\w+\s*(\([^)]*\))?\s+AS\s*\(|MERGE\s+INTO|TRUNCATE\s+TABLE|GRANT|REVOKE)\b").expect("constant regex compiles");
        let clause = Regex::new(r"(?i)\b(FROM|WHERE|VALUES|SET|JOIN|GROUP\s+BY|ORDER\s+BY|PRIMARY\s+KEY|ON|TO)\b|\(").expect("constant regex compiles");
        (start, clause)
    });
    let Some(m) = start.find(s) else {
        return;
    };
    let keyword = m
        .as_str()
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_uppercase();
    let confidence = if clause.is_match(&s[m.end()..]) {
        0.9
    } else {
        0.6
    };
    add(
        found,
        "sql",
        confidence,
        format!("an SQL {keyword} statement"),
    );
}
