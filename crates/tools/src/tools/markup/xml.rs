//! XML formatter (beautify or minify) and XML ⇄ JSON converters over quick-xml's reader and
//! writer.
//!
//! Every event is written back verbatim (attributes, entities, CDATA, comments, processing
//! instructions, the declaration and DOCTYPE); only whitespace-only text between elements is
//! replaced by indentation. Elements with mixed content or `xml:space="preserve"` are copied
//! unchanged, since whitespace inside them is part of the text.

mod convert;

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::{self, Capped, MAX_VALUES};
use crate::tools::kit::depth::{self, MAX_DEPTH};
use crate::tools::kit::tool::Tool;
use convert::{json_to_xml, xml_to_json};
use quick_xml::Writer;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use serde_json::Value;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("xml-formatter", xml_formatter),
    Tool::new("xml-to-json", xml_to_json),
    Tool::new("json-to-xml", json_to_xml),
];

fn xml_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let src = input.strip_prefix('\u{feff}').unwrap_or(input);
    if src.trim().is_empty() {
        return Err(ToolError::invalid(
            "input is empty: expected an XML document such as <root/>",
        ));
    }
    let events = read_events(src)?;
    let unit = match (args.str("mode")?, args.str("indent")?) {
        ("minify", _) => None,
        (_, "4") => Some("    "),
        (_, "tab") => Some("\t"),
        _ => Some("  "),
    };
    let layout = Layout {
        unit,
        remove_comments: args.flag("removeComments"),
        attribute_per_line: args.flag("attributePerLine"),
    };
    let output = write_events(&events, &layout)?;
    Ok(crate::tools::kit::data::with_output(output, Value::Null))
}

/// The output ceiling's error for the XML tools.
fn xml_too_large() -> ToolError {
    budget::output_too_large(
        "the XML",
        "every level of nesting indents each line further: choose minify, a smaller indent, or a smaller input",
    )
}

/// "line L, column C" of a byte offset (columns count characters, from 1).
fn line_col(src: &str, offset: usize) -> String {
    let offset = offset.min(src.len());
    let before = src.get(..offset).unwrap_or(src);
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit_once('\n')
        .map_or(before, |(_, tail)| tail)
        .chars()
        .count()
        + 1;
    format!("line {line}, column {col}")
}

fn invalid_at(src: &str, offset: usize, what: impl std::fmt::Display) -> ToolError {
    ToolError::invalid(format!(
        "invalid XML at {} (byte {offset}): {what}",
        line_col(src, offset)
    ))
}

const PREDEFINED_ENTITIES: [&str; 5] = ["lt", "gt", "amp", "apos", "quot"];

/// Namespaces in scope at one element, at most: real documents have a handful, and roxmltree
/// copies the parent's list into every element that declares one.
const MAX_NAMESPACES: usize = 1024;

/// Checks, in one quick-xml pass and before a tree parser (roxmltree, sxd-document, plist)
/// sees the document, that elements nest at most [`MAX_DEPTH`] levels, that it has at most
/// `max_nodes` nodes, and that its namespace declarations cannot make roxmltree's
/// namespace lists grow quadratically. Syntax errors end the scan quietly: the parser that
/// follows reports them precisely.
pub(crate) fn check_limits(src: &str, max_nodes: usize) -> Result<(), ToolError> {
    let mut reader = Reader::from_str(src);
    reader.config_mut().check_end_names = false;
    // Namespaces in scope at each open element.
    let mut scopes: Vec<usize> = Vec::new();
    let (mut nodes, mut copies) = (0usize, 0usize);
    loop {
        let at = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = match reader.read_event() {
            Ok(Event::Eof) | Err(_) => return Ok(()),
            Ok(event) => event,
        };
        nodes += 1;
        if nodes > max_nodes {
            return Err(budget::too_many_of(
                max_nodes,
                "the XML",
                "nodes (elements, texts, comments and the like)",
                "this tool holds the whole document in memory: split the input",
            ));
        }
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let declared = e
                    .attributes()
                    .flatten()
                    .filter(|a| {
                        let key = a.key.as_ref();
                        key == "xmlns" || key.starts_with("xmlns:")
                    })
                    .count();
                let inherited = scopes.last().copied().unwrap_or(0);
                let in_scope = inherited + declared;
                if declared > 0 {
                    copies += in_scope;
                }
                if in_scope > MAX_NAMESPACES || copies > MAX_VALUES {
                    return Err(ToolError::invalid(format!(
                        "the XML declares too many namespaces (more than {MAX_NAMESPACES} in scope at once, or {} in all counting each element's inherited ones) at {}; cmpx stops there so that namespace lists cannot grow quadratically",
                        MAX_VALUES,
                        line_col(src, at)
                    )));
                }
                if matches!(event, Event::Start(_)) {
                    scopes.push(in_scope);
                    if scopes.len() > MAX_DEPTH {
                        return Err(depth::too_deep("input", MAX_DEPTH, depth::place(src, at)));
                    }
                }
            }
            Event::End(_) => {
                scopes.pop();
            }
            _ => {}
        }
    }
}

