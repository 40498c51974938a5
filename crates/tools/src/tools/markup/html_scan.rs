//! The depth and size check that HTML passes before a tree builder sees it.
//!
//! html5ever's tree builder nests elements as deep as the markup asks (a million unclosed
//! `<div>`s make a million levels) and checks scopes by walking its stack of open elements,
//! so deep input costs quadratic time before anything recursive runs over the tree. This scan
//! runs html5ever's tokenizer alone (linear, exact about comments, attributes and raw text) and
//! follows the tree builder's main nesting rules: void elements, end tags that close up to the
//! matching element within its scope, elements that close an open one of their kind (`li`,
//! `p`, table cells), and self-closing tags in SVG and MathML. It stops at the first element
//! deeper than [`MAX_DEPTH`], as browsers do (Blink's parser flattens the tree at 512).

use crate::ctp::ToolError;
use crate::tools::kit::budget::{self, MAX_VALUES};
use crate::tools::kit::depth::{self, MAX_DEPTH};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use std::cell::RefCell;

/// The tokenizer is fed in pieces of this size, so that it stops soon after the limit.
const PIECE: usize = 64 << 10;

/// html, head and body, which the tree builder adds around content.
const IMPLIED: usize = 3;

const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img",
    "input", "keygen", "link", "meta", "param", "source", "track", "wbr",
];

/// Where the search for an open element to close stops (the "default scope" boundaries).
const SCOPE: &[&str] = &[
    "applet", "caption", "html", "table", "td", "th", "marquee", "object", "template", "svg",
    "math",
];

/// The default scope and `button`: where an open `p` stops being closable.
const BUTTON_SCOPE: &[&str] = &[
    "applet", "caption", "html", "table", "td", "th", "marquee", "object", "template", "svg",
    "math", "button",
];

/// Start tags that close an open `p` in button scope.
const CLOSES_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
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
    "hgroup",
    "hr",
    "li",
    "dd",
    "dt",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "search",
    "section",
    "summary",
    "table",
    "ul",
    "xmp",
    "plaintext",
];

/// End tags of ordinary elements stop at these when looking for their element.
const SPECIAL: &[&str] = &[
    "address",
    "applet",
    "area",
    "article",
    "aside",
    "base",
    "basefont",
    "bgsound",
    "blockquote",
    "body",
    "br",
    "button",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dir",
    "div",
    "dl",
    "dt",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "iframe",
    "img",
    "input",
    "keygen",
    "li",
    "link",
    "listing",
    "main",
    "marquee",
    "menu",
    "meta",
    "nav",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "p",
    "param",
    "plaintext",
    "pre",
    "script",
    "search",
    "section",
    "select",
    "source",
    "style",
    "summary",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
    "wbr",
    "xmp",
];

#[derive(Default)]
struct State {
    open: Vec<String>,
    tokens: usize,
    max_tokens: usize,
    /// Set once a limit is passed; the scan then ignores the rest.
    failed: Option<ToolError>,
}

struct Sink(RefCell<State>);

impl State {
    /// Closes up to and including the innermost `names` element found before a `stop` element.
    fn close(&mut self, names: &[&str], stop: &[&str]) {
        for i in (0..self.open.len()).rev() {
            let name = self.open[i].as_str();
            if names.contains(&name) {
                self.open.truncate(i);
                return;
            }
            if stop.contains(&name) {
                return;
            }
        }
    }

    fn start(&mut self, tag: &Tag, line: u64) {
        let name = tag.name.as_ref();
        let foreign = self.open.iter().any(|n| n == "svg" || n == "math");
        if VOID.contains(&name) || (foreign && tag.self_closing) {
            return;
        }
        match name {
            "li" => self.close(&["li"], &["ol", "ul", "menu"]),
            "dt" | "dd" => self.close(&["dt", "dd"], &["dl"]),
            "option" | "optgroup" => self.close(&["option"], &["select", "datalist"]),
            "tr" => self.close(&["tr"], &["table"]),
            "td" | "th" => self.close(&["td", "th"], &["tr", "table"]),
            "thead" | "tbody" | "tfoot" => self.close(&["thead", "tbody", "tfoot"], &["table"]),
            _ => {}
        }
        if CLOSES_P.contains(&name) {
            self.close(&["p"], BUTTON_SCOPE);
        }
        self.open.push(name.to_string());
        if self.open.len() + IMPLIED > MAX_DEPTH {
            let place = depth::Place::Line(usize::try_from(line).unwrap_or(usize::MAX));
            self.failed = Some(depth::too_deep("input", MAX_DEPTH, place));
        }
    }

