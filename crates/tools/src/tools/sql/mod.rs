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

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use layout::{KeywordCase, Options};
use lex::Dialect;
use serde_json::json;

pub(super) const TOOLS: &[Tool] = &[Tool::new("sql-formatter", sql_formatter)];

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
    use crate::tools::kit::testing::run_err;
    use serde_json::json;

    fn format(input: &str, extra: serde_json::Value) -> String {
        crate::tools::kit::testing::output_with("sql-formatter", input, extra)
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

    // Issue 37 item 19: the expected texts below are the JS sql-formatter's (npm
    // `sql-formatter` 15.9, tabWidth 2, keywordCase upper) for the same input, unless a
    // comment names a difference. `stable` also checks that formatting them again keeps them.
    fn stable(input: &str, extra: serde_json::Value) -> String {
        let once = format(input, extra.clone());
        assert_eq!(format(&once, extra), once, "formatting again changed it");
        once
    }

    #[test]
    fn fetch_first_and_offset_rows_are_clauses() {
        assert_eq!(
            stable(
                "select a from t order by a offset 10 rows fetch first 5 rows only",
                json!({})
            ),
            "SELECT\n  a\nFROM\n  t\nORDER BY\n  a\nOFFSET\n  10 ROWS\nFETCH FIRST\n  5 ROWS ONLY"
        );
        assert_eq!(
            stable(
                "select a from t where b = 1 offset 5 rows fetch next 10 rows only",
                json!({})
            ),
            "SELECT\n  a\nFROM\n  t\nWHERE\n  b = 1\nOFFSET\n  5 ROWS\nFETCH NEXT\n  10 ROWS ONLY"
        );
        assert_eq!(
            stable(
                "select a from t order by a offset 10 row fetch next 1 row only",
                json!({})
            ),
            "SELECT\n  a\nFROM\n  t\nORDER BY\n  a\nOFFSET\n  10 ROW\nFETCH NEXT\n  1 ROW ONLY"
        );
        // JS splits WITH TIES off as a WITH clause; it belongs to FETCH.
        assert_eq!(
            stable(
                "select a from t order by a fetch first 5 rows with ties",
                json!({})
            ),
            "SELECT\n  a\nFROM\n  t\nORDER BY\n  a\nFETCH FIRST\n  5 ROWS WITH TIES"
        );
        // MySQL may name a column `offset`; without a count after it, it stays a name.
        assert_eq!(
            stable(
                "select a from t where offset > 1",
                json!({"dialect": "mysql"})
            ),
            "SELECT\n  a\nFROM\n  t\nWHERE\n  offset > 1"
        );
    }

    #[test]
    fn full_outer_and_other_joins_that_start_a_line_stay_whole() {
        assert_eq!(
            stable(
                "select * from a\nfull outer join b on a.id = b.id\nfull join c on c.id = a.id\n\
                 left outer join d on d.id = a.id\nright outer join e on e.id = a.id\n\
                 cross join f\nnatural full outer join g\ninner join h on h.id = a.id",
                json!({})
            ),
            "SELECT\n  *\nFROM\n  a\n  FULL OUTER JOIN b ON a.id = b.id\n  FULL JOIN c ON c.id = a.id\n  \
             LEFT OUTER JOIN d ON d.id = a.id\n  RIGHT OUTER JOIN e ON e.id = a.id\n  \
             CROSS JOIN f\n  NATURAL FULL OUTER JOIN g\n  INNER JOIN h ON h.id = a.id"
        );
        // The reproduction: FULL at the start of a line was left on the line before.
        assert_eq!(
            stable(
                "select * from a\nfull\nouter join b on a.id = b.id",
                json!({"dialect": "postgresql"})
            ),
            "SELECT\n  *\nFROM\n  a\n  FULL OUTER JOIN b ON a.id = b.id"
        );
        // Spark's LEFT SEMI JOIN (JS leaves SEMI behind as an alias).
        assert_eq!(
            stable("select * from a left semi join b on a.x=b.x", json!({})),
            "SELECT\n  *\nFROM\n  a\n  LEFT SEMI JOIN b ON a.x = b.x"
        );
        // MySQL has no FULL JOIN: `full` is the alias of `a` there, as JS's mysql reads it.
        assert_eq!(
            stable(
                "select * from a full join b on a.id = b.id",
                json!({"dialect": "mysql"})
            ),
            "SELECT\n  *\nFROM\n  a full\n  JOIN b ON a.id = b.id"
        );
    }

    #[test]
    fn functions_named_like_clause_keywords_are_calls() {
        // JS's sql and postgresql languages make clauses of WINDOW and VALUES here; its
        // mysql language keeps the names' case, where cmpx re-cases reserved words.
        assert_eq!(
            stable(
                "select window(a), values(b), left(c, 2), right(d, 3), replace(e, 'a', 'b') from t",
                json!({})
            ),
            "SELECT\n  WINDOW(a),\n  VALUES(b),\n  LEFT(c, 2),\n  RIGHT(d, 3),\n  replace(e, 'a', 'b')\nFROM\n  t"
        );
        assert_eq!(
            stable("select values(b) from t", json!({})),
            "SELECT\n  VALUES(b)\nFROM\n  t"
        );
        assert_eq!(
            stable("select coalesce(values(a), 0) from t", json!({})),
            "SELECT\n  coalesce(VALUES(a), 0)\nFROM\n  t"
        );
        // A VALUES row list in parentheses is still a query.
        assert_eq!(
            stable("select * from (values (1,2),(3,4)) v (a,b)", json!({})),
            "SELECT\n  *\nFROM\n  (\n    VALUES\n      (1, 2),\n      (3, 4)\n  ) v (a, b)"
        );
        assert_eq!(
            stable(
                "insert into t (a) values (1) on duplicate key update a = values(a)",
                json!({"dialect": "mysql"})
            ),
            "INSERT INTO\n  t (a)\nVALUES\n  (1)\nON DUPLICATE KEY UPDATE\n  a = VALUES(a)"
        );
    }

    #[test]
    fn limit_with_a_comma_or_offset() {
        assert_eq!(
            stable("select a from t limit 5, 10", json!({"dialect": "mysql"})),
            "SELECT\n  a\nFROM\n  t\nLIMIT\n  5, 10"
        );
        // Leading commas leave the pair alone too.
        assert_eq!(
            stable(
                "select a from t limit 5, 10",
                json!({"dialect": "mysql", "commaPosition": "leading"})
            ),
            "SELECT\n  a\nFROM\n  t\nLIMIT\n  5, 10"
        );
        assert_eq!(
            stable(
                "select * from t where x in (select y from u order by y limit 5, 6)",
                json!({"dialect": "mysql"})
            ),
            "SELECT\n  *\nFROM\n  t\nWHERE\n  x IN (\n    SELECT\n      y\n    FROM\n      u\n    \
             ORDER BY\n      y\n    LIMIT\n      5, 6\n  )"
        );
        // JS (every language) makes OFFSET a clause of its own, as cmpx does.
        assert_eq!(
            stable("select a from t limit 5 offset 10", json!({})),
            "SELECT\n  a\nFROM\n  t\nLIMIT\n  5\nOFFSET\n  10"
        );
    }

    #[test]
    fn case_puts_each_when_on_its_own_line() {
        assert_eq!(
            stable(
                "select case x when 1 then 'a' when 2 then 'b' else 'c' end as y from t",
                json!({})
            ),
            "SELECT\n  CASE x\n    WHEN 1 THEN 'a'\n    WHEN 2 THEN 'b'\n    ELSE 'c'\n  END AS y\nFROM\n  t"
        );
        assert_eq!(
            stable("select case when a then 1 else 0 end from t", json!({})),
            "SELECT\n  CASE\n    WHEN a THEN 1\n    ELSE 0\n  END\nFROM\n  t"
        );
        assert_eq!(
            stable(
                "select * from t where a = case x when 1 then 2 else 3 end",
                json!({})
            ),
            "SELECT\n  *\nFROM\n  t\nWHERE\n  a = CASE x\n    WHEN 1 THEN 2\n    ELSE 3\n  END"
        );
        // Deliberate difference: inside a parenthesised group short enough for one line
        // (here a function's arguments) CASE stays on it; JS breaks the group open.
        assert_eq!(
            stable(
                "select coalesce(case when a then 1 end, 0) from t",
                json!({})
            ),
            "SELECT\n  coalesce(CASE WHEN a THEN 1 END, 0)\nFROM\n  t"
        );
    }

    #[test]
    fn alter_table_puts_each_action_on_a_line() {
        // Deliberate difference: cmpx upper-cases data types (they are reserved words).
        assert_eq!(
            stable(
                "alter table t modify a int not null, add column b int",
                json!({"dialect": "mysql"})
            ),
            "ALTER TABLE t\nMODIFY a INT NOT NULL,\nADD COLUMN b INT"
        );
        assert_eq!(
            stable(
                "alter table t change a b int, modify column c varchar(10) after d, add index i (c)",
                json!({"dialect": "mysql"})
            ),
            "ALTER TABLE t\nCHANGE a b INT,\nMODIFY COLUMN c VARCHAR(10) after d,\nADD INDEX i (c)"
        );
        assert_eq!(
            stable(
                "alter table if exists only t rename column a to b",
                json!({"dialect": "postgresql"})
            ),
            "ALTER TABLE IF EXISTS ONLY t\nRENAME COLUMN a TO b"
        );
        // Deliberate difference: JS starts a SET clause inside ALTER COLUMN (`SET\n  NOT
        // NULL`); SET NOT NULL / SET DEFAULT belong to the ALTER COLUMN action.
        assert_eq!(
            stable(
                "alter table t alter column a set not null, drop column b",
                json!({})
            ),
            "ALTER TABLE t\nALTER COLUMN a SET NOT NULL,\nDROP COLUMN b"
        );
        assert_eq!(
            stable(
                "alter table t add column c int, drop column d",
                json!({"commaPosition": "leading"})
            ),
            "ALTER TABLE t\nADD COLUMN c INT\n, DROP COLUMN d"
        );
    }

    #[test]
    fn backslash_escaped_quotes_in_generic_and_mysql_strings() {
        // Generic SQL: `\'` is an escaped quote, as in JS's sql language…
        assert_eq!(
            stable("select 'it\\'s', N'it\\'s', U&'d\\0061t' from t", json!({})),
            "SELECT\n  'it\\'s',\n  N'it\\'s',\n  U&'d\\0061t'\nFROM\n  t"
        );
        // …unless a blank, `,`, `)`, `;` or the end follows it: then the string ends after a
        // backslash, as in standard SQL (JS rejects this input).
        assert_eq!(
            stable("select 'C:\\', 'x' from t", json!({})),
            "SELECT\n  'C:\\',\n  'x'\nFROM\n  t"
        );
        assert_eq!(
            stable(
                "select 'it\\'s', N'it\\'s', \"a\\\"b\" from t",
                json!({"dialect": "mysql"})
            ),
            "SELECT\n  'it\\'s',\n  N'it\\'s',\n  \"a\\\"b\"\nFROM\n  t"
        );
        // MySQL has no U& strings: `U&'…'` is U & '…', as JS's mysql reads it.
        assert_eq!(
            stable("select U&'d\\0061t' from t", json!({"dialect": "mysql"})),
            "SELECT\n  U & 'd\\0061t'\nFROM\n  t"
        );
        // PostgreSQL: standard strings keep backslash plain, E'…' escapes.
        assert_eq!(
            stable(
                "select 'C:\\', E'it\\'s', U&'d\\0061t' from t",
                json!({"dialect": "postgresql"})
            ),
            "SELECT\n  'C:\\',\n  E'it\\'s',\n  U&'d\\0061t'\nFROM\n  t"
        );
        // There `'it\'s'` is the string 'it\' , the name s, and an open string.
        let (code, msg) = run_err(
            "sql-formatter",
            json!({"input": "select 'it\\'s'", "dialect": "postgresql"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("unterminated ' string starting at line 1, column 14"),
            "{msg}"
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
