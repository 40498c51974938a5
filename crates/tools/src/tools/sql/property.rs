//! The meaning-preservation property of sql-formatter: for generated statements in every
//! dialect and a hand-collected corpus, under every option, the output holds the input's
//! tokens in the input's order, with only keywords allowed to change case.
//!
//! `reference_tokens` is written from the dialects' documentation, separately from `lex.rs`,
//! so that a shared misreading of a rule cannot hide a change of meaning.

mod generate;
mod reference;

use crate::tools::kit::testing::run;
use generate::{Gen, Rng, random_options};
use reference::{Tok, reference_tokens, spec};
use serde_json::{Value, json};

const DIALECTS: &[&str] = &[
    "generic",
    "postgresql",
    "mysql",
    "sqlite",
    "sqlserver",
    "plsql",
    "bigquery",
];

/// Checks one input under one set of options; returns a description of any failure.
fn check(sql: &str, options: &Value, through_executor: bool) -> Result<(), String> {
    let dialect = options["dialect"].as_str().unwrap_or("generic");
    let mut args = options.clone();
    args["input"] = json!(sql);
    let expected = reference_tokens(sql, dialect)?;
    let result: Result<String, String> = if through_executor {
        let r = run("sql-formatter", args);
        match (r.success, r.data) {
            (true, Some(d)) => Ok(d["output"].as_str().unwrap_or_default().to_string()),
            _ => Err(format!("{:?}", r.error)),
        }
    } else {
        // The tool function itself, with every option given explicitly: the executor's own
        // overhead would dominate 35,000 small calls.
        let map = args.as_object().cloned().unwrap_or_default();
        super::sql_formatter(&crate::tools::kit::args::Args::new(&map))
            .map(|d| d["output"].as_str().unwrap_or_default().to_string())
            .map_err(|e| e.message)
    };
    let has_line_comment = expected.iter().any(|t| match t {
        Tok::Exact(s) => s.starts_with("--") || (s.starts_with('#') && spec(dialect).hash_comment),
        Tok::Keyword(_) => false,
    });
    if options["mode"] == "minify" && has_line_comment {
        return if result.is_ok() {
            Err("minify accepted a line comment".into())
        } else {
            Ok(())
        };
    }
    let output = result.map_err(|e| format!("failed: {e}"))?;
    let got = reference_tokens(&output, dialect)?;
    if got != expected {
        let at = got
            .iter()
            .zip(&expected)
            .take_while(|(a, b)| a == b)
            .count();
        return Err(format!(
            "tokens differ at #{at}: got {:?}, expected {:?}\n--- output ---\n{output}",
            got.get(at),
            expected.get(at)
        ));
    }
    let inner_breaks: usize = expected
        .iter()
        .map(|t| match t {
            Tok::Exact(s) => s.matches('\n').count(),
            Tok::Keyword(_) => 0,
        })
        .sum();
    if options["mode"] == "minify" && output.matches('\n').count() > inner_breaks {
        return Err(format!("minify left line breaks:\n{output}"));
    }
    Ok(())
}

/// Statements generated per dialect; each gets random options, so every option value is
/// exercised many times.
const PER_DIALECT: usize = 5_000;

#[test]
fn generated_statements_keep_their_tokens_in_every_dialect() {
    // One thread per dialect: the statements are independent and the machine has cores.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = DIALECTS
            .iter()
            .enumerate()
            .map(|(d, dialect)| scope.spawn(move || generated_failures(d as u64, dialect)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec!["a checker thread panicked".into()])
            })
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} generated statements changed:\n{}",
        failures.len(),
        PER_DIALECT * DIALECTS.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

fn generated_failures(seed: u64, dialect: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let mut gen_ = Gen {
        rng: Rng(0x5eed_0000 + seed),
        dialect,
        depth: 0,
    };
    let mut opt_rng = Rng(0xC0FFEE + seed);
    for k in 0..PER_DIALECT {
        let sql = gen_.decorated();
        let line_comment = sql.contains("--") || sql.contains('#');
        let options = random_options(&mut opt_rng, dialect, line_comment);
        if let Err(e) = check(&sql, &options, false) {
            failures.push(format!("[{dialect} #{k}] {options}\n{sql}\n{e}"));
        }
    }
    failures
}

/// `tests/data/sql-corpus.sql`: blocks separated by `-- @@ <dialect>` lines.
fn corpus() -> Vec<(&'static str, String)> {
    let text = include_str!("../../../../../tests/data/sql-corpus.sql");
    let mut items = Vec::new();
    let mut dialect = "generic";
    let mut current = String::new();
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("-- @@") {
            if !current.trim().is_empty() {
                items.push((dialect, std::mem::take(&mut current)));
            }
            current.clear();
            dialect = DIALECTS
                .iter()
                .find(|d| **d == rest.trim())
                .copied()
                .unwrap_or("generic");
        } else {
            current.push_str(line);
        }
    }
    if !current.trim().is_empty() {
        items.push((dialect, current));
    }
    items
}

#[test]
fn corpus_keeps_its_tokens_under_every_option() {
    let items = corpus();
    assert!(items.len() >= 60, "corpus has {} statements", items.len());
    let mut failures = Vec::new();
    let mut runs = 0;
    for (dialect, sql) in &items {
        for mode in ["format", "minify"] {
            for indent in ["2", "4", "tab"] {
                for case in ["upper", "lower", "preserve"] {
                    for comma in ["trailing", "leading"] {
                        for lines in [1, 2] {
                            let options = json!({"mode": mode, "indent": indent,
                                "keywordCase": case, "commaPosition": comma,
                                "linesBetweenQueries": lines, "dialect": dialect});
                            runs += 1;
                            if let Err(e) = check(sql, &options, true) {
                                failures.push(format!("[{dialect}] {options}\n{sql}\n{e}"));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} corpus runs changed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

#[test]
fn formatting_is_idempotent_on_the_corpus() {
    for (dialect, sql) in corpus() {
        let once = crate::tools::kit::testing::output_with(
            "sql-formatter",
            &sql,
            json!({"dialect": dialect}),
        );
        let twice = crate::tools::kit::testing::output_with(
            "sql-formatter",
            &once,
            json!({"dialect": dialect}),
        );
        assert_eq!(
            once, twice,
            "[{dialect}] formatting the output again changed it:\n{sql}"
        );
    }
}

#[test]
fn the_reference_tokenizer_reads_the_dialect_rules() {
    let t = |s: &str, d: &str| reference_tokens(s, d).unwrap_or_default();
    assert_eq!(
        t("a.end $$x$$ 3.5E12", "postgresql"),
        vec![
            Tok::Exact("a".into()),
            Tok::Exact(".".into()),
            Tok::Exact("end".into()),
            Tok::Exact("$$x$$".into()),
            Tok::Exact("3.5E12".into()),
        ]
    );
    assert_eq!(t("#t", "sqlserver"), vec![Tok::Exact("#t".into())]);
    assert_eq!(t("#t", "mysql"), vec![Tok::Exact("#t".into())]);
    assert_eq!(t("select", "generic"), vec![Tok::Keyword("SELECT".into())]);
    assert_eq!(t("a=-1", "postgresql").len(), 4);
    assert!(reference_tokens("'open", "generic").is_err());
}
