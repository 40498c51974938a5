//! XML inspection: well-formedness and namespace validation with document statistics
//! (roxmltree), and XPath 1.0 evaluation (sxd-document + sxd-xpath).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::budget;
use crate::tools::kit::depth;
use crate::tools::kit::tool::Tool;
use quick_xml::events::Event;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use sxd_document::dom::{ChildOfElement, Element};
use sxd_xpath::nodeset::Node;
use sxd_xpath::{Context, Factory, Value as XValue};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("xml-validator", xml_validator),
    Tool::new("xpath-tester", xpath_tester),
];

/// Line and column (both from 1; columns count characters) of a byte offset.
fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(src.len());
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    let before = &src[..end];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn parse_options<'a>() -> roxmltree::ParsingOptions<'a> {
    roxmltree::ParsingOptions {
        allow_dtd: true,
        // check_limits counts quick-xml's events; entities a DTD declares can add more nodes.
        nodes_limit: u32::try_from(budget::MAX_VALUES).unwrap_or(u32::MAX),
        ..Default::default()
    }
}

/// The first well-formedness or namespace error: what, and where.
struct XmlProblem {
    message: String,
    line: usize,
    column: usize,
}

impl XmlProblem {
    fn to_json(&self) -> Value {
        json!({ "message": self.message, "line": self.line, "column": self.column })
    }

    fn into_error(self) -> ToolError {
        ToolError::invalid(format!(
            "the XML is not well-formed at line {}, column {}: {}",
            self.line, self.column, self.message
        ))
    }
}

fn describe(e: &roxmltree::Error, src: &str) -> XmlProblem {
    use roxmltree::Error as E;
    let pos = e.pos();
    let (line, column) = (pos.row as usize, pos.col as usize);
    let at = |message: String| XmlProblem {
        message,
        line,
        column,
    };
    match e {
        E::UnclosedRootNode | E::UnexpectedEndOfStream => {
            unclosed_element(src).unwrap_or_else(|| {
                let (line, column) = line_col(src, src.len());
                XmlProblem {
                    message: "the document ends before the root element is closed".into(),
                    line,
                    column,
                }
            })
        }
        E::NoRootNode => at("the document has no root element".into()),
        E::UnknownToken(_) => at(
            "unexpected content: text or markup outside the root element, or an invalid token"
                .into(),
        ),
        E::UnexpectedCloseTag(expected, actual, _) => at(format!(
            "closing tag </{actual}> does not match the open element <{expected}>"
        )),
        E::UnknownNamespace(prefix, _) => at(format!(
            "namespace prefix '{prefix}' is used but not declared (add xmlns:{prefix}=\"…\")"
        )),
        E::DuplicatedAttribute(name, _) => at(format!(
            "attribute '{name}' appears twice on the same element"
        )),
        E::NodesLimitReached => at(format!(
            "the document has more than {} nodes (counting those its entities expand to), the most cmpx holds in memory for one call",
            budget::MAX_VALUES
        )),
        other => {
            let text = other.to_string();
            at(text.replace(&format!(" at {pos}"), ""))
        }
    }
}

/// The innermost element left open at the end of the document, found by a quick-xml pass
/// (roxmltree only reports that the root is unclosed).
fn unclosed_element(src: &str) -> Option<XmlProblem> {
    let mut reader = quick_xml::Reader::from_str(src);
    reader.config_mut().check_end_names = false;
    let mut open: Vec<(String, usize)> = Vec::new();
    loop {
        let start = usize::try_from(reader.buffer_position()).ok()?;
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let at = start + src[start..].find('<').unwrap_or(0);
                open.push((e.name().as_ref().to_string(), at));
            }
            Ok(Event::End(_)) => {
                open.pop();
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    let (name, at) = open.pop()?;
    let (line, column) = line_col(src, at);
    Some(XmlProblem {
        message: format!("element <{name}> is never closed"),
        line,
        column,
    })
}

/// The parsed document; the outer error is a limit (depth, size), the inner one a
/// well-formedness problem.
/// Nodes xml-validator holds (roxmltree, about 90 bytes each).
const MAX_NODES: usize = budget::MAX_VALUES;
/// Nodes xpath-tester holds: roxmltree's tree, then sxd-document's, about a kilobyte a node.
const MAX_XPATH_NODES: usize = 500_000;

fn parse_xml(
    src: &str,
    max_nodes: usize,
) -> Result<Result<roxmltree::Document<'_>, XmlProblem>, ToolError> {
    if src.trim().is_empty() {
        return Ok(Err(XmlProblem {
            message: "the input is empty".into(),
            line: 1,
            column: 1,
        }));
    }
    crate::tools::markup::xml::check_limits(src, max_nodes)?;
    Ok(
        roxmltree::Document::parse_with_options(src, parse_options())
            .map_err(|e| describe(&e, src)),
    )
}

