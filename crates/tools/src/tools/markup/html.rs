//! HTML tools: CSS selector queries (scraper) and HTML to plain or Markdown-like text
//! (html2text, with a decorator of our own for the link, image and markup styles).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use crate::tools::kit::{budget, depth};
use html2text::render::{TaggedLine, TextDecorator};
use scraper::{Html, Node, Selector};
use serde_json::{Map, Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("css-selector-tester", css_selector_tester),
    Tool::new("html-to-text", html_to_text),
];

/// A whole document when it says so (doctype, `<html>`, `<head>` or `<body>`), else a fragment,
/// so that `<td>` or `<li>` snippets are not reshaped by the document parsing rules.
fn parse_html(input: &str) -> Html {
    let lower = input
        .get(..input.len().min(2048))
        .unwrap_or(input)
        .to_ascii_lowercase();
    if ["<!doctype", "<html", "<head", "<body"]
        .iter()
        .any(|m| lower.contains(m))
    {
        Html::parse_document(input)
    } else {
        Html::parse_fragment(input)
    }
}

/// Text with runs of whitespace collapsed to one space, as a browser lays it out inline.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Nesting of a selector's brackets: cssparser, under the selectors crate, stops at 75.
const SELECTOR_DEPTH: usize = 75;

/// Selector brackets (`:not(:is(…))`, `[attr]`) and strings, for the depth check that runs
/// before the selectors crate's recursive parser.
const SELECTOR_SYNTAX: depth::Syntax = depth::Syntax {
    open: b"([",
    close: b")]",
    quotes: b"'\"",
    escapes: true,
    block_comments: true,
    interpolation: false,
    line_breaks: b"",
};

fn css_selector_tester(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let selector_text = args.str("selector")?;
    depth::check("selector", selector_text, &SELECTOR_SYNTAX, SELECTOR_DEPTH)?;
    let selector = Selector::parse(selector_text).map_err(|e| {
        ToolError::invalid(format!(
            "invalid CSS selector '{}': {e}",
            crate::text::preview(selector_text, 200)
        ))
    })?;
    let attribute = args.opt_str("attribute").filter(|a| !a.is_empty());
    crate::tools::markup::html_scan::check(input, crate::tools::markup::html_scan::MAX_TOKENS)?;
    let html = parse_html(input);
    let found = html.select(&selector).count();
    if found > budget::MAX_RESULTS {
        return Err(ToolError::invalid(format!(
            "the selector matches {found} elements; css-selector-tester lists at most {}: narrow it",
            budget::MAX_RESULTS
        )));
    }
    // Each match carries its text and its markup, so nested matches repeat their content:
    // the whole list stays within the output limit.
    let mut room = budget::result_ceiling();
    let mut matches = Vec::new();
    let mut lines = Vec::new();
    for element in html.select(&selector) {
        let text = collapse(&element.text().collect::<String>());
        let markup = element.html();
        room = room
            .checked_sub(2 * text.len() + markup.len())
            .ok_or_else(|| {
                budget::result_too_large(
                    "the matched elements' text and markup",
                    "nested matches repeat their content: narrow the selector to the innermost elements",
                )
            })?;
        let el = element.value();
        let attributes: Map<String, Value> = el
            .attrs()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect();
        let mut m = json!({
            "tag": el.name(),
            "attributes": attributes,
            "text": text,
            "html": markup,
        });
        match attribute {
            Some(name) => {
                let value = el.attr(name);
                if let Some(v) = value {
                    lines.push(v.to_string());
                }
                m["value"] = json!(value);
            }
            None => lines.push(text),
        }
        matches.push(m);
    }
    Ok(json!({
        "count": matches.len(),
        "output": lines.join("\n"),
        "matches": matches,
    }))
}

// ---- HTML → text ----------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Links {
    Footnotes,
    Inline,
    Hidden,
}

/// Markdown-like or plain decoration, with the chosen link style and image handling.
#[derive(Clone)]
struct Decor {
    markdown: bool,
    links: Links,
    images: bool,
    open_links: Vec<String>,
}