    fn end(&mut self, tag: &Tag) {
        let name = tag.name.as_ref();
        if SPECIAL.contains(&name) {
            self.close(&[name], SCOPE);
        } else {
            self.close(&[name], SPECIAL);
        }
    }
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<()> {
        let mut state = self.0.borrow_mut();
        if state.failed.is_some() {
            return TokenSinkResult::Continue;
        }
        state.tokens += 1;
        if state.tokens > state.max_tokens {
            state.failed = Some(budget::too_many_of(
                state.max_tokens,
                "the HTML",
                "nodes (elements and runs of text)",
                "this tool holds the whole document in memory: split the input",
            ));
            return TokenSinkResult::Continue;
        }
        let Token::TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        if tag.kind == TagKind::EndTag {
            state.end(&tag);
            return TokenSinkResult::Continue;
        }
        state.start(&tag, line);
        // The tree builder switches the tokenizer into raw text after these; so must we, or
        // `<script>"<div>"</script>` would count as a div.
        match tag.name.as_ref() {
            _ if tag.self_closing => TokenSinkResult::Continue,
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }
}

/// Tokens (tags and runs of text) css-selector-tester may hold as a tree: scraper keeps about
/// a hundred bytes per node.
pub(crate) const MAX_TOKENS: usize = MAX_VALUES;
/// Tokens html-to-text may hold: html2text keeps its own DOM and a render tree, about 700
/// bytes per token.
pub(crate) const MAX_RENDER_TOKENS: usize = 500_000;

/// Refuses HTML whose elements would nest deeper than [`MAX_DEPTH`] levels, or that has more
/// than `max_tokens` tokens.
pub(crate) fn check(input: &str, max_tokens: usize) -> Result<(), ToolError> {
    let state = State {
        max_tokens,
        ..State::default()
    };
    let tokenizer = Tokenizer::new(Sink(RefCell::new(state)), TokenizerOpts::default());
    let queue = BufferQueue::default();
    let mut rest = input;
    while !rest.is_empty() {
        let mut cut = rest.len().min(PIECE);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        queue.push_back(StrTendril::from_slice(&rest[..cut]));
        rest = &rest[cut..];
        let _ = tokenizer.feed(&queue);
        if let Some(e) = tokenizer.sink.0.borrow_mut().failed.take() {
            return Err(e);
        }
    }
    tokenizer.end();
    match tokenizer.sink.0.borrow_mut().failed.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_of(html: &str) -> usize {
        let state = State {
            max_tokens: MAX_TOKENS,
            ..State::default()
        };
        let tokenizer = Tokenizer::new(Sink(RefCell::new(state)), TokenizerOpts::default());
        let queue = BufferQueue::default();
        queue.push_back(StrTendril::from_slice(html));
        let _ = tokenizer.feed(&queue);
        let mut state = tokenizer.sink.0.borrow_mut();
        std::mem::take(&mut state.open).len()
    }

    #[test]
    fn follows_the_tree_builders_nesting() {
        assert_eq!(depth_of("<div><div><span>"), 3);
        assert_eq!(depth_of("<div><br><img src=x><div></div>"), 1);
        assert_eq!(depth_of("<ul><li>a<li>b<li>c"), 2);
        assert_eq!(depth_of("<p>a<p>b<div>c"), 1);
        assert_eq!(depth_of("<table><tr><td>a<td>b<tr><td>c"), 3);
        // Self-closing only means something in SVG and MathML.
        assert_eq!(depth_of("<div/><div/>"), 2);
        assert_eq!(depth_of("<svg><path/><path/></svg><b>"), 1);
        // Markup inside raw text, comments and attributes is text.
        assert_eq!(
            depth_of("<script>'<div><div>'</script><!-- <div> --><a title='<b>'>"),
            1
        );
        // An end tag does not close past a table cell.
        assert_eq!(depth_of("<div><table><tr><td></div>"), 4);
    }

    #[test]
    fn stops_at_the_limit_with_the_line() {
        let deep = "<div>\n".repeat(MAX_DEPTH);
        let e = check(&deep, MAX_TOKENS).unwrap_err();
        assert!(
            e.message.starts_with(&format!(
                "input nests deeper than {MAX_DEPTH} levels (at line {})",
                MAX_DEPTH - IMPLIED + 1
            )),
            "{}",
            e.message
        );
        assert!(check(&"<div>".repeat(MAX_DEPTH - IMPLIED), MAX_TOKENS).is_ok());
        let e = check(&"<p>x</p>".repeat(10), 20).unwrap_err();
        assert!(
            e.message.starts_with("the HTML has more than 20 nodes"),
            "{}",
            e.message
        );
    }
}
