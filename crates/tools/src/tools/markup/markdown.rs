//! Markdown to HTML (CommonMark with optional GitHub Flavored extensions) via pulldown-cmark.

use crate::ctp::ToolOutcome;
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::{self, Capped};
use crate::tools::kit::tool::Tool;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, html};
use serde_json::Value;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("markdown-to-html", markdown_to_html)];

/// The largest Markdown converted; nothing in pulldown-cmark recurses, so there is no depth
/// limit, but its tree grows with every line.
const MAX_MARKDOWN: usize = 16 << 20;

fn markdown_to_html(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if input.len() > MAX_MARKDOWN {
        return Err(budget::input_too_large(
            "the Markdown",
            input.len(),
            MAX_MARKDOWN,
            "pulldown-cmark keeps the whole document's block tree, up to 40 bytes for each byte of a dense list",
        ));
    }
    let mut options = Options::empty();
    if args.flag("gfm") {
        options |= Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_GFM;
    }
    if args.flag("smartPunctuation") {
        options |= Options::ENABLE_SMART_PUNCTUATION;
    }
    let safe = args.flag("safe");
    let parser =
        Parser::new_ext(input, options).map(|event| if safe { sanitise(event) } else { event });
    // Reference links repeat their destination at every use, so the HTML can outgrow the
    // Markdown many times over: it is built within the output ceiling.
    let mut output = Capped::with_capacity(input.len() * 3 / 2);
    if html::write_html_fmt(&mut output, parser).is_err() || output.over {
        return Err(budget::output_too_large(
            "the HTML",
            "reference links repeat their destination at every use: convert a smaller piece",
        ));
    }
    Ok(crate::tools::kit::data::with_output(
        output.into_string(),
        Value::Null,
    ))
}

/// Safe mode: raw HTML becomes visible text, and script-capable link targets are dropped.
fn sanitise(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url, false),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: safe_url(dest_url, true),
            title,
            id,
        }),
        other => other,
    }
}

/// Browsers ignore ASCII whitespace and control characters inside a scheme, so they are
/// removed before the scheme is compared (the WHATWG URL parser does the same).
fn safe_url(url: CowStr<'_>, image: bool) -> CowStr<'_> {
    let compact: String = url
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .take(32)
        .collect::<String>()
        .to_ascii_lowercase();
    let raster = [
        "data:image/png",
        "data:image/gif",
        "data:image/jpeg",
        "data:image/webp",
    ];
    let dangerous = compact.starts_with("javascript:")
        || compact.starts_with("vbscript:")
        || (compact.starts_with("data:")
            && !(image && raster.iter().any(|r| compact.starts_with(r))));
    if dangerous { CowStr::Borrowed("") } else { url }
}

#[cfg(test)]
mod tests {
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn html(input: &str, extra: serde_json::Value) -> String {
        let mut args = json!({ "input": input });
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        run_ok("markdown-to-html", args)["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    // CommonMark 0.31.2 spec examples (number in the comment).
    #[test]
    fn commonmark_spec_examples() {
        // Example 62 (ATX headings).
        assert_eq!(
            html("# foo\n## foo\n### foo\n", json!({})),
            "<h1>foo</h1>\n<h2>foo</h2>\n<h3>foo</h3>\n"
        );
        // Example 350 (emphasis).
        assert_eq!(html("*foo bar*\n", json!({})), "<p><em>foo bar</em></p>\n");
        // Example 119 (fenced code).
        assert_eq!(
            html("```\n<\n >\n```\n", json!({})),
            "<pre><code>&lt;\n &gt;\n</code></pre>\n"
        );
        // Example 482 (link with title).
        assert_eq!(
            html("[link](/uri \"title\")\n", json!({})),
            "<p><a href=\"/uri\" title=\"title\">link</a></p>\n"
        );
        // Example 148 (raw HTML block passes through by default).
        assert_eq!(
            html(
                "<table><tr><td>\n<pre>\n**Hello**,\n\n_world_.\n</pre>\n</td></tr></table>\n",
                json!({})
            ),
            "<table><tr><td>\n<pre>\n**Hello**,\n<p><em>world</em>.\n</pre></p>\n</td></tr></table>\n"
        );
    }

    // GFM spec examples 198 (table) and 491 (strikethrough), plus task lists. pulldown-cmark
    // puts fewer newlines between table tags than the spec's rendering; the markup is the same.
    #[test]
    fn gfm_extensions() {
        assert_eq!(
            html("| foo | bar |\n| --- | --- |\n| baz | bim |\n", json!({})).replace('\n', ""),
            "<table>\n<thead>\n<tr>\n<th>foo</th>\n<th>bar</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>baz</td>\n<td>bim</td>\n</tr>\n</tbody>\n</table>\n"
                .replace('\n', "")
        );
        assert_eq!(
            html("~~Hi~~ Hello, world!\n", json!({})),
            "<p><del>Hi</del> Hello, world!</p>\n"
        );
        assert!(
            html("- [x] done\n- [ ] todo\n", json!({}))
                .contains("<input disabled=\"\" type=\"checkbox\" checked=\"\"/>")
        );
        // With gfm off, the same table is a plain paragraph.
        assert_eq!(
            html("| a |\n| - |\n", json!({"gfm": false})),
            "<p>| a |\n| - |</p>\n"
        );
        assert_eq!(html("~~Hi~~\n", json!({"gfm": false})), "<p>~~Hi~~</p>\n");
    }

    #[test]
    fn safe_mode_escapes_html_and_drops_script_links() {
        let input = "<script>alert(1)</script>\n\nHi <b>there</b> [x](javascript:alert(1)) [y]( JaVaScRiPt:alert(2))\n";
        let out = html(input, json!({"safe": true}));
        assert!(!out.contains("<script>"), "{out}");
        assert!(
            out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{out}"
        );
        assert!(out.contains("&lt;b&gt;there&lt;/b&gt;"), "{out}");
        assert!(!out.to_lowercase().contains("javascript:"), "{out}");
        assert!(out.contains("<a href=\"\">x</a>"), "{out}");
        // Without safe mode raw HTML is passed through, as CommonMark specifies.
        assert!(html(input, json!({})).contains("<script>alert(1)</script>"));
        // Ordinary links survive safe mode.
        assert_eq!(
            html("[a](https://example.com)", json!({"safe": true})),
            "<p><a href=\"https://example.com\">a</a></p>\n"
        );
    }

    #[test]
    fn smart_punctuation_and_missing_input() {
        assert_eq!(
            html("\"Hello\" -- it's...", json!({"smartPunctuation": true})),
            "<p>\u{201c}Hello\u{201d} \u{2013} it\u{2019}s\u{2026}</p>\n"
        );
        let (code, _) = run_err("markdown-to-html", json!({}));
        assert_eq!(code, crate::ctp::ErrorCode::MissingRequired);
    }

    #[test]
    fn deep_nesting_converts_without_recursion_and_size_is_limited() {
        // pulldown-cmark is iterative: a million nested block quotes convert.
        let deep = ">".repeat(1_000_000) + " x\n";
        let out = html(&deep, json!({}));
        assert_eq!(out.matches("<blockquote>").count(), 1_000_000);
        let big = "- x\n".repeat((16 << 20) / 4 + 1);
        let (code, msg) = run_err("markdown-to-html", json!({"input": big}));
        assert_eq!(code, crate::ctp::ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("the Markdown is 16.0 MiB, more than the 16.0 MiB"),
            "{msg}"
        );
    }
}