fn qualified(node: roxmltree::Node<'_, '_>) -> String {
    let tag = node.tag_name();
    match tag.namespace().and_then(|uri| node.lookup_prefix(uri)) {
        Some(prefix) if !prefix.is_empty() => format!("{prefix}:{}", tag.name()),
        _ => tag.name().to_string(),
    }
}

fn xml_validator(args: &Args) -> ToolOutcome {
    let src = args.str("input")?;
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let doc = match parse_xml(src, MAX_NODES)? {
        Ok(doc) => doc,
        Err(problem) => return Ok(json!({ "valid": false, "error": problem.to_json() })),
    };
    let root = doc.root_element();
    let (mut elements, mut attributes, mut max_depth) = (0usize, 0usize, 0usize);
    // Each element's depth, by node id: a parent comes before its children.
    let mut depths = vec![0u32; doc.descendants().len()];
    let mut namespaces: BTreeMap<(String, String), ()> = BTreeMap::new();
    for node in root.descendants().filter(|n| n.is_element()) {
        let level = node
            .parent_element()
            .map_or(0, |p| depths[p.id().get_usize()])
            + 1;
        depths[node.id().get_usize()] = level;
        max_depth = max_depth.max(level as usize);
        elements += 1;
        attributes += node.attributes().len();
        if same_namespaces(node) {
            continue;
        }
        let parent_has = |prefix: Option<&str>, uri: &str| {
            node.parent_element().is_some_and(|p| {
                p.namespaces()
                    .any(|ns| ns.name() == prefix && ns.uri() == uri)
            })
        };
        for ns in node.namespaces() {
            // roxmltree lists inherited namespaces too; keep those declared here.
            if !parent_has(ns.name(), ns.uri()) {
                namespaces.insert(
                    (ns.name().unwrap_or("").to_string(), ns.uri().to_string()),
                    (),
                );
            }
        }
    }
    let namespaces: Vec<Value> = namespaces
        .into_keys()
        .map(|(prefix, uri)| json!({ "prefix": if prefix.is_empty() { Value::Null } else { Value::String(prefix) }, "uri": uri }))
        .collect();
    let trimmed = src.trim_start();
    Ok(json!({
        "valid": true,
        "error": null,
        "root": qualified(root),
        "rootNamespace": root.tag_name().namespace(),
        "elements": elements,
        "attributes": attributes,
        "maxDepth": max_depth,
        "namespaces": namespaces,
        "xmlDeclaration": trimmed.starts_with("<?xml"),
        "doctype": has_doctype(src),
    }))
}

/// Whether `node` declares no namespace of its own: roxmltree then hands it its parent's list
/// itself, so comparing the first entry's address and the length is enough.
fn same_namespaces(node: roxmltree::Node<'_, '_>) -> bool {
    let Some(parent) = node.parent_element() else {
        return false;
    };
    let (mine, theirs) = (node.namespaces(), parent.namespaces());
    mine.len() == theirs.len()
        && match (mine.clone().next(), theirs.clone().next()) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (None, None) => true,
            _ => false,
        }
}

