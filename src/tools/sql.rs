//! SQL formatter over the sqlformat crate (a port of sql-formatter-plus).
//!
//! Minify uses sqlformat's inline mode, which joins a statement onto one line without touching
//! strings, quoted identifiers or block comments. A line comment (`--` or `#`) would swallow the
//! rest of a joined line, so minify refuses input that may contain one rather than break it.

use super::ToolFn;
use super::args::Args;
use crate::ctp::{ToolError, ToolOutcome};
use serde_json::json;
use sqlformat::{Dialect, FormatOptions, Indent, QueryParams};

pub const TOOLS: &[(&str, ToolFn)] = &[("sql-formatter", sql_formatter)];

fn sql_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if input.trim().is_empty() {
        return Err(ToolError::invalid(
            "input is empty: expected SQL such as 'select * from users'",
        ));
    }
    let minify = args.str("mode")? == "minify";
    let lines = u8::try_from(args.usize("linesBetweenQueries")?).unwrap_or(u8::MAX);
    let options = FormatOptions {
        indent: match args.str("indent")? {
            "4" => Indent::Spaces(4),
            "tab" => Indent::Tabs,
            _ => Indent::Spaces(2),
        },
        uppercase: match args.str("keywordCase")? {
            "upper" => Some(true),
            "lower" => Some(false),
            _ => None,
        },
        lines_between_queries: if minify { 0 } else { lines },
        inline: minify,
        dialect: match args.str("dialect")? {
            "postgresql" => Dialect::PostgreSql,
            "sqlserver" => Dialect::SQLServer,
            _ => Dialect::Generic,
        },
        ..FormatOptions::default()
    };
    let output = sqlformat::format(input, &QueryParams::None, &options);
    if minify && (output.contains("--") || output.contains('#')) {
        return Err(ToolError::invalid(
            "cannot minify safely: the SQL contains '--' or '#', which may start a line comment that would swallow the rest of the joined line; rewrite line comments as /* ... */ or use mode 'format'",
        ));
    }
    Ok(json!({ "output": output.trim_end() }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::testing::run_err;
    use serde_json::json;

    fn format(input: &str, extra: serde_json::Value) -> String {
        crate::tools::testing::output_with("sql-formatter", input, extra)
    }

    // sqlformat's own test it_converts_keywords_to_uppercase_when_option_passed_in.
    #[test]
    fn uppercases_keywords_like_sqlformat_test() {
        let out = format(
            "select distinct * frOM foo left join bar WHERe cola > 1 and colb = 3",
            json!({}),
        );
        assert_eq!(
            out,
            "SELECT DISTINCT\n  *\nFROM\n  foo\n  LEFT JOIN bar\nWHERE\n  cola > 1\n  AND colb = 3"
        );
        // ...and it_converts_keywords_to_lowercase_when_option_passed_in.
        let out = format(
            "select distinct * frOM foo left join bar WHERe cola > 1 and colb = 3",
            json!({"keywordCase": "lower"}),
        );
        assert_eq!(
            out,
            "select distinct\n  *\nfrom\n  foo\n  left join bar\nwhere\n  cola > 1\n  and colb = 3"
        );
    }

    // sqlformat's it_uses_given_indent_config_for_indentation and
    // it_line_breaks_between_queries_with_config.
    #[test]
    fn indent_and_lines_between_queries() {
        assert_eq!(
            format(
                "SELECT count(*),Column1 FROM Table1;",
                json!({"indent": "4", "keywordCase": "preserve"})
            ),
            "SELECT\n    count(*),\n    Column1\nFROM\n    Table1;"
        );
        assert_eq!(
            format(
                "SELECT * FROM foo; SELECT * FROM bar;",
                json!({"linesBetweenQueries": 2})
            ),
            "SELECT\n  *\nFROM\n  foo;\n\nSELECT\n  *\nFROM\n  bar;"
        );
        assert_eq!(
            format("SELECT a FROM t", json!({"indent": "tab"})),
            "SELECT\n\ta\nFROM\n\tt"
        );
    }

    #[test]
    fn minify_keeps_strings_and_block_comments() {
        let input =
            "SELECT  a,\n  'x  y' AS \"my  col\" /* keep  me */\nFROM t\nWHERE b = 1;\nSELECT 2;";
        assert_eq!(
            format(input, json!({"mode": "minify"})),
            "SELECT a, 'x  y' AS \"my  col\" /* keep  me */ FROM t WHERE b = 1; SELECT 2;"
        );
    }

    #[test]
    fn minify_refuses_line_comments_and_empty_input_is_rejected() {
        let (code, msg) = run_err(
            "sql-formatter",
            json!({"input": "SELECT a -- the a column\nFROM t", "mode": "minify"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("line comment"), "{msg}");
        let (code, _) = run_err("sql-formatter", json!({"input": "   "}));
        assert_eq!(code, ErrorCode::InvalidInput);
        // Formatting (not minifying) keeps line comments on their own line ends.
        assert_eq!(
            format("SELECT a -- the a column\nFROM t", json!({})),
            "SELECT\n  a -- the a column\nFROM\n  t"
        );
    }

    #[test]
    fn postgres_dialect_keeps_array_syntax_and_casts() {
        assert_eq!(
            format(
                "select arr[1], x::int from t",
                json!({"dialect": "postgresql"})
            ),
            "SELECT\n  arr[1],\n  x::int\nFROM\n  t"
        );
    }
}
