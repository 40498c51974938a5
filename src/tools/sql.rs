//! sql-formatter: lays SQL out on lines with a dialect-aware tokenizer (`sql/lex.rs`) and a
//! layout that moves only whitespace and re-cases only keywords (`sql/layout.rs`).
//!
//! It replaced the sqlformat crate, whose tokenizer changed what statements mean (split
//! `3.5E12` and `U&'…'`, reformatted `$$` bodies, took `e.end` for END and `#temp` for a
//! comment). The property test in `sql/property.rs` checks the invariant on generated and
//! hand-collected statements: the output's tokens are the input's.

mod keywords;
mod layout;
mod lex;
#[cfg(test)]
mod property;

use super::ToolFn;
use super::args::Args;
use crate::ctp::{ToolError, ToolOutcome};
use layout::{KeywordCase, Options};
use lex::Dialect;
use serde_json::json;

pub const TOOLS: &[(&str, ToolFn)] = &[("sql-formatter", sql_formatter)];

fn sql_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if input.trim().is_empty() {
        return Err(ToolError::invalid(
            "input is empty: expected SQL such as 'select * from users'",
        ));
    }
    let options = Options {
        indent: match args.str("indent")? {
            "4" => "    ",
            "tab" => "\t",
            _ => "  ",
        },
        case: match args.str("keywordCase")? {
            "upper" => KeywordCase::Upper,
            "lower" => KeywordCase::Lower,
            _ => KeywordCase::Preserve,
        },
        lines_between: args.usize("linesBetweenQueries")?.clamp(1, 5),
        minify: args.str("mode")? == "minify",
        leading_commas: args.opt_str("commaPosition") == Some("leading"),
        dialect: Dialect::from_name(args.str("dialect")?),
    };
    let output = layout::format(input, &options)?;
    Ok(json!({ "output": output }))
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
            "SELECT\n  arr[1],\n  x::INT\nFROM\n  t"
        );
    }

    #[test]
    fn numbers_unicode_and_dollar_strings_stay_whole() {
        assert_eq!(
            format("select 3.5E12, 1e-3, .5E+2 from t", json!({})),
            "SELECT\n  3.5E12,\n  1e-3,\n  .5E+2\nFROM\n  t"
        );
        assert_eq!(
            format(
                "select U&'d\\0061t', U&\"x\" from t",
                json!({"dialect": "postgresql"})
            ),
            "SELECT\n  U&'d\\0061t',\n  U&\"x\"\nFROM\n  t"
        );
        assert_eq!(
            format(
                "select $$ a   b $$, $fn$ select  1; $fn$",
                json!({"dialect": "postgresql"})
            ),
            "SELECT\n  $$ a   b $$,\n  $fn$ select  1; $fn$"
        );
    }

    #[test]
    fn names_after_a_dot_and_names_that_look_like_keywords_keep_their_case() {
        assert_eq!(
            format("select e.end, e.select from events e", json!({})),
            "SELECT\n  e.end,\n  e.select\nFROM\n  events e"
        );
        // MySQL table names are case-sensitive: `events`, `user` and `data` are names.
        assert_eq!(
            format(
                "select data, name from user join events on user.id = events.uid",
                json!({"dialect": "mysql"})
            ),
            "SELECT\n  data,\n  name\nFROM\n  user\n  JOIN events ON user.id = events.uid"
        );
    }

    #[test]
    fn joins_values_and_ctes_are_laid_out_whole() {
        assert_eq!(
            format(
                "select * from a natural join b natural left outer join c",
                json!({})
            ),
            "SELECT\n  *\nFROM\n  a\n  NATURAL JOIN b\n  NATURAL LEFT OUTER JOIN c"
        );
        assert_eq!(
            format("insert into t (a,b) values (1,2),(3,4)", json!({})),
            "INSERT INTO\n  t (a, b)\nVALUES\n  (1, 2),\n  (3, 4)"
        );
        assert_eq!(
            format("with a as (select 1 from x) select * from a", json!({})),
            "WITH\n  a AS (\n    SELECT\n      1\n    FROM\n      x\n  )\nSELECT\n  *\nFROM\n  a"
        );
    }

    #[test]
    fn dialect_quoting_and_comment_rules() {
        // T-SQL: #temp is a table, [..] a name.
        assert_eq!(
            format(
                "select [a b] from #temp where x = @p",
                json!({"dialect": "sqlserver"})
            ),
            "SELECT\n  [a b]\nFROM\n  #temp\nWHERE\n  x = @p"
        );
        // MySQL: # starts a comment, backslash escapes a quote.
        assert_eq!(
            format("select 'a\\'b' # note\nfrom t", json!({"dialect": "mysql"})),
            "SELECT\n  'a\\'b' # note\nFROM\n  t"
        );
        // Oracle q-quotes; BigQuery triple-quoted strings.
        assert_eq!(
            format("select q'[it's]' from dual", json!({"dialect": "plsql"})),
            "SELECT\n  q'[it's]'\nFROM\n  dual"
        );
        assert_eq!(
            format("select '''a ' b''' from t", json!({"dialect": "bigquery"})),
            "SELECT\n  '''a ' b'''\nFROM\n  t"
        );
        let (code, msg) = run_err(
            "sql-formatter",
            json!({"input": "select 'open", "dialect": "generic"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("unterminated ' string starting at line 1, column 8"),
            "{msg}"
        );
    }

    #[test]
    fn leading_commas() {
        assert_eq!(
            format("select a, b from t", json!({"commaPosition": "leading"})),
            "SELECT\n  a\n  , b\nFROM\n  t"
        );
    }

    #[test]
    fn deep_nesting_ends_with_a_clear_error_at_the_limit() {
        let deep = |n: usize| format!("select {}1{}", "(".repeat(n), ")".repeat(n));
        let (code, msg) = run_err("sql-formatter", json!({"input": deep(1_000_000)}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("more than 512 levels deep at line 1, column 520"),
            "{msg}"
        );
        // Just under the limit (512 parentheses) formats, on one line as it has no list.
        assert_eq!(
            format(&deep(512), json!({})),
            format!("SELECT\n  {}1{}", "(".repeat(512), ")".repeat(512))
        );
        let cases = format!(
            "select {}1{}",
            "case when a then ".repeat(600),
            " end".repeat(600)
        );
        let (code, msg) = run_err("sql-formatter", json!({"input": cases}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("the formatter's limit is 512 levels"), "{msg}");
    }
}