/// The document with its DOCTYPE declaration turned into spaces (sxd-document rejects most of
/// them), keeping every other byte offset where it was.
fn blank_doctype(src: &str) -> std::borrow::Cow<'_, str> {
    let mut reader = quick_xml::Reader::from_str(src);
    loop {
        let start = usize::try_from(reader.buffer_position()).unwrap_or(0);
        match reader.read_event() {
            Ok(Event::DocType(_)) => {
                let end = usize::try_from(reader.buffer_position()).unwrap_or(start);
                let Some(decl) = src.get(start..end) else {
                    return src.into();
                };
                let blank: String = decl
                    .chars()
                    .map(|c| if c == '\n' { c } else { ' ' })
                    .collect();
                return format!("{}{blank}{}", &src[..start], &src[end..]).into();
            }
            Ok(Event::Start(_) | Event::Empty(_) | Event::Eof) | Err(_) => return src.into(),
            Ok(_) => {}
        }
    }
}

/// A DOCTYPE declaration before the root element (not one inside a comment or CDATA later).
fn has_doctype(src: &str) -> bool {
    let mut reader = quick_xml::Reader::from_str(src);
    loop {
        match reader.read_event() {
            Ok(Event::DocType(_)) => return true,
            Ok(Event::Start(_) | Event::Empty(_) | Event::Eof) | Err(_) => return false,
            Ok(_) => {}
        }
    }
}

// ---- XPath ----------------------------------------------------------------------------------

/// sxd-document and sxd-xpath build, walk and drop the tree recursively: 512 levels need more
/// stack than a test thread has.
fn xpath_tester(args: &Args) -> ToolOutcome {
    depth::with_stack(|| xpath_here(args))
}

fn xpath_here(args: &Args) -> ToolOutcome {
    let src = args.str("input")?;
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let expression = args.str("expression")?;
    // roxmltree gives the precise well-formedness error; sxd-document does the evaluation.
    let checked = parse_xml(src, MAX_XPATH_NODES)?.map_err(XmlProblem::into_error)?;
    depth::check("expression", expression, &XPATH_SYNTAX, depth::MAX_DEPTH)?;
    check_operators(expression)?;
    let mut declared: Vec<(String, String)> = Vec::new();
    for node in checked.descendants().filter(|n| n.is_element()) {
        if same_namespaces(node) {
            continue;
        }
        for ns in node.namespaces() {
            if let Some(prefix) = ns.name()
                && !declared.iter().any(|(p, _)| p == prefix)
            {
                declared.push((prefix.to_string(), ns.uri().to_string()));
            }
        }
    }
    let without_doctype = blank_doctype(src);
    let package = sxd_document::parser::parse(&without_doctype).map_err(|e| {
        let (line, column) = line_col(src, e.location());
        ToolError::invalid(format!(
            "the XPath engine could not read the XML at line {line}, column {column} ({e})"
        ))
    })?;
    let document = package.as_document();

    let xpath = Factory::new()
        .build(expression)
        .map_err(|e| ToolError::invalid(format!("invalid XPath expression '{expression}': {e}")))?
        .ok_or_else(|| ToolError::invalid("the XPath expression is empty"))?;
    let mut context = Context::new();
    let mut bound: Vec<String> = Vec::new();
    for (prefix, uri) in &declared {
        context.set_namespace(prefix, uri);
        bound.push(prefix.clone());
    }
    if let Some(map) = args.get("namespaces") {
        let Value::Object(map) = map else {
            return Err(ToolError::invalid(
                "namespaces must be a JSON object mapping prefixes to URIs, e.g. {\"b\": \"urn:books\"}",
            ));
        };
        for (prefix, uri) in map {
            let uri = uri.as_str().ok_or_else(|| {
                ToolError::invalid(format!(
                    "namespace URI for prefix '{prefix}' must be a string"
                ))
            })?;
            context.set_namespace(prefix, uri);
            bound.push(prefix.clone());
        }
    }
    // sxd-xpath panics on an unbound prefix, so check them all first.
    if let Some(prefix) = prefixes(expression)
        .into_iter()
        .find(|p| !bound.iter().any(|b| b == p))
    {
        return Err(ToolError::invalid(format!(
            "namespace prefix '{prefix}' in the expression is not bound: declare it in the XML or pass namespaces {{\"{prefix}\": \"<namespace URI>\"}}"
        )));
    }
    let value = xpath
        .evaluate(&context, document.root())
        .map_err(|e| ToolError::invalid(format!("XPath evaluation failed: {e}")))?;
    Ok(match value {
        XValue::Nodeset(set) => {
            let nodes = set.document_order();
            if nodes.len() > budget::MAX_RESULTS {
                return Err(ToolError::invalid(format!(
                    "the expression selects {} nodes; xpath-tester lists at most {}: narrow it, or count them with count(…)",
                    nodes.len(),
                    budget::MAX_RESULTS
                )));
            }
            // Each node carries its text and its markup, so nested matches repeat their
            // content: the whole list stays within the output limit.
            let mut room = budget::result_ceiling();
            let mut texts = Vec::with_capacity(nodes.len());
            let mut list = Vec::with_capacity(nodes.len());
            for node in &nodes {
                let text = node.string_value();
                let entry = node_json(*node, &text);
                let size = 2 * text.len() + entry["xml"].as_str().map_or(0, str::len);
                room = room.checked_sub(size).ok_or_else(|| {
                    budget::result_too_large(
                        "the selected nodes' text and markup",
                        "nested nodes repeat their content: select the innermost nodes, or text() nodes",
                    )
                })?;
                texts.push(text);
                list.push(entry);
            }
            let output = texts.join("\n");
            json!({ "type": "nodeset", "count": list.len(), "output": output, "nodes": list })
        }
        XValue::Boolean(b) => json!({ "type": "boolean", "output": b.to_string(), "value": b }),
        XValue::Number(n) => {
            json!({ "type": "number", "output": xpath_number(n), "value": json_number(n) })
        }
        XValue::String(s) => json!({ "type": "string", "output": s, "value": s }),
    })
}

