//! XML formatter (beautify or minify) over quick-xml's reader and writer.
//!
//! Every event is written back verbatim (attributes, entities, CDATA, comments, processing
//! instructions, the declaration and DOCTYPE); only whitespace-only text between elements is
//! replaced by indentation. Elements with mixed content or `xml:space="preserve"` are copied
//! unchanged, since whitespace inside them is part of the text.

use super::ToolFn;
use super::args::Args;
use crate::ctp::{ToolError, ToolOutcome};
use quick_xml::Writer;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use serde_json::json;

pub const TOOLS: &[(&str, ToolFn)] = &[("xml-formatter", xml_formatter)];

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
    let output = write_events(&events, unit, args.flag("removeComments"))?;
    Ok(json!({ "output": output }))
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

/// Reads the whole document, checking well-formedness beyond what the reader enforces:
/// unclosed elements, a single root, known entities and well-formed attributes.
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

fn write_events(
    events: &[Event<'_>],
    unit: Option<&str>,
    remove_comments: bool,
) -> Result<String, ToolError> {
    let verbatim = verbatim_elements(events);
    let mut w = Writer::new(Vec::with_capacity(events.len() * 16));
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
        match event {
            Event::Text(t) if is_blank(t) => continue,
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if !after_start {
                    newline(&mut w, unit, depth);
                }
            }
            _ => {
                if !first {
                    newline(&mut w, unit, depth);
                }
            }
        }
        first = false;
        after_start = false;
        w.write_event(event.borrow()).map_err(io)?;
        if let Event::Start(_) = event {
            if verbatim[i] {
                inside = 1;
            } else {
                depth += 1;
                after_start = true;
            }
        }
    }
    String::from_utf8(w.into_inner())
        .map_err(|e| ToolError::execution(format!("XML output is not UTF-8: {e}")))
}

fn newline(w: &mut Writer<Vec<u8>>, unit: Option<&str>, depth: usize) {
    if let Some(unit) = unit {
        let out = w.get_mut();
        out.push(b'\n');
        for _ in 0..depth {
            out.extend_from_slice(unit.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::testing::{run_err, run_ok};
    use serde_json::json;

    fn format(input: &str, extra: serde_json::Value) -> String {
        let mut args = json!({ "input": input });
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        run_ok("xml-formatter", args)["output"]
            .as_str()
            .unwrap()
            .to_string()
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
}