impl Decor {
    fn mark(&self, m: &str) -> (String, ()) {
        (
            if self.markdown {
                m.into()
            } else {
                String::new()
            },
            (),
        )
    }
    fn end(&self, m: &str) -> String {
        if self.markdown {
            m.into()
        } else {
            String::new()
        }
    }
}

impl TextDecorator for Decor {
    type Annotation = ();

    fn decorate_link_start(&mut self, url: &str) -> (String, ()) {
        self.open_links.push(url.to_string());
        match self.links {
            Links::Footnotes | Links::Inline if self.markdown => ("[".into(), ()),
            _ => (String::new(), ()),
        }
    }
    fn decorate_link_end(&mut self) -> String {
        let url = self.open_links.pop().unwrap_or_default();
        match (self.links, self.markdown) {
            (Links::Footnotes, true) => "]".into(),
            (Links::Inline, true) => format!("]({url})"),
            (Links::Inline, false) if !url.is_empty() => format!(" <{url}>"),
            _ => String::new(),
        }
    }
    fn decorate_em_start(&self) -> (String, ()) {
        self.mark("*")
    }
    fn decorate_em_end(&self) -> String {
        self.end("*")
    }
    fn decorate_strong_start(&self) -> (String, ()) {
        self.mark("**")
    }
    fn decorate_strong_end(&self) -> String {
        self.end("**")
    }
    fn decorate_strikeout_start(&self) -> (String, ()) {
        self.mark("~~")
    }
    fn decorate_strikeout_end(&self) -> String {
        self.end("~~")
    }
    fn decorate_code_start(&self) -> (String, ()) {
        self.mark("`")
    }
    fn decorate_code_end(&self) -> String {
        self.end("`")
    }
    fn decorate_preformat_first(&self) {}
    fn decorate_preformat_cont(&self) {}
    fn decorate_image(&mut self, src: &str, title: &str) -> (String, ()) {
        let text = match (self.images, self.markdown) {
            (false, _) => String::new(),
            (true, true) => format!("![{title}]({src})"),
            (true, false) => format!("[{title}]"),
        };
        (text, ())
    }
    fn header_prefix(&self, level: usize) -> String {
        if self.markdown {
            "#".repeat(level) + " "
        } else {
            String::new()
        }
    }
    fn quote_prefix(&self) -> String {
        "> ".into()
    }
    fn unordered_item_prefix(&self) -> String {
        "* ".into()
    }
    fn ordered_item_prefix(&self, i: i64) -> String {
        format!("{i}. ")
    }
    fn make_subblock_decorator(&self) -> Self {
        Decor {
            open_links: Vec::new(),
            ..self.clone()
        }
    }
    fn finalise(&mut self, urls: Vec<String>) -> Vec<TaggedLine<()>> {
        urls.into_iter()
            .enumerate()
            .map(|(i, url)| TaggedLine::from_string(format!("[{}]: {url}", i + 1), &()))
            .collect()
    }
}

/// Lines no longer than this are "not wrapped".
const NO_WRAP_WIDTH: usize = 10_000;

fn html_to_text(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mode = args.str("mode")?;
    // Strip mode walks scraper's tree; the other modes build html2text's heavier trees.
    let max_tokens = if mode == "strip" {
        crate::tools::markup::html_scan::MAX_TOKENS
    } else {
        crate::tools::markup::html_scan::MAX_RENDER_TOKENS
    };
    crate::tools::markup::html_scan::check(input, max_tokens)?;
    if mode == "strip" {
        let output = strip_tags(input);
        return Ok(json!({ "output": output, "mode": mode }));
    }
    let width = match args.usize("width")? {
        0 => NO_WRAP_WIDTH,
        w if w < 10 => {
            return Err(ToolError::invalid(format!(
                "width {w} is too narrow: use at least 10 columns, or 0 for no wrapping"
            )));
        }
        w => w,
    };
    let links = match args.str("links")? {
        "inline" => Links::Inline,
        "none" => Links::Hidden,
        _ => Links::Footnotes,
    };
    let decor = Decor {
        markdown: mode == "markdown",
        links,
        images: args.flag("images"),
        open_links: Vec::new(),
    };
    let config = html2text::config::with_decorator(decor)
        .link_footnotes(links == Links::Footnotes)
        .no_link_wrapping();
    let text = config
        .string_from_read(input.as_bytes(), width)
        .map_err(|e| match e {
            html2text::Error::TooNarrow => ToolError::invalid(format!(
                "width {width} is too narrow for the nesting in this HTML; use a larger width"
            )),
            other => ToolError::execution(format!("HTML rendering failed: {other}")),
        })?;
    let output: Vec<&str> = text.lines().map(str::trim_end).collect();
    Ok(json!({ "output": output.join("\n").trim_matches('\n'), "mode": mode }))
}

