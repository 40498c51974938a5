//! xml-to-json and json-to-xml, by the xmltodict convention: the root element becomes a
//! one-key object; attributes become keys with a prefix ("@id"); an element with only text
//! becomes a string, an empty one null; text next to attributes or child elements goes under
//! "#text"; repeated child elements become an array, in document order. Comments, processing
//! instructions and the DOCTYPE are dropped.

use super::{read_events, xml_too_large};
use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::json;
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::Capped;
use quick_xml::Writer;
use quick_xml::XmlVersion;
use quick_xml::escape::{escape, partial_escape, resolve_predefined_entity};
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::name::QName;
use serde_json::{Map, Value};

/// An element being read: attributes, children (key → one value or several) and text.
struct Frame {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<(String, Vec<Value>)>,
    text: String,
}

struct Convention<'a> {
    attr_prefix: &'a str,
    text_key: &'a str,
    trim: bool,
}

pub(super) fn xml_to_json(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let src = input.strip_prefix('\u{feff}').unwrap_or(input);
    if src.trim().is_empty() {
        return Err(ToolError::invalid(
            "input is empty: expected an XML document such as <root/>",
        ));
    }
    let conv = Convention {
        attr_prefix: args.str("attributePrefix")?,
        text_key: args.str("textKey")?,
        trim: args.flag("trimText"),
    };
    if conv.text_key.is_empty() {
        return Err(ToolError::invalid("textKey must not be empty"));
    }
    let events = read_events(src)?;
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<(String, Value)> = None;
    for event in &events {
        match event {
            Event::Start(e) | Event::Empty(e) => {
                let mut attrs = Vec::new();
                for attr in e.attributes().flatten() {
                    let value = attr
                        .normalized_value(XmlVersion::Implicit1_0)
                        .map_err(|err| {
                            ToolError::invalid(format!(
                                "attribute '{}' of <{}>: {err} (entities declared in a DTD are not expanded)",
                                attr.key.as_ref(),
                                e.name().as_ref()
                            ))
                        })?;
                    attrs.push((attr.key.as_ref().to_string(), value.into_owned()));
                }
                stack.push(Frame {
                    name: e.name().as_ref().to_string(),
                    attrs,
                    children: Vec::new(),
                    text: String::new(),
                });
                if let Event::Empty(_) = event {
                    close(&mut stack, &mut root, &conv)?;
                }
            }
            Event::End(_) => close(&mut stack, &mut root, &conv)?,
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml10_content());
                }
            }
            Event::CData(c) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&c.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                let Some(top) = stack.last_mut() else {
                    continue;
                };
                if r.is_char_ref() {
                    if let Ok(Some(c)) = r.resolve_char_ref() {
                        top.text.push(c);
                    }
                } else {
                    let name: &str = r;
                    match resolve_predefined_entity(name) {
                        Some(text) => top.text.push_str(text),
                        None => {
                            return Err(ToolError::invalid(format!(
                                "the entity &{name}; in <{}> is declared in the DTD; xml-to-json expands only the predefined entities and character references",
                                top.name
                            )));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let (name, value) = root.ok_or_else(|| ToolError::invalid("invalid XML: no root element"))?;
    let mut doc = Map::new();
    doc.insert(name, value);
    let output = crate::tools::json::write_indented(&Value::Object(doc), args.str("indent")?)?;
    Ok(crate::tools::kit::data::with_output(output, Value::Null))
}

/// Ends the innermost element: turns it into its JSON value and hands it to its parent.
fn close(
    stack: &mut Vec<Frame>,
    root: &mut Option<(String, Value)>,
    conv: &Convention<'_>,
) -> Result<(), ToolError> {
    let Some(frame) = stack.pop() else {
        return Ok(());
    };
    let text = if conv.trim {
        frame.text.trim().to_string()
    } else {
        frame.text
    };
    // Untrimmed, whitespace-only text among child elements is indentation, not content.
    let keep_text = !text.is_empty() && (frame.children.is_empty() || !text.trim().is_empty());
    let value = if frame.attrs.is_empty() && frame.children.is_empty() {
        if keep_text {
            Value::String(text)
        } else {
            Value::Null
        }
    } else {
        let mut map = Map::new();
        for (name, value) in frame.attrs {
            map.insert(format!("{}{name}", conv.attr_prefix), Value::String(value));
        }
        for (name, mut values) in frame.children {
            if map.contains_key(&name) {
                return Err(ToolError::invalid(format!(
                    "in <{}>, the child element <{name}> and an attribute both map to the key '{name}'; set a non-empty attributePrefix",
                    frame.name
                )));
            }
            let value = if values.len() == 1 {
                values.pop().unwrap_or(Value::Null)
            } else {
                Value::Array(values)
            };
            map.insert(name, value);
        }
        if keep_text {
            if map.contains_key(conv.text_key) {
                return Err(ToolError::invalid(format!(
                    "in <{}>, the text and an attribute or child both map to the key '{}'; choose another textKey",
                    frame.name, conv.text_key
                )));
            }
            map.insert(conv.text_key.to_string(), Value::String(text));
        }
        Value::Object(map)
    };
    match stack.last_mut() {
        Some(parent) => match parent.children.iter_mut().find(|(n, _)| *n == frame.name) {
            Some((_, values)) => values.push(value),
            None => parent.children.push((frame.name, vec![value])),
        },
        None => *root = Some((frame.name, value)),
    }
    Ok(())
}

pub(super) fn json_to_xml(args: &Args) -> ToolOutcome {
    let value = json::parse_value(args.str("input")?)?;
    let conv = Convention {
        attr_prefix: args.str("attributePrefix")?,
        text_key: args.str("textKey")?,
        trim: false,
    };
    let root_name = args.opt_str("rootName").unwrap_or("").trim();
    let (name, content) = if root_name.is_empty() {
        match &value {
            Value::Object(map) if map.len() == 1 => map
                .iter()
                .next()
                .map(|(k, v)| (k.as_str(), v))
                .unwrap_or(("root", &value)),
            _ => {
                return Err(ToolError::invalid(format!(
                    "an XML document has one root element, so the JSON must be an object with exactly one key (the root element's name), but it is {}; or give rootName to wrap it",
                    describe(&value)
                )));
            }
        }
    } else {
        (root_name, &value)
    };
    if content.is_array() {
        return Err(ToolError::invalid(format!(
            "the root element <{name}> holds an array, which would make several root elements; wrap it in an object such as {{\"{name}\": {{\"item\": [...]}}}}"
        )));
    }
    let mut w = match args.str("indent")? {
        "0" => Writer::new(Capped::new()),
        "4" => Writer::new_with_indent(Capped::new(), b' ', 4),
        "tab" => Writer::new_with_indent(Capped::new(), b'\t', 1),
        _ => Writer::new_with_indent(Capped::new(), b' ', 2),
    };
    let io = |e: std::io::Error| ToolError::execution(format!("writing XML failed: {e}"));
    if args.flag("declaration") {
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
            .map_err(io)?;
        if args.str("indent")? == "0" {
            use std::io::Write as _;
            let _ = w.get_mut().write_all(b"\n");
        }
    }
    let mut path = format!("/{}", pointer_token(name));
    let written = write_element(&mut w, name, content, &conv, &mut path);
    let out = w.into_inner();
    if out.over {
        return Err(xml_too_large());
    }
    written?;
    let output = String::from_utf8(out.into_bytes())
        .map_err(|e| ToolError::execution(format!("XML output is not UTF-8: {e}")))?;
    Ok(crate::tools::kit::data::with_output(output, Value::Null))
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(m) if m.is_empty() => "an empty object",
        Value::Object(_) => "an object with several keys",
    }
}

fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Text of a scalar; objects and arrays have none.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => Some(String::new()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

fn write_element(
    w: &mut Writer<Capped>,
    name: &str,
    value: &Value,
    conv: &Convention<'_>,
    path: &mut String,
) -> Result<(), ToolError> {
    check_name(name, path)?;
    let io = |e: std::io::Error| ToolError::execution(format!("writing XML failed: {e}"));
    let mut start = BytesStart::new(name);
    let mut text = None;
    let mut children: Vec<(&str, &Value)> = Vec::new();
    match value {
        Value::Array(_) => {
            return Err(ToolError::invalid(format!(
                "an array directly inside an array at {path} has no XML form: repeated elements need a name"
            )));
        }
        Value::Object(map) => {
            for (key, v) in map {
                let len = path.len();
                path.push('/');
                path.push_str(&pointer_token(key));
                if key == conv.text_key {
                    text = Some(scalar_text(v).ok_or_else(|| {
                        ToolError::invalid(format!(
                            "the text at {path} must be a string, number, boolean or null"
                        ))
                    })?);
                } else if let Some(attr) = key
                    .strip_prefix(conv.attr_prefix)
                    .filter(|_| !conv.attr_prefix.is_empty())
                {
                    check_name(attr, path)?;
                    let raw = scalar_text(v).ok_or_else(|| {
                        ToolError::invalid(format!(
                            "the attribute at {path} must be a string, number, boolean or null"
                        ))
                    })?;
                    check_chars(&raw, path)?;
                    start.push_attribute(Attribute {
                        key: QName(attr),
                        value: escape_attribute(&raw).into(),
                    });
                } else {
                    children.push((key, v));
                }
                path.truncate(len);
            }
        }
        scalar => text = scalar_text(scalar),
    }
    let text = text.filter(|t| !t.is_empty());
    if text.is_none() && children.is_empty() {
        return w.write_event(Event::Empty(start)).map_err(io);
    }
    w.write_event(Event::Start(start.borrow())).map_err(io)?;
    if let Some(text) = &text {
        check_chars(text, path)?;
        let escaped = partial_escape(text.as_str()).replace('\r', "&#13;");
        w.write_event(Event::Text(BytesText::from_escaped(escaped)))
            .map_err(io)?;
    }
    for (key, v) in children {
        let len = path.len();
        path.push('/');
        path.push_str(&pointer_token(key));
        match v {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{i}"));
                    write_element(w, key, item, conv, path)?;
                    path.truncate(len);
                }
            }
            _ => write_element(w, key, v, conv, path)?,
        }
        path.truncate(len);
    }
    w.write_event(Event::End(BytesEnd::new(name))).map_err(io)
}

