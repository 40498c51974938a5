//! CSS beautifier and minifier: lightningcss's parser checks the stylesheet (errors with line
//! and column), and `css_layout` writes it, changing whitespace and comments only.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use crate::tools::kit::{budget, depth};
use lightningcss::stylesheet::{ParserOptions, StyleSheet};
use serde_json::json;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("css-formatter", css_formatter)];

/// CSS brackets, strings and comments, for the checks that run before lightningcss's
/// recursive parser; a printer breaks lines after `{`, `;` and `}`.
const CSS_SYNTAX: depth::Syntax = depth::Syntax {
    open: b"{([",
    close: b"})]",
    quotes: b"'\"",
    escapes: true,
    block_comments: true,
    interpolation: false,
    line_breaks: b"{;}",
};

/// Rules and declarations (counted as the `{`, `;` and `}` that end them) lightningcss may
/// hold: its stylesheet keeps close to a kilobyte for each.
const MAX_ITEMS: usize = 500_000;

fn css_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let shape = depth::check("input", input, &CSS_SYNTAX, depth::MAX_DEPTH)?;
    if shape.lines > MAX_ITEMS {
        return Err(budget::too_many_of(
            MAX_ITEMS,
            "the stylesheet",
            "rules and declarations",
            "split it into smaller stylesheets",
        ));
    }
    let unit = match args.str("indent")? {
        "4" => 4,
        _ => 2,
    };
    let beautified = input.len() + shape.lines + shape.indents * unit;
    if args.str("mode")? != "minify" && beautified > budget::output_ceiling() {
        return Err(budget::output_too_large(
            "the formatted CSS",
            "each level of nesting indents its lines further: minify it, or format a smaller piece",
        ));
    }
    depth::with_stack(|| format_css(input, args))
}

fn format_css(input: &str, args: &Args) -> ToolOutcome {
    let mode = args.str("mode")?;
    StyleSheet::parse(input, ParserOptions::default()).map_err(|e| {
        let what = e.kind.to_string();
        match &e.loc {
            // lightningcss counts lines from 0 and columns from 1.
            Some(loc) => ToolError::invalid(format!(
                "invalid CSS at line {}, column {}: {what}",
                loc.line + 1,
                loc.column
            )),
            None => ToolError::invalid(format!("invalid CSS: {what}")),
        }
    })?;
    let unit = match (mode, args.str("indent")?) {
        ("minify", _) => None,
        (_, "4") => Some("    "),
        (_, "tab") => Some("\t"),
        _ => Some("  "),
    };
    let source = input.strip_prefix('\u{feff}').unwrap_or(input);
    let output = crate::tools::markup::css_layout::layout(source, unit);
    let sizes = json!({
        "mode": mode,
        "originalSize": input.len(),
        "outputSize": output.len(),
    });
    Ok(crate::tools::kit::data::with_output(output, sizes))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err};
    use serde_json::json;

    #[test]
    fn minify_keeps_values_as_written() {
        assert_eq!(
            output_with(
                "css-formatter",
                "a { color: #ff0000; }",
                json!({"mode": "minify"})
            ),
            "a{color:#ff0000}"
        );
        assert_eq!(
            output_with(
                "css-formatter",
                "/* header */\nh1 , h2 {\n  margin : 0px 0px 0px 0px ;\n  font-weight: bold;\n}\n",
                json!({"mode": "minify"})
            ),
            "h1,h2{margin:0px 0px 0px 0px;font-weight:bold}"
        );
    }

    #[test]
    fn beautify_keeps_media_queries_and_colours() {
        assert_eq!(
            output_with(
                "css-formatter",
                "body{margin:0;padding:0}@media (max-width:600px){.nav{display:none;color:#FF0000}}",
                json!({})
            ),
            "body {\n  margin: 0;\n  padding: 0;\n}\n\n@media (max-width:600px) {\n  .nav {\n    display: none;\n    color: #FF0000;\n  }\n}"
        );
        assert_eq!(
            output_with(
                "css-formatter",
                "/* Buttons */\n.btn{color:rgb(255 0 0 / 50%)}\n/* Links */\na:hover , a:focus{text-decoration:underline}",
                json!({})
            ),
            "/* Buttons */\n.btn {\n  color: rgb(255 0 0 / 50%);\n}\n\n/* Links */\na:hover , a:focus {\n  text-decoration: underline;\n}"
        );
    }

    #[test]
    fn beautify_nesting_and_indent_units() {
        let css = ".card{color:blue;&:hover{color:navy}.title{font-size:2em}}";
        assert_eq!(
            output_with("css-formatter", css, json!({})),
            ".card {\n  color: blue;\n\n  &:hover {\n    color: navy;\n  }\n\n  .title {\n    font-size: 2em;\n  }\n}"
        );
        assert_eq!(
            output_with("css-formatter", "a{b:c}", json!({"indent": "tab"})),
            "a {\n\tb: c;\n}"
        );
        assert_eq!(
            output_with(
                "css-formatter",
                "@media print{a{b:c}}",
                json!({"indent": "4"})
            ),
            "@media print {\n    a {\n        b: c;\n    }\n}"
        );
    }

    #[test]
    fn invalid_css_names_line_and_column() {
        let (code, msg) = run_err(
            "css-formatter",
            json!({"input": "a {\n  color: red;\n}\n}b{"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("invalid CSS at line 4, column 1"), "{msg}");
    }

    #[test]
    fn nesting_is_limited_with_one_message() {
        use crate::tools::kit::depth::MAX_DEPTH;
        use crate::tools::kit::testing::{assert_too_deep, nest};
        for deep in [
            nest("a{", "", "}", 1_000_000),
            nest("@media screen{", "", "}", 1_000_000),
            format!("a{{width:{}}}", nest("calc(", "1px", ")", 1_000_000)),
        ] {
            for mode in ["beautify", "minify"] {
                assert_too_deep(
                    "css-formatter",
                    json!({"input": deep, "mode": mode}),
                    "input",
                    MAX_DEPTH,
                );
            }
        }
        // Just under: 512 levels of brackets (a rule and 511 parentheses).
        let ok = format!("a{{width:{}}}", nest("calc(", "1px", ")", MAX_DEPTH - 1));
        let out = output_with("css-formatter", &ok, json!({"mode": "minify"}));
        assert_eq!(out, ok);
    }
}