/// XPath's brackets and string literals (which have no escapes), for the depth check that runs
/// before sxd-xpath's recursive parser.
const XPATH_SYNTAX: depth::Syntax = depth::Syntax {
    open: b"([",
    close: b")]",
    quotes: b"'\"",
    escapes: false,
    block_comments: false,
    interpolation: false,
    line_breaks: b"",
};

/// sxd-xpath nests one expression per binary operator or path step (`1+1+…+1` is as deep as
/// it is long), and evaluates and drops them recursively: more than [`depth::MAX_DEPTH`]
/// operators and brackets together are refused like deeper brackets.
fn check_operators(expression: &str) -> Result<(), ToolError> {
    let mut level = 0usize;
    let mut quote = None;
    let mut word = String::new();
    for (i, c) in expression.char_indices() {
        if quote.is_none() && c.is_ascii_alphabetic() {
            word.push(c);
            continue;
        }
        if matches!(word.as_str(), "and" | "or" | "div" | "mod") {
            level += 1;
        }
        word.clear();
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '+' | '-' | '*' | '/' | '|' | '=' | '<' | '>' | ',' => level += 1,
                _ => {}
            },
        }
        if level > depth::MAX_DEPTH {
            return Err(depth::too_deep(
                "expression",
                depth::MAX_DEPTH,
                depth::place(expression, i),
            ));
        }
    }
    Ok(())
}

/// Prefixes of the qualified names in an XPath expression (`b:book`, `b:*`), ignoring string
/// literals and axis names (`child::`).
fn prefixes(expression: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = expression.chars().collect();
    let is_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            i += chars[i + 1..]
                .iter()
                .position(|&q| q == c)
                .map_or(chars.len(), |p| p + 2);
            continue;
        }
        if (c.is_alphabetic() || c == '_')
            && (i == 0 || !is_name(chars[i - 1]) && chars[i - 1] != '$')
        {
            let start = i;
            while i < chars.len() && is_name(chars[i]) {
                i += 1;
            }
            let followed_by_name = chars
                .get(i + 1)
                .is_some_and(|&n| n.is_alphabetic() || n == '_' || n == '*');
            if chars.get(i) == Some(&':') && followed_by_name {
                out.push(chars[start..i].iter().collect());
            }
            continue;
        }
        i += 1;
    }
    out
}