/// Attribute values keep tabs and line breaks only as character references (XML 1.0 §3.3.3).
fn escape_attribute(raw: &str) -> String {
    escape(raw)
        .replace('\t', "&#9;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
}

/// XML 1.0 §2.3 Name: the element and attribute names JSON keys may become.
fn check_name(name: &str, path: &str) -> Result<(), ToolError> {
    let start = |c: char| {
        matches!(c, ':' | 'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
            | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
            | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
            | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
            | '\u{10000}'..='\u{EFFFF}')
    };
    let rest = |c: char| {
        start(c)
            || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
    };
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(start) && chars.all(rest);
    if valid {
        Ok(())
    } else {
        Err(ToolError::invalid(format!(
            "the key '{name}' at {path} is not a valid XML name (names start with a letter, '_' or ':' and contain no spaces)"
        )))
    }
}

/// XML 1.0 §2.2: control characters other than tab, CR and LF cannot appear at all.
fn check_chars(text: &str, path: &str) -> Result<(), ToolError> {
    match text
        .chars()
        .find(|&c| matches!(c, '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}'))
    {
        Some(c) => Err(ToolError::invalid(format!(
            "the text at {path} contains U+{:04X}, a character XML 1.0 does not allow",
            u32::from(c)
        ))),
        None => Ok(()),
    }
}