/// Text content only: every text node in document order, whitespace as written, except inside
/// elements that hold no readable text (`script`, `style`, `template`, `noscript`). A line break
/// separates block elements so that words from adjacent paragraphs or list items do not merge.
fn strip_tags(input: &str) -> String {
    const BLOCKS: &[&str] = &[
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "td",
        "th",
        "title",
        "tr",
        "ul",
    ];
    let html = parse_html(input);
    let mut out = String::new();
    let break_line = |out: &mut String| {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
    };
    // (node, closing): an explicit stack, since deeply nested HTML would overflow recursion.
    let mut stack = vec![(html.tree.root(), false)];
    while let Some((node, closing)) = stack.pop() {
        match node.value() {
            Node::Text(text) => out.push_str(text),
            Node::Element(e) => {
                let name = e.name();
                if matches!(name, "script" | "style" | "template" | "noscript") {
                    continue;
                }
                if BLOCKS.contains(&name) {
                    break_line(&mut out);
                }
                if !closing {
                    stack.push((node, true));
                    stack.extend(node.children().rev().map(|c| (c, false)));
                }
            }
            _ if !closing => stack.extend(node.children().rev().map(|c| (c, false))),
            _ => {}
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err, run_ok};
    use serde_json::json;

    const PAGE: &str = r#"<ul id="menu">
  <li class="item active"><a href="/home">Home</a></li>
  <li class="item"><a href="/about" title="About us">About</a></li>
  <li class="item"><a href="https://example.com/">Example</a></li>
</ul>
<p>Intro <b>text</b></p>"#;

    fn select(selector: &str) -> serde_json::Value {
        run_ok(
            "css-selector-tester",
            json!({"input": PAGE, "selector": selector}),
        )
    }

    #[test]
    fn selector_matches_with_details() {
        let data = select("li.item > a");
        assert_eq!(data["count"], 3);
        assert_eq!(data["output"], "Home\nAbout\nExample");
        assert_eq!(
            data["matches"][1],
            json!({"tag": "a", "attributes": {"href": "/about", "title": "About us"}, "text": "About", "html": "<a href=\"/about\" title=\"About us\">About</a>"})
        );
        assert_eq!(select("li.active")["count"], 1);
        assert_eq!(select("#menu li:nth-child(2) a")["output"], "About");
        assert_eq!(select("p")["matches"][0]["text"], "Intro text");
    }

    #[test]
    fn selector_attribute_values() {
        let data = run_ok(
            "css-selector-tester",
            json!({"input": PAGE, "selector": "a[href^=\"http\"], a[title]", "attribute": "href"}),
        );
        assert_eq!(data["output"], "/about\nhttps://example.com/");
        assert_eq!(data["matches"][0]["value"], "/about");
        assert_eq!(select("table")["count"], 0);
    }

    #[test]
    fn selector_document_parsing() {
        let doc = "<!DOCTYPE html><html><head><title>T</title></head><body><p>x</p></body></html>";
        let data = run_ok(
            "css-selector-tester",
            json!({"input": doc, "selector": "head > title"}),
        );
        assert_eq!(data["output"], "T");
    }

    #[test]
    fn selector_errors() {
        let (code, msg) = run_err(
            "css-selector-tester",
            json!({"input": PAGE, "selector": "li..item"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("invalid CSS selector 'li..item'"), "{msg}");
        let (code, _) = run_err(
            "css-selector-tester",
            json!({"input": PAGE, "selector": "a[href=]"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    const ARTICLE: &str = "<html><head><title>T</title><style>p{color:red}</style></head><body>\
<h1>Title</h1><p>Fish &amp; chips &mdash; <em>hot</em>, <a href=\"https://example.com/\">see here</a>.</p>\
<ul><li>One</li><li>Two</li></ul><ol><li>First</li><li>Second</li></ol>\
<img src=\"cat.png\" alt=\"A cat\"><script>alert(1)</script></body></html>";

    #[test]
    fn text_plain_with_footnotes() {
        assert_eq!(
            output_with("html-to-text", ARTICLE, json!({})),
            "Title\n\nFish & chips — hot, see here[1].\n* One\n* Two\n1. First\n2. Second\n\n[A cat]\n\n[1]: https://example.com/"
        );
    }

    #[test]
    fn text_markdown_inline_links_and_no_images() {
        assert_eq!(
            output_with(
                "html-to-text",
                ARTICLE,
                json!({"mode": "markdown", "links": "inline", "images": false})
            ),
            "# Title\n\nFish & chips — *hot*, [see here](https://example.com/).\n* One\n* Two\n1. First\n2. Second"
        );
        assert_eq!(
            output_with(
                "html-to-text",
                "<p><a href=\"/x\">x</a> and <code>y</code></p>",
                json!({"links": "none"})
            ),
            "x and y"
        );
    }

    #[test]
    fn text_wrapping_and_strip_mode() {
        let p = "<p>The quick brown fox jumps over the lazy dog</p>";
        assert_eq!(
            output_with("html-to-text", p, json!({"width": 20})),
            "The quick brown fox\njumps over the lazy\ndog"
        );
        assert_eq!(
            output_with("html-to-text", ARTICLE, json!({"mode": "strip"})),
            "T\nTitle\nFish & chips — hot, see here.\nOne\nTwo\nFirst\nSecond"
        );
        let (code, _) = run_err("html-to-text", json!({"input": p, "width": 5}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn nesting_is_limited_with_one_message() {
        use crate::tools::kit::depth::MAX_DEPTH;
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = nest("<div>", "x", "</div>", 1_000_000);
        assert_too_deep(
            "css-selector-tester",
            json!({"input": deep, "selector": "div"}),
            "input",
            MAX_DEPTH,
        );
        for mode in ["plain", "markdown", "strip"] {
            assert_too_deep(
                "html-to-text",
                json!({"input": deep, "mode": mode}),
                "input",
                MAX_DEPTH,
            );
        }
        let selector = nest(":not(", "a", ")", 1_000_000);
        let args = json!({"input": "<a></a>", "selector": selector});
        assert_too_deep(
            "css-selector-tester",
            args,
            "selector",
            super::SELECTOR_DEPTH,
        );
        // Just under: html, body and 509 divs make 512 levels.
        let ok = nest("<div>", "x", "</div>", MAX_DEPTH - 3);
        let d = run_ok(
            "css-selector-tester",
            json!({"input": ok, "selector": "div div div"}),
        );
        assert_eq!(d["count"], MAX_DEPTH - 5);
        let d = run_ok("html-to-text", json!({"input": ok, "mode": "strip"}));
        assert_eq!(d["output"], "x");
        // 75 negations of `a`: every element but a, here the fragment's html root and the p.
        let selector = nest(":not(", "a", ")", super::SELECTOR_DEPTH);
        let d = run_ok(
            "css-selector-tester",
            json!({"input": "<p>x</p>", "selector": selector}),
        );
        assert_eq!(d["count"], 2);
    }

    #[test]
    fn nested_matches_stay_within_the_output_limit() {
        let (code, msg) = run_err(
            "css-selector-tester",
            json!({"input": "<p>x</p>".repeat(100_001), "selector": "p"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "the selector matches 100001 elements; css-selector-tester lists at most 100000: narrow it"
        );
    }
}