/// XPath 1.0 §4.2 `string()` of a number: integers without a fraction, NaN and Infinity named.
fn xpath_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn json_number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        json!(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

fn node_json(node: Node<'_>, text: &str) -> Value {
    let kind = match node {
        Node::Root(_) => "root",
        Node::Element(_) => "element",
        Node::Attribute(_) => "attribute",
        Node::Text(_) => "text",
        Node::Comment(_) => "comment",
        Node::Namespace(_) => "namespace",
        Node::ProcessingInstruction(_) => "processing-instruction",
    };
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    if let Some(name) = node.prefixed_name() {
        out.insert("name".into(), json!(name));
    }
    out.insert("value".into(), json!(text));
    if let Node::Element(e) = node {
        let mut xml = String::new();
        write_element(e, &mut xml, true);
        out.insert("xml".into(), json!(xml));
    }
    Value::Object(out)
}

fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

fn element_name(e: Element<'_>) -> String {
    let name = e.name();
    match e.preferred_prefix() {
        Some(p) if name.namespace_uri().is_some() => format!("{p}:{}", name.local_part()),
        _ => name.local_part().to_string(),
    }
}

/// Serialises an element from the XPath result. The outermost one carries every namespace in
/// scope, so the fragment stands on its own; inner ones carry what they declare themselves.
fn write_element(e: Element<'_>, out: &mut String, outermost: bool) {
    let name = element_name(e);
    out.push('<');
    out.push_str(&name);
    let parent_scope: Vec<(String, String)> = match (outermost, e.parent()) {
        (false, Some(sxd_document::dom::ParentOfChild::Element(p))) => p
            .namespaces_in_scope()
            .iter()
            .map(|n| (n.prefix().to_string(), n.uri().to_string()))
            .collect(),
        _ => Vec::new(),
    };
    let default_ns = if outermost {
        e.recursive_default_namespace_uri()
    } else {
        e.default_namespace_uri()
    };
    if let Some(uri) = default_ns {
        out.push_str(&format!(" xmlns=\"{}\"", escape(uri, true)));
    }
    for ns in e.namespaces_in_scope() {
        if ns.prefix() == "xml"
            || parent_scope
                .iter()
                .any(|(p, u)| p == ns.prefix() && u == ns.uri())
        {
            continue;
        }
        out.push_str(&format!(
            " xmlns:{}=\"{}\"",
            ns.prefix(),
            escape(ns.uri(), true)
        ));
    }
    for a in e.attributes() {
        let local = a.name().local_part();
        let attr_name = match (a.preferred_prefix(), a.name().namespace_uri()) {
            (Some(p), Some(_)) => format!("{p}:{local}"),
            (None, Some("http://www.w3.org/XML/1998/namespace")) => format!("xml:{local}"),
            _ => local.to_string(),
        };
        out.push_str(&format!(" {attr_name}=\"{}\"", escape(a.value(), true)));
    }
    let children = e.children();
    if children.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    for child in children {
        match child {
            ChildOfElement::Element(c) => write_element(c, out, false),
            ChildOfElement::Text(t) => out.push_str(&escape(t.text(), false)),
            ChildOfElement::Comment(c) => out.push_str(&format!("<!--{}-->", c.text())),
            ChildOfElement::ProcessingInstruction(pi) => match pi.value() {
                Some(v) => out.push_str(&format!("<?{} {v}?>", pi.target())),
                None => out.push_str(&format!("<?{}?>", pi.target())),
            },
        }
    }
    out.push_str("</");
    out.push_str(&name);
    out.push('>');
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn check(xml: &str) -> serde_json::Value {
        run_ok("xml-validator", json!({ "input": xml }))
    }

    #[test]
    fn validator_valid_document_statistics() {
        let data = check(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE note SYSTEM \"note.dtd\">\n<note id=\"1\" xmlns:h=\"http://www.w3.org/TR/html4/\"><to>Tove</to><h:b lang=\"en\">x</h:b></note>",
        );
        assert_eq!(data["valid"], true);
        assert_eq!(data["root"], "note");
        assert_eq!(data["elements"], 3);
        assert_eq!(data["attributes"], 2);
        assert_eq!(data["maxDepth"], 2);
        assert_eq!(data["xmlDeclaration"], true);
        assert_eq!(data["doctype"], true);
        assert_eq!(
            data["namespaces"],
            json!([{"prefix": "h", "uri": "http://www.w3.org/TR/html4/"}])
        );
        let data = check("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>");
        assert_eq!(data["rootNamespace"], "http://www.w3.org/2000/svg");
        assert_eq!(data["doctype"], false);
    }

    fn error_of(xml: &str) -> serde_json::Value {
        let data = check(xml);
        assert_eq!(data["valid"], false, "{data}");
        data["error"].clone()
    }

    #[test]
    fn validator_unclosed_and_mismatched_tags() {
        let e = error_of("<note>\n  <to>Tove\n</note>");
        assert_eq!(e["line"], 3);
        assert_eq!(e["column"], 1);
        assert_eq!(
            e["message"],
            "closing tag </note> does not match the open element <to>"
        );
        let e = error_of("<note>\n  <to>Tove</to>\n  <body>");
        assert_eq!(e["message"], "element <body> is never closed");
        assert_eq!(
            (e["line"].clone(), e["column"].clone()),
            (json!(3), json!(3))
        );
    }

    #[test]
    fn validator_namespace_attribute_and_prolog_errors() {
        let e = error_of("<root><x:item/></root>");
        assert_eq!(e["line"], 1);
        assert_eq!(e["column"], 8);
        assert!(e["message"].as_str().unwrap().contains("prefix 'x'"), "{e}");
        let e = error_of("<a b=\"1\" b=\"2\"/>");
        assert_eq!(
            e["message"],
            "attribute 'b' appears twice on the same element"
        );
        assert_eq!(e["column"], 10);
        let e = error_of("hello <a/>");
        assert_eq!(
            (e["line"].clone(), e["column"].clone()),
            (json!(1), json!(1))
        );
        assert!(
            e["message"].as_str().unwrap().contains("outside the root"),
            "{e}"
        );
    }

    // The w3schools bookstore document, used by its XPath tutorial.
    const BOOKSTORE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bookstore>
  <book category="cooking">
    <title lang="en">Everyday Italian</title>
    <author>Giada De Laurentiis</author>
    <year>2005</year>
    <price>30.00</price>
  </book>
  <book category="children">
    <title lang="en">Harry Potter</title>
    <author>J K. Rowling</author>
    <year>2005</year>
    <price>29.99</price>
  </book>
  <book category="web">
    <title lang="en">XQuery Kick Start</title>
    <author>James McGovern</author>
    <year>2003</year>
    <price>49.99</price>
  </book>
  <book category="web">
    <title lang="en">Learning XML</title>
    <author>Erik T. Ray</author>
    <year>2003</year>
    <price>39.95</price>
  </book>
</bookstore>"#;

    fn xpath(expr: &str) -> serde_json::Value {
        run_ok(
            "xpath-tester",
            json!({ "input": BOOKSTORE, "expression": expr }),
        )
    }

    #[test]
    fn xpath_w3schools_bookstore() {
        let data = xpath("//book[price>35]/title");
        assert_eq!(data["type"], "nodeset");
        assert_eq!(data["count"], 2);
        assert_eq!(data["output"], "XQuery Kick Start\nLearning XML");
        assert_eq!(
            data["nodes"][0],
            json!({"type": "element", "name": "title", "value": "XQuery Kick Start", "xml": "<title lang=\"en\">XQuery Kick Start</title>"})
        );
        let data = xpath("count(//book)");
        assert_eq!(
            (data["type"].clone(), data["value"].clone()),
            (json!("number"), json!(4))
        );
        assert_eq!(data["output"], "4");
        let data = xpath("/bookstore/book[1]/@category");
        assert_eq!(
            data["nodes"],
            json!([{"type": "attribute", "name": "category", "value": "cooking"}])
        );
        assert_eq!(xpath("sum(//book/price) > 100")["value"], true);
        assert_eq!(
            xpath("string(//book[last()]/author)")["value"],
            "Erik T. Ray"
        );
    }

    #[test]
    fn xpath_namespaces() {
        let xml = "<r xmlns=\"urn:books\" xmlns:x=\"urn:x\"><b><x:t>A</x:t></b></r>";
        // Declared prefixes work as written; the default namespace needs a prefix of its own.
        let data = run_ok("xpath-tester", json!({"input": xml, "expression": "//x:t"}));
        assert_eq!(data["output"], "A");
        assert_eq!(
            data["nodes"][0]["xml"],
            "<x:t xmlns=\"urn:books\" xmlns:x=\"urn:x\">A</x:t>"
        );
        let data = run_ok(
            "xpath-tester",
            json!({"input": xml, "expression": "count(//bk:b)", "namespaces": {"bk": "urn:books"}}),
        );
        assert_eq!(data["value"], 1);
        assert_eq!(
            run_ok("xpath-tester", json!({"input": xml, "expression": "//b"}))["count"],
            0
        );
    }

    #[test]
    fn xpath_errors() {
        let (code, msg) = run_err(
            "xpath-tester",
            json!({"input": BOOKSTORE, "expression": "//book[price>"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("invalid XPath expression"), "{msg}");
        let (code, msg) = run_err(
            "xpath-tester",
            json!({"input": "<a><b></a>", "expression": "/a"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("line 1, column 7"), "{msg}");
        let (_, msg) = run_err(
            "xpath-tester",
            json!({"input": "<a/>", "expression": "//q:x | //child::a[@k='p:q']"}),
        );
        assert!(
            msg.starts_with("namespace prefix 'q' in the expression is not bound"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "xpath-tester",
            json!({"input": "<a/>", "expression": "nosuch(1)"}),
        );
        assert!(msg.contains("XPath evaluation failed"), "{msg}");
    }

    #[test]
    fn nesting_is_limited_with_one_message() {
        use crate::tools::kit::depth::MAX_DEPTH;
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = nest("<a>", "", "</a>", 1_000_000);
        assert_too_deep("xml-validator", json!({"input": deep}), "input", MAX_DEPTH);
        assert_too_deep(
            "xpath-tester",
            json!({"input": deep, "expression": "/a"}),
            "input",
            MAX_DEPTH,
        );
        let expression = nest("(", "1", ")", 1_000_000);
        assert_too_deep(
            "xpath-tester",
            json!({"input": "<a/>", "expression": expression}),
            "expression",
            MAX_DEPTH,
        );
        let chain = vec!["1"; 1_000_000].join("+");
        assert_too_deep(
            "xpath-tester",
            json!({"input": "<a/>", "expression": chain}),
            "expression",
            MAX_DEPTH,
        );
        // Just under: 512 elements, an expression of 511 brackets.
        let ok = nest("<a>", "x", "</a>", MAX_DEPTH);
        let d = run_ok("xml-validator", json!({"input": ok}));
        assert_eq!(d["maxDepth"], MAX_DEPTH);
        assert_eq!(d["elements"], MAX_DEPTH);
        let d = run_ok(
            "xpath-tester",
            json!({"input": ok, "expression": "count(//a)"}),
        );
        assert_eq!(d["value"], MAX_DEPTH);
        let d = run_ok(
            "xpath-tester",
            json!({"input": "<a/>", "expression": nest("(", "1", ")", MAX_DEPTH - 1)}),
        );
        assert_eq!(d["value"], 1);
    }

    #[test]
    fn many_namespaces_and_long_node_lists_are_refused() {
        let decls: String = (0..1100)
            .map(|i| format!(" xmlns:p{i}=\"urn:{i}\""))
            .collect();
        let (code, msg) = run_err("xml-validator", json!({"input": format!("<r{decls}/>")}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("the XML declares too many namespaces (more than 1024 in scope"),
            "{msg}"
        );
        let many = format!("<r>{}</r>", "<a/>".repeat(100_001));
        let (_, msg) = run_err("xpath-tester", json!({"input": many, "expression": "//a"}));
        assert!(
            msg.starts_with(
                "the expression selects 100001 nodes; xpath-tester lists at most 100000"
            ),
            "{msg}"
        );
    }
}