/// Reads the whole document, checking well-formedness beyond what the reader enforces:
/// unclosed elements, a single root, known entities and well-formed attributes; and the
/// limits: at most [`MAX_DEPTH`] levels of elements and [`MAX_VALUES`] events.
fn read_events(src: &str) -> Result<Vec<Event<'_>>, ToolError> {
    let mut reader = Reader::from_str(src);
    let config = reader.config_mut();
    config.check_end_names = true;
    config.check_comments = true;
    let mut events = Vec::new();
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut roots = 0;
    // A DTD internal subset may declare further entities, which we cannot resolve.
    let mut dtd_entities = false;
    loop {
        let at = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = match reader.read_event() {
            Ok(Event::Eof) => break,
            Ok(event) => event,
            Err(e) => {
                let pos = usize::try_from(reader.error_position()).unwrap_or(at);
                return Err(invalid_at(src, pos, e));
            }
        };
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                check_attributes(src, at, e, dtd_entities)?;
                if open.is_empty() {
                    roots += 1;
                    if roots > 1 {
                        return Err(invalid_at(
                            src,
                            at,
                            "a document has exactly one root element, but another one starts here",
                        ));
                    }
                }
                if let Event::Start(e) = &event {
                    open.push((e.name().as_ref().to_string(), at));
                    if open.len() > MAX_DEPTH {
                        return Err(depth::too_deep("input", MAX_DEPTH, depth::place(src, at)));
                    }
                }
            }
            Event::End(_) => {
                open.pop();
            }
            Event::Text(t) if open.is_empty() && !is_blank(t) => {
                return Err(invalid_at(
                    src,
                    at,
                    "text is not allowed outside the root element",
                ));
            }
            Event::DocType(t) => {
                dtd_entities = t.contains("<!ENTITY");
            }
            Event::GeneralRef(r) => {
                if r.is_char_ref() {
                    if let Err(e) = r.resolve_char_ref() {
                        return Err(invalid_at(src, at, e));
                    }
                } else {
                    let name: &str = r;
                    if !dtd_entities && !PREDEFINED_ENTITIES.contains(&name) {
                        return Err(invalid_at(
                            src,
                            at,
                            format!(
                                "unknown entity &{name}; (XML predefines only &lt; &gt; &amp; &apos; &quot;)"
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
        if events.len() == MAX_VALUES {
            return Err(budget::too_many(
                "the XML",
                "nodes (elements, texts, comments and the like)",
                "this tool holds the whole document in memory: split the input",
            ));
        }
        events.push(event);
    }
    if let Some((name, at)) = open.last() {
        return Err(ToolError::invalid(format!(
            "invalid XML: element <{name}> opened at {} is never closed",
            line_col(src, *at)
        )));
    }
    if roots == 0 {
        return Err(ToolError::invalid(
            "invalid XML: the document has no root element",
        ));
    }
    Ok(events)
}

fn check_attributes(
    src: &str,
    at: usize,
    e: &BytesStart<'_>,
    dtd_entities: bool,
) -> Result<(), ToolError> {
    for attr in e.attributes().with_checks(true) {
        let attr = attr.map_err(|err| invalid_at(src, at, err))?;
        if !dtd_entities {
            attr.normalized_value(XmlVersion::Implicit1_0)
                .map_err(|err| {
                    invalid_at(src, at, format!("attribute '{}': {err}", attr.key.as_ref()))
                })?;
        }
    }
    Ok(())
}

fn is_blank(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_whitespace())
}

fn preserves_space(e: &BytesStart<'_>) -> bool {
    e.attributes()
        .flatten()
        .any(|a| a.key.as_ref() == "xml:space" && a.value == "preserve")
}

/// For each `Start` event, whether its content must be copied verbatim: it has text, CDATA
/// or entity children (mixed content), or asks for `xml:space="preserve"`.
fn verbatim_elements(events: &[Event<'_>]) -> Vec<bool> {
    let mut verbatim = vec![false; events.len()];
    let mut stack = Vec::new();
    for (i, event) in events.iter().enumerate() {
        match event {
            Event::Start(e) => {
                verbatim[i] = preserves_space(e);
                stack.push(i);
            }
            Event::End(_) => {
                stack.pop();
            }
            Event::Text(t) if !is_blank(t) => mark(&stack, &mut verbatim),
            Event::CData(_) | Event::GeneralRef(_) => mark(&stack, &mut verbatim),
            _ => {}
        }
    }
    verbatim
}

fn mark(stack: &[usize], verbatim: &mut [bool]) {
    if let Some(&top) = stack.last() {
        verbatim[top] = true;
    }
}

/// How the formatter lays out what it writes.
struct Layout<'a> {
    /// The indentation unit; `None` minifies.
    unit: Option<&'a str>,
    remove_comments: bool,
    /// A start tag with two or more attributes puts each on its own line, one level deeper.
    attribute_per_line: bool,
}

fn write_events(events: &[Event<'_>], layout: &Layout) -> Result<String, ToolError> {
    let verbatim = verbatim_elements(events);
    let mut w = Writer::new(Capped::with_capacity(events.len() * 16));
    let written = write_each(&mut w, events, &verbatim, layout);
    let out = w.into_inner();
    if out.over {
        return Err(xml_too_large());
    }
    written?;
    String::from_utf8(out.into_bytes())
        .map_err(|e| ToolError::execution(format!("XML output is not UTF-8: {e}")))
}

fn write_each(
    w: &mut Writer<Capped>,
    events: &[Event<'_>],
    verbatim: &[bool],
    layout: &Layout,
) -> Result<(), ToolError> {
    let (unit, remove_comments) = (layout.unit, layout.remove_comments);
    let io = |e: std::io::Error| ToolError::execution(format!("writing XML failed: {e}"));
    let mut depth = 0usize;
    // Nesting level inside a verbatim element; 0 means indentation applies.
    let mut inside = 0usize;
    let mut after_start = false;
    let mut first = true;
    for (i, event) in events.iter().enumerate() {
        if remove_comments && matches!(event, Event::Comment(_)) {
            continue;
        }
        if inside > 0 {
            match event {
                Event::Start(_) => inside += 1,
                Event::End(_) => inside -= 1,
                _ => {}
            }
            w.write_event(event.borrow()).map_err(io)?;
            continue;
        }
        if w.get_ref().over {
            break;
        }
        match event {
            Event::Text(t) if is_blank(t) => continue,
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if !after_start {
                    newline(w, unit, depth);
                }
            }
            _ => {
                if !first {
                    newline(w, unit, depth);
                }
            }
        }
        first = false;
        after_start = false;
        match event {
            Event::Start(e) | Event::Empty(e)
                if layout.attribute_per_line && unit.is_some() && e.attributes().count() > 1 =>
            {
                write_tag_split(w, e, matches!(event, Event::Empty(_)), unit, depth + 1)?;
            }
            _ => w.write_event(event.borrow()).map_err(io)?,
        }
        if let Event::Start(_) = event {
            if verbatim[i] {
                inside = 1;
            } else {
                depth += 1;
                after_start = true;
            }
        }
    }
    Ok(())
}

/// A start (or empty-element) tag with each attribute on its own line at `depth`. Names and
/// values are copied as written, in their own quotes; only the whitespace between them changes.
fn write_tag_split(
    w: &mut Writer<Capped>,
    e: &BytesStart<'_>,
    empty: bool,
    unit: Option<&str>,
    depth: usize,
) -> Result<(), ToolError> {
    use std::io::Write as _;
    let raw = e.as_bytes();
    let _ = w.get_mut().write_all(b"<");
    let _ = w.get_mut().write_all(e.name().as_ref().as_bytes());
    for attr in e.attributes() {
        let attr = attr.map_err(|err| ToolError::invalid(format!("attribute: {err}")))?;
        let value = attr.value.as_bytes();
        // The value borrows from the tag, so the byte before it is its opening quote.
        let quote = (value.as_ptr() as usize)
            .checked_sub(raw.as_ptr() as usize)
            .and_then(|at| at.checked_sub(1))
            .and_then(|at| raw.get(at))
            .copied()
            .filter(|q| *q == b'\'' || *q == b'"')
            .unwrap_or(if value.contains(&b'"') { b'\'' } else { b'"' });
        newline(w, unit, depth);
        let out = w.get_mut();
        let _ = out.write_all(attr.key.as_ref().as_bytes());
        let _ = out.write_all(&[b'=', quote]);
        let _ = out.write_all(value);
        let _ = out.write_all(&[quote]);
    }
    let _ = w.get_mut().write_all(if empty { b"/>" } else { b">" });
    Ok(())
}

/// A line break and `depth` units; a refused write leaves the buffer's `over` flag set.
fn newline(w: &mut Writer<Capped>, unit: Option<&str>, depth: usize) {
    use std::io::Write as _;
    if let Some(unit) = unit {
        let out = w.get_mut();
        let _ = out.write_all(b"\n");
        for _ in 0..depth {
            let _ = out.write_all(unit.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn format(input: &str, extra: serde_json::Value) -> String {
        crate::tools::kit::testing::output_with("xml-formatter", input, extra)
    }

    #[test]
    fn attribute_per_line_keeps_names_values_and_quotes() {
        let input = "<svg xmlns=\"http://www.w3.org/2000/svg\" width='10' viewBox=\"0 0 10 10\"><rect id=\"r\"/><g a=\"&amp;\" b='say \"hi\"'/></svg>";
        let out = format(input, serde_json::json!({"attributePerLine": true}));
        assert_eq!(
            out,
            "<svg\n  xmlns=\"http://www.w3.org/2000/svg\"\n  width='10'\n  viewBox=\"0 0 10 10\">\n  <rect id=\"r\"/>\n  <g\n    a=\"&amp;\"\n    b='say \"hi\"'/>\n</svg>"
        );
        let tabbed = format(
            "<a x=\"1\" y=\"2\">t</a>",
            serde_json::json!({"attributePerLine": true, "indent": "tab"}),
        );
        assert_eq!(tabbed, "<a\n\tx=\"1\"\n\ty=\"2\">t</a>");
        // Minifying ignores it; without it tags stay on one line.
        let min = format(
            "<a x=\"1\" y=\"2\"> <b/> </a>",
            serde_json::json!({"attributePerLine": true, "mode": "minify"}),
        );
        assert_eq!(min, "<a x=\"1\" y=\"2\"><b/></a>");
        assert_eq!(
            format("<a x=\"1\" y=\"2\"/>", serde_json::json!({})),
            "<a x=\"1\" y=\"2\"/>"
        );
    }

    // The W3Schools "note" example, the usual first XML document.
    #[test]
    fn beautifies_note_example() {
        let input = r#"<?xml version="1.0" encoding="UTF-8"?><note><to>Tove</to><from>Jani</from><heading>Reminder</heading><body>Don't forget me this weekend!</body></note>"#;
        assert_eq!(
            format(input, json!({})),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<note>\n  <to>Tove</to>\n  <from>Jani</from>\n  <heading>Reminder</heading>\n  <body>Don't forget me this weekend!</body>\n</note>"
        );
    }

    #[test]
    fn keeps_comments_cdata_pi_doctype_and_mixed_content() {
        let input = "<!DOCTYPE html>\n<!-- top -->\n<?xml-stylesheet href=\"a.css\"?>\n<html>\n<body>\n<p>Hello <b>big</b>  world &amp; more</p><script><![CDATA[if (a < b) x();]]></script><pre xml:space=\"preserve\">\n  <i>x</i>\n</pre><br />\n<e></e></body></html>";
        assert_eq!(
            format(input, json!({"indent": "4"})),
            "<!DOCTYPE html>\n<!-- top -->\n<?xml-stylesheet href=\"a.css\"?>\n<html>\n    <body>\n        <p>Hello <b>big</b>  world &amp; more</p>\n        <script><![CDATA[if (a < b) x();]]></script>\n        <pre xml:space=\"preserve\">\n  <i>x</i>\n</pre>\n        <br />\n        <e></e>\n    </body>\n</html>"
        );
    }

    #[test]
    fn minifies_and_removes_comments() {
        let input = "<a>\n  <!-- note -->\n  <b  x=\"1\">text</b>\n  <c/>\n</a>\n";
        assert_eq!(
            format(input, json!({"mode": "minify"})),
            "<a><!-- note --><b  x=\"1\">text</b><c/></a>"
        );
        assert_eq!(
            format(input, json!({"mode": "minify", "removeComments": true})),
            "<a><b  x=\"1\">text</b><c/></a>"
        );
        assert_eq!(
            format(input, json!({"indent": "tab"})),
            "<a>\n\t<!-- note -->\n\t<b  x=\"1\">text</b>\n\t<c/>\n</a>"
        );
    }

    #[test]
    fn rejects_mismatched_and_unclosed_tags() {
        let (code, msg) = run_err("xml-formatter", json!({"input": "<a>\n  <b></c>\n</a>"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("invalid XML at line 2"), "{msg}");
        assert!(
            msg.contains("expected `</b>`, but `</c>` was found"),
            "{msg}"
        );
        let (code, msg) = run_err("xml-formatter", json!({"input": "<a>\n  <b>text</b>"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "invalid XML: element <a> opened at line 1, column 1 is never closed"
        );
    }

    #[test]
    fn rejects_bad_entities_and_attributes() {
        let (code, msg) = run_err("xml-formatter", json!({"input": "<a>&nbsp;</a>"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("unknown entity &nbsp;"), "{msg}");
        let (_, msg) = run_err("xml-formatter", json!({"input": "<a x=\"1\" x=\"2\"/>"}));
        assert!(msg.starts_with("invalid XML at line 1, column 1"), "{msg}");
        let (_, msg) = run_err("xml-formatter", json!({"input": "<a/><b/>"}));
        assert!(msg.contains("exactly one root element"), "{msg}");
        // Entities declared in the DTD are accepted.
        let ok = format("<!DOCTYPE a [<!ENTITY me \"x\">]><a>&me;</a>", json!({}));
        assert_eq!(ok, "<!DOCTYPE a [<!ENTITY me \"x\">]>\n<a>&me;</a>");
    }

    fn to_json(input: &str, extra: serde_json::Value) -> serde_json::Value {
        let mut args = json!({ "input": input, "indent": "0" });
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        serde_json::from_str(run_ok("xml-to-json", args)["output"].as_str().unwrap()).unwrap()
    }

    fn to_xml(input: serde_json::Value, extra: serde_json::Value) -> String {
        let mut args = json!({ "input": input.to_string() });
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        run_ok("json-to-xml", args)["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    const XMLTODICT_README: &str = "<mydocument has=\"an attribute\">\n  <and>\n    <many>elements</many>\n    <many>more elements</many>\n  </and>\n  <plus a=\"complex\">\n    element as well\n  </plus>\n</mydocument>";

    // The parse example from the xmltodict README.
    #[test]
    fn xml_to_json_xmltodict_readme() {
        assert_eq!(
            to_json(XMLTODICT_README, json!({})),
            json!({"mydocument": {"@has": "an attribute", "and": {"many": ["elements", "more elements"]}, "plus": {"@a": "complex", "#text": "element as well"}}})
        );
        let data = run_ok(
            "xml-to-json",
            json!({"input": "<a x=\"1\"/>", "indent": "2"}),
        );
        assert_eq!(data["output"], "{\n  \"a\": {\n    \"@x\": \"1\"\n  }\n}");
    }

    #[test]
    fn xml_to_json_entities_cdata_empty_and_order() {
        let input = "<?xml version=\"1.0\"?>\n<!-- c --><a><b>1</b><c><![CDATA[x < y]]></c><b/><d>&lt;&#65;&#x42;&amp;</d><e q=\"&quot;&#10;\"> </e></a>";
        assert_eq!(
            to_json(input, json!({})),
            json!({"a": {"b": ["1", null], "c": "x < y", "d": "<AB&", "e": {"@q": "\"\n"}}})
        );
        // Options: another attribute prefix and text key, text left untrimmed.
        assert_eq!(
            to_json(
                "<p lang=\"en\">\n  Hi <b>there</b>\n</p>",
                json!({"attributePrefix": "_", "textKey": "$", "trimText": false})
            ),
            json!({"p": {"_lang": "en", "b": "there", "$": "\n  Hi \n"}})
        );
    }

    #[test]
    fn xml_to_json_rejects_malformed_xml_with_position() {
        let (code, msg) = run_err("xml-to-json", json!({"input": "<a>\n  <b></c>\n</a>"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("invalid XML at line 2"), "{msg}");
        let (code, msg) = run_err("xml-to-json", json!({"input": "<a>&nbsp;</a>"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("unknown entity &nbsp;"), "{msg}");
        let (_, msg) = run_err(
            "xml-to-json",
            json!({"input": "<a><b>1</b>text</a>", "textKey": "b"}),
        );
        assert!(msg.contains("both map to the key 'b'"), "{msg}");
    }

    // The unparse example from the xmltodict README (pretty, tab-indented).
    #[test]
    fn json_to_xml_xmltodict_readme() {
        let doc = json!({"mydocument": {"@has": "an attribute", "and": {"many": ["elements", "more elements"]}, "plus": {"@a": "complex", "#text": "element as well"}}});
        assert_eq!(
            to_xml(doc.clone(), json!({"indent": "tab"})),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<mydocument has=\"an attribute\">\n\t<and>\n\t\t<many>elements</many>\n\t\t<many>more elements</many>\n\t</and>\n\t<plus a=\"complex\">element as well</plus>\n</mydocument>"
        );
        assert_eq!(
            to_xml(doc, json!({"indent": "0", "declaration": false})),
            "<mydocument has=\"an attribute\"><and><many>elements</many><many>more elements</many></and><plus a=\"complex\">element as well</plus></mydocument>"
        );
    }

    #[test]
    fn json_to_xml_escapes_and_scalars() {
        let out = to_xml(
            json!({"a": {"@q": "\"<&>'\n", "#text": "1 < 2 & 3 > 2 \"ok\"", "n": 1.5, "t": true, "z": null, "e": {}}}),
            json!({"declaration": false}),
        );
        assert_eq!(
            out,
            "<a q=\"&quot;&lt;&amp;&gt;&apos;&#10;\">1 &lt; 2 &amp; 3 &gt; 2 \"ok\"<n>1.5</n>\n  <t>true</t>\n  <z/>\n  <e/>\n</a>"
        );
        // No line break is added after text: in mixed content it would become part of the text.
        // rootName wraps any JSON.
        assert_eq!(
            to_xml(
                json!({"x": 1, "y": [2, 3]}),
                json!({"rootName": "root", "indent": "0", "declaration": false})
            ),
            "<root><x>1</x><y>2</y><y>3</y></root>"
        );
    }

    #[test]
    fn json_to_xml_rejects_what_xml_cannot_express() {
        let err = |input: serde_json::Value, extra: serde_json::Value| {
            let mut args = json!({ "input": input.to_string() });
            args.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            run_err("json-to-xml", args)
        };
        let (code, msg) = err(json!({"a": 1, "b": 2}), json!({}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("exactly one key"), "{msg}");
        let (_, msg) = err(json!({"r": {"first name": "Ada"}}), json!({}));
        assert!(
            msg.contains("'first name' at /r/first name is not a valid XML name"),
            "{msg}"
        );
        let (_, msg) = err(json!({"r": {"x": [[1]]}}), json!({}));
        assert!(
            msg.contains("array directly inside an array at /r/x/0"),
            "{msg}"
        );
        let (_, msg) = err(json!({"r": {"@id": {"a": 1}}}), json!({}));
        assert!(msg.contains("attribute at /r/@id must be"), "{msg}");
        let (_, msg) = err(json!({"r": "bell\u{7}"}), json!({}));
        assert!(msg.contains("U+0007"), "{msg}");
        let (_, msg) = err(json!([1, 2]), json!({"rootName": "list"}));
        assert!(msg.contains("several root elements"), "{msg}");
    }

    // W3Schools "books.xml", through JSON and back.
    #[test]
    fn xml_json_round_trip() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<bookstore>\n  <book category=\"cooking\">\n    <title lang=\"en\">Everyday Italian</title>\n    <author>Giada De Laurentiis</author>\n    <year>2005</year>\n    <price>30.00</price>\n  </book>\n  <book category=\"web\">\n    <title lang=\"en\">XQuery Kick Start</title>\n    <author>James McGovern</author>\n    <author>Per Bothner</author>\n    <year>2003</year>\n    <price>49.99</price>\n  </book>\n</bookstore>";
        let json_text = run_ok("xml-to-json", json!({"input": xml}))["output"]
            .as_str()
            .unwrap()
            .to_string();
        let back = run_ok("json-to-xml", json!({"input": json_text}))["output"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(back, xml);
    }

    #[test]
    fn nesting_is_limited_with_one_message() {
        use crate::tools::kit::depth::{JSON_DEPTH, MAX_DEPTH};
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = nest("<a>", "", "</a>", 1_000_000);
        for id in ["xml-formatter", "xml-to-json"] {
            assert_too_deep(id, json!({"input": deep}), "input", MAX_DEPTH);
        }
        let (_, msg) = run_err("xml-formatter", json!({"input": deep}));
        assert!(msg.contains("(at line 1, column 1537)"), "{msg}");
        let deep_json = format!("{{\"r\": {}}}", nest("{\"a\":", "1", "}", 1_000_000));
        assert_too_deep(
            "json-to-xml",
            json!({"input": deep_json}),
            "input",
            JSON_DEPTH,
        );
        // Just under: 512 elements, and JSON 128 deep.
        let ok = nest("<a>", "x", "</a>", MAX_DEPTH);
        let out = run_ok("xml-formatter", json!({"input": ok, "mode": "minify"}));
        assert_eq!(out["output"], ok);
        let converted = run_ok("xml-to-json", json!({"input": ok, "indent": "0"}));
        assert_eq!(
            converted["output"],
            nest("{\"a\":", "\"x\"", "}", MAX_DEPTH)
        );
        let json_ok = format!("{{\"r\": {}}}", nest("{\"a\":", "1", "}", JSON_DEPTH - 1));
        let args = json!({"input": json_ok, "indent": "0", "declaration": false});
        let xml = run_ok("json-to-xml", args);
        assert_eq!(
            xml["output"],
            format!("<r>{}</r>", nest("<a>", "1", "</a>", JSON_DEPTH - 1))
        );
    }
}
