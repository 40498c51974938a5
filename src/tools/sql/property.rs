//! The meaning-preservation property of sql-formatter: for generated statements in every
//! dialect and a hand-collected corpus, under every option, the output holds the input's
//! tokens in the input's order, with only keywords allowed to change case.
//!
//! `reference_tokens` is written from the dialects' documentation, separately from `lex.rs`,
//! so that a shared misreading of a rule cannot hide a change of meaning.

use crate::tools::kit::testing::run;
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

/// Words whose case may change: SQL's reserved words plus the few contextual keywords the
/// formatter documents. Identifiers in the generator avoid all of them.
const MAY_RECASE: &str = "ABORT ADD ALL ALTER ALWAYS ANALYZE AND ANY APPLY AS ASC BEGIN BETWEEN \
    BIGINT BINARY BOTH BY CALL CASCADE CASE CHAR CHARACTER CHECK COLLATE COLUMN COMMIT \
    CONSTRAINT CONVERT CREATE CROSS CUBE CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP \
    CURRENT_USER CURSOR DATABASE DECIMAL DECLARE DEFAULT DELETE DESC DESCRIBE DISTINCT DOUBLE \
    DROP EACH ELSE ELSEIF END EXCEPT EXISTS EXPLAIN EXTENSION FAIL FALSE FETCH FIRST FLOAT FOR \
    FOREIGN FROM FULL FUNCTION GRANT GROUP GROUPING HAVING IF IGNORE IN INDEX INNER INSERT INT \
    INTEGER INTERSECT INTERVAL INTO IS JOIN KEY LAST LATERAL LEADING LEFT LIKE LIMIT LOCALTIME \
    LOCALTIMESTAMP MATERIALIZED MERGE MINUS NATURAL NOT NULL NULLS NUMERIC OF OFFSET ON ONLY OR \
    ORDER OUTER OVER OVERWRITE PARTITION PRECISION PRIMARY PROCEDURE QUALIFY REAL RECURSIVE \
    REFERENCES REPLACE RETURN RETURNING REVOKE RIGHT ROLLBACK ROWS SCHEMA SELECT SEQUENCE SET \
    SMALLINT START TABLE TEMP TEMPORARY THEN TO TOP TRAILING TRANSACTION TRIGGER TRUE TRUNCATE \
    TYPE UNION UNIQUE UPDATE USING VACUUM VALUES VARCHAR VARYING VIEW WHEN WHERE WHILE WINDOW \
    WITH \
    ANTI CHANGE DUPLICATE MODIFY NEXT RENAME ROW SEMI TIES";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A word that may be re-cased, in upper case.
    Keyword(String),
    /// Any other token, byte for byte: names, strings, numbers, comments, operators.
    Exact(String),
}

#[derive(Clone, Copy)]
struct Spec {
    hash_comment: bool,
    dash_needs_space: bool,
    nested_block: bool,
    backslash: bool,
    /// Generic SQL: `\'` then a blank, `,`, `)`, `;` or the end is a backslash ending the
    /// string (`'C:\'`); any other `\'` is an escaped quote (`'it\'s'`).
    backslash_may_end: bool,
    dq_string: bool,
    backtick: bool,
    bracket: bool,
    dollar_body: bool,
    hash_name: bool,
    at_var: bool,
    colon_var: bool,
    qmark_var: bool,
    dollar_var: bool,
    q_quote: bool,
    triple: bool,
    pg_ops: bool,
    digit_names: bool,
    dollar_in_name: bool,
    hash_in_name: bool,
}

fn spec(dialect: &str) -> Spec {
    let none = Spec {
        hash_comment: false,
        dash_needs_space: false,
        nested_block: false,
        backslash: false,
        backslash_may_end: false,
        dq_string: false,
        backtick: false,
        bracket: false,
        dollar_body: false,
        hash_name: false,
        at_var: false,
        colon_var: false,
        qmark_var: false,
        dollar_var: false,
        q_quote: false,
        triple: false,
        pg_ops: false,
        digit_names: false,
        dollar_in_name: true,
        hash_in_name: false,
    };
    match dialect {
        "postgresql" => Spec {
            nested_block: true,
            dollar_body: true,
            dollar_var: true,
            pg_ops: true,
            ..none
        },
        "mysql" => Spec {
            hash_comment: true,
            dash_needs_space: true,
            backslash: true,
            dq_string: true,
            backtick: true,
            at_var: true,
            qmark_var: true,
            digit_names: true,
            ..none
        },
        "sqlite" => Spec {
            backtick: true,
            bracket: true,
            at_var: true,
            colon_var: true,
            qmark_var: true,
            dollar_var: true,
            ..none
        },
        "sqlserver" => Spec {
            nested_block: true,
            bracket: true,
            hash_name: true,
            hash_in_name: true,
            at_var: true,
            qmark_var: true,
            ..none
        },
        "plsql" => Spec {
            hash_in_name: true,
            colon_var: true,
            q_quote: true,
            ..none
        },
        "bigquery" => Spec {
            hash_comment: true,
            backslash: true,
            dq_string: true,
            backtick: true,
            at_var: true,
            qmark_var: true,
            triple: true,
            dollar_in_name: false,
            ..none
        },
        _ => Spec {
            backslash: true,
            backslash_may_end: true,
            backtick: true,
            dollar_body: true,
            at_var: true,
            colon_var: true,
            qmark_var: true,
            dollar_var: true,
            ..none
        },
    }
}

fn prefixes(dialect: &str) -> &'static [&'static str] {
    match dialect {
        "postgresql" | "generic" => &["U&", "N", "E", "X", "B"],
        "mysql" => &["N", "X", "B"],
        "sqlite" => &["X"],
        "sqlserver" | "plsql" => &["N"],
        "bigquery" => &["RB", "BR", "R", "B"],
        _ => &[],
    }
}

/// Tokens of `sql` under `dialect`'s rules, whitespace dropped.
fn reference_tokens(sql: &str, dialect: &str) -> Result<Vec<Tok>, String> {
    let s = spec(dialect);
    let c: Vec<char> = sql.chars().collect();
    let n = c.len();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let name_char = |ch: char| {
        ch.is_alphanumeric()
            || ch == '_'
            || (ch == '$' && s.dollar_in_name)
            || (ch == '#' && s.hash_in_name)
    };
    static KEYWORDS: std::sync::OnceLock<std::collections::HashSet<&str>> =
        std::sync::OnceLock::new();
    let keywords = KEYWORDS.get_or_init(|| MAY_RECASE.split_whitespace().collect());
    let mut out = Vec::new();
    let mut i = 0;
    // Scans a quoted run from `i` (at the opening quote `q`) and returns the index after it.
    let quoted = |i: usize, q: char, close: char, backslash: bool, doubling: bool| {
        let mut j = i + 1;
        while j < n {
            if backslash && c[j] == '\\' {
                j += 2;
                continue;
            }
            if c[j] == close {
                if doubling && at(j + 1) == close {
                    j += 2;
                    continue;
                }
                return Ok(j + 1);
            }
            j += 1;
        }
        Err(format!("unterminated {q} at char {i}"))
    };
    while i < n {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let mut keyword = None;
        if ch == '-'
            && at(i + 1) == '-'
            && (!s.dash_needs_space || i + 2 >= n || at(i + 2).is_whitespace())
            || (ch == '#' && s.hash_comment)
        {
            while i < n && c[i] != '\n' && c[i] != '\r' {
                i += 1;
            }
            // Blanks that end a line are not part of what a comment says.
            while i > start && matches!(c[i - 1], ' ' | '\t') {
                i -= 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= n {
                    return Err(format!("unterminated comment at char {start}"));
                }
                if c[i] == '/' && at(i + 1) == '*' && (depth == 0 || s.nested_block) {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(p) = prefixes(dialect).iter().find(|p| {
            let len = p.chars().count();
            sql_prefix_matches(&c, i, p)
                && (at(i + len) == '\'' || (at(i + len) == '"' && (**p == "U&" || s.dq_string)))
                && (i == 0 || !name_char(c[i - 1]))
        }) {
            let len = p.chars().count();
            let q = at(i + len);
            i = string_end(&c, i + len, q, s, *p == "E")?;
        } else if s.q_quote
            && (sql_prefix_matches(&c, i, "Q") && at(i + 1) == '\''
                || sql_prefix_matches(&c, i, "NQ") && at(i + 2) == '\'')
        {
            let open_at = if at(i + 1) == '\'' { i + 2 } else { i + 3 };
            let open = at(open_at);
            let close = match open {
                '[' => ']',
                '(' => ')',
                '{' => '}',
                '<' => '>',
                o => o,
            };
            let mut j = open_at + 1;
            while j < n && !(c[j] == close && at(j + 1) == '\'') {
                j += 1;
            }
            if j >= n {
                return Err(format!("unterminated q-quote at {start}"));
            }
            i = j + 2;
        } else if ch == '\'' || (ch == '"' && s.dq_string) {
            i = string_end(&c, i, ch, s, false)?;
        } else if ch == '"' {
            i = quoted(i, '"', '"', false, true)?;
        } else if ch == '`' && s.backtick {
            i = quoted(i, '`', '`', s.triple, !s.triple)?;
        } else if ch == '[' && s.bracket {
            i = quoted(i, '[', ']', false, true)?;
        } else if ch == '$' && s.dollar_body && dollar_tag(&c, i).is_some() {
            let tag: Vec<char> = dollar_tag(&c, i).unwrap_or_default();
            let mut j = i + tag.len();
            loop {
                if j + tag.len() > n {
                    return Err(format!("unterminated dollar quote at {start}"));
                }
                if c[j..j + tag.len()] == tag[..] {
                    i = j + tag.len();
                    break;
                }
                j += 1;
            }
        } else if ch.is_ascii_digit()
            || (ch == '.' && at(i + 1).is_ascii_digit() && !after_name(&c, i))
        {
            if ch == '0' && matches!(at(i + 1), 'x' | 'X') && at(i + 2).is_ascii_hexdigit() {
                i += 2;
                while at(i).is_ascii_hexdigit() {
                    i += 1;
                }
            } else {
                while at(i).is_ascii_digit() {
                    i += 1;
                }
                if at(i) == '.' {
                    i += 1;
                    while at(i).is_ascii_digit() {
                        i += 1;
                    }
                }
                let sign = usize::from(matches!(at(i + 1), '+' | '-'));
                if matches!(at(i), 'e' | 'E') && at(i + 1 + sign).is_ascii_digit() {
                    i += 1 + sign;
                    while at(i).is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            if s.digit_names && (name_char(at(i)) && at(i) != '#') {
                while name_char(at(i)) {
                    i += 1;
                }
            }
        } else if ch.is_alphabetic() || ch == '_' || (ch == '#' && s.hash_name) {
            i += 1;
            while name_char(at(i)) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let upper = word.to_ascii_uppercase();
            let dotted = (start > 0 && c[start - 1] == '.') || at(i) == '.';
            if !dotted && keywords.contains(&upper.as_str()) {
                keyword = Some(upper);
            }
        } else if (ch == '@' && s.at_var && (name_char(at(i + 1)) || at(i + 1) == '@'))
            || (ch == ':' && s.colon_var && name_char(at(i + 1)) && at(i + 1) != '$')
            || (ch == '$' && s.dollar_var && name_char(at(i + 1)))
        {
            i += 1;
            if at(i) == '@' {
                i += 1;
            }
            while name_char(at(i)) {
                i += 1;
            }
        } else if ch == '?' && s.qmark_var {
            i += 1;
            while at(i).is_ascii_digit() {
                i += 1;
            }
        } else if "+-*/<>=~!@#%^&|?:".contains(ch) {
            i = operator_end(&c, i, s.pg_ops);
        } else {
            i += 1;
        }
        match keyword {
            Some(k) => out.push(Tok::Keyword(k)),
            None => out.push(Tok::Exact(c[start..i].iter().collect())),
        }
    }
    Ok(out)
}

fn sql_prefix_matches(c: &[char], i: usize, p: &str) -> bool {
    p.chars()
        .enumerate()
        .all(|(k, pc)| c.get(i + k).is_some_and(|x| x.to_ascii_uppercase() == pc))
}

fn after_name(c: &[char], i: usize) -> bool {
    i > 0 && (c[i - 1].is_alphanumeric() || "_\"`])".contains(c[i - 1]))
}

fn dollar_tag(c: &[char], i: usize) -> Option<Vec<char>> {
    let mut j = i + 1;
    if c.get(j).is_some_and(char::is_ascii_digit) {
        return None;
    }
    while c.get(j).is_some_and(|x| x.is_alphanumeric() || *x == '_') {
        j += 1;
    }
    (c.get(j) == Some(&'$')).then(|| c[i..=j].to_vec())
}

fn string_end(c: &[char], i: usize, q: char, s: Spec, e_string: bool) -> Result<usize, String> {
    let n = c.len();
    if s.triple && c.get(i + 1) == Some(&q) && c.get(i + 2) == Some(&q) {
        let mut j = i + 3;
        while j + 2 < n + 2 {
            if c.get(j) == Some(&'\\') {
                j += 2;
            } else if c.get(j) == Some(&q) && c.get(j + 1) == Some(&q) && c.get(j + 2) == Some(&q) {
                return Ok(j + 3);
            } else if j >= n {
                break;
            } else {
                j += 1;
            }
        }
        return Err(format!("unterminated triple quote at {i}"));
    }
    let mut j = i + 1;
    let ends_here = |k: usize| k >= n || c[k].is_whitespace() || ",);".contains(c[k]);
    while j < n {
        if s.backslash_may_end
            && !e_string
            && c[j] == '\\'
            && c.get(j + 1) == Some(&q)
            && ends_here(j + 2)
        {
            return Ok(j + 2);
        }
        if (s.backslash || e_string) && c[j] == '\\' {
            j += 2;
        } else if c[j] == q {
            if !s.triple && c.get(j + 1) == Some(&q) {
                j += 2;
            } else {
                return Ok(j + 1);
            }
        } else {
            j += 1;
        }
    }
    Err(format!("unterminated string at {i}"))
}

fn operator_end(c: &[char], i: usize, pg: bool) -> usize {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    if at(i) == ':' && matches!(at(i + 1), ':' | '=') {
        return i + 2;
    }
    if !pg {
        for op in [
            "<=>", "->>", "#>>", "<>", "<=", ">=", "!=", "==", "||", "&&", "<<", ">>", "->", "#>",
            "@>", "<@", "=>", "!<", "!>", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "**",
        ] {
            if op.chars().enumerate().all(|(k, oc)| at(i + k) == oc) {
                return i + op.len();
            }
        }
        return i + 1;
    }
    // PostgreSQL §4.1.3: the longest run, cut before a comment, and not ending in + or -
    // unless it holds one of ~ ! @ # % ^ & | ` ?.
    let mut j = i;
    while "+-*/<>=~!@#%^&|`?".contains(at(j)) && at(j) != '\0' {
        if j > i && ((at(j) == '-' && at(j + 1) == '-') || (at(j) == '/' && at(j + 1) == '*')) {
            break;
        }
        j += 1;
    }
    let run: String = c[i..j].iter().collect();
    if j - i > 1 && !run.contains(['~', '!', '@', '#', '%', '^', '&', '|', '`', '?']) {
        while j - i > 1 && matches!(c[j - 1], '+' | '-') {
            j -= 1;
        }
    }
    j.max(i + 1)
}

/// A small deterministic generator (xorshift64*), so failures reproduce from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Names that look like keywords to some tool but are plain identifiers everywhere.
const NAMES: &[&str] = &[
    "events",
    "user_id",
    "users",
    "data",
    "name",
    "value",
    "status",
    "Orders",
    "t1",
    "MixedCase",
    "year",
    "text",
    "level",
    "comment",
    "role",
    "amount",
    "créé",
    "x_1",
    "total$",
    "id",
];

const KEYWORD_NAMES_AFTER_DOT: &[&str] = &["end", "select", "order", "from", "case", "key"];

struct Gen<'d> {
    rng: Rng,
    dialect: &'d str,
    depth: usize,
}

impl Gen<'_> {
    fn ws(&mut self) -> &'static str {
        match self.rng.below(10) {
            0 => "\n",
            1 => "\r\n",
            2 => "\t",
            3 => "  ",
            _ => " ",
        }
    }

    fn name(&mut self) -> String {
        let d = self.dialect;
        let plain = self.rng.pick(NAMES).to_string();
        match self.rng.below(12) {
            0 => format!("\"{plain} \"\"q\"\"\""),
            1 if matches!(d, "mysql" | "sqlite" | "bigquery" | "generic") => {
                format!("`{plain} x`")
            }
            2 if matches!(d, "sqlserver" | "sqlite") => format!("[{plain} ]]x]"),
            3 if d == "sqlserver" => format!("#{plain}"),
            4 if d == "plsql" => format!("{plain}#x$"),
            5 if d == "postgresql" => format!("U&\"d\\0061{plain}\""),
            _ => plain,
        }
    }

    fn column(&mut self) -> String {
        match self.rng.below(6) {
            0 => format!("{}.{}", self.name(), self.rng.pick(KEYWORD_NAMES_AFTER_DOT)),
            1 => format!("{}.{}", self.name(), self.name()),
            _ => self.name(),
        }
    }

    fn number(&mut self) -> String {
        let n = self.rng.below(1000);
        match self.rng.below(9) {
            0 => format!("{n}.5E12"),
            1 => format!("{n}e-3"),
            2 => format!("{n}E+7"),
            3 => format!(".{n}"),
            4 => format!("{n}.{}", self.rng.below(99)),
            5 if matches!(self.dialect, "mysql" | "sqlserver" | "sqlite") => format!("0x{n:X}"),
            _ => n.to_string(),
        }
    }

    fn string(&mut self) -> String {
        let d = self.dialect;
        match self.rng.below(10) {
            0 => "'it''s  -- not a comment'".into(),
            1 => "'/* nor this */ # or this'".into(),
            // Generic SQL: `\'` escapes the quote unless a blank, `,`, `)` or `;` follows.
            3 if d == "generic" => {
                ["'it\\'s'", "'C:\\'", "'\\''", "'a\\\\'"][self.rng.below(4)].into()
            }
            2 if d == "postgresql" || d == "generic" => [
                "$$ select  1; 'x' $$",
                "$fn$ BEGIN  RETURN 1; END $fn$",
                "E'a\\'b'",
            ][self.rng.below(3)]
            .into(),
            3 if d == "postgresql" => "U&'d\\0061t\\+000061'".into(),
            4 if d == "mysql" => "'a\\'b' \"dq \\\" x\"".into(),
            5 if d == "bigquery" => [
                "'''tri ' ple'''",
                "r'raw\\d+'",
                "b\"bytes\"",
                "\"\"\"x\"\"\"",
            ][self.rng.below(4)]
            .into(),
            6 if d == "plsql" => "q'[it's]'".into(),
            7 if matches!(
                d,
                "sqlserver" | "mysql" | "postgresql" | "generic" | "plsql"
            ) =>
            {
                "N'ünï'".into()
            }
            8 if d == "sqlite" || d == "mysql" => "X'4142'".into(),
            _ => format!("'s{}'", self.rng.below(100)),
        }
    }

    fn param(&mut self) -> String {
        let d = self.dialect;
        match d {
            "postgresql" => format!("${}", self.rng.below(9) + 1),
            "mysql" => self.rng.pick(&["?", "@v", "@@session.sql_mode"]).into(),
            "sqlite" => self.rng.pick(&["?", "?2", ":n", "@n", "$n"]).into(),
            "sqlserver" => self.rng.pick(&["@p", "@@ROWCOUNT"]).into(),
            "plsql" => ":bind".into(),
            "bigquery" => "@param".into(),
            _ => self.rng.pick(&["?", ":name", "$1", "@x"]).into(),
        }
    }

    fn comment(&mut self) -> String {
        let d = self.dialect;
        match self.rng.below(5) {
            0 => "-- line  comment\n".into(),
            1 if matches!(d, "mysql" | "bigquery") => "# hash comment\n".into(),
            2 if matches!(d, "postgresql" | "sqlserver") => "/* a /* nested */ b */".into(),
            3 => "/* multi\n   line */".into(),
            _ => "/* block */".into(),
        }
    }

    fn atom(&mut self) -> String {
        match self.rng.below(8) {
            0 => self.number(),
            1 => self.string(),
            2 => self.param(),
            3 => "NULL".into(),
            _ => self.column(),
        }
    }

    fn expr(&mut self) -> String {
        self.depth += 1;
        let deep = self.depth > 2;
        let e = match if deep { 0 } else { self.rng.below(14) } {
            0..=3 => self.atom(),
            4 => format!(
                "{} {} {}",
                self.atom(),
                self.rng.pick(&["+", "-", "*", "/", "||", "%"]),
                self.expr()
            ),
            5 => format!("-{}", self.atom()),
            6 => "count(*)".to_string(),
            7 => format!("coalesce({}, {})", self.expr(), self.atom()),
            8 => self.case(),
            9 => format!("({})", self.expr()),
            10 if self.dialect == "postgresql" => format!("{}::int", self.column()),
            10 => format!("CAST({} AS INT)", self.atom()),
            11 => format!("({})", self.select()),
            12 => format!(
                "sum({}) over (partition by {} order by {})",
                self.column(),
                self.column(),
                self.column()
            ),
            // Functions named like clause keywords.
            13 if self.rng.chance(50) => {
                let f = self
                    .rng
                    .pick(&["window", "values", "left", "right", "replace", "insert"]);
                format!("{f}({}, {})", self.column(), self.atom())
            }
            _ => format!("{} is not null", self.column()),
        };
        self.depth -= 1;
        e
    }

    fn case(&mut self) -> String {
        let simple = self.rng.chance(40);
        let mut s = if simple {
            format!("CASE {}", self.column())
        } else {
            "CASE".to_string()
        };
        for _ in 0..=self.rng.below(3) {
            let when = if simple { self.atom() } else { self.cond() };
            s += &format!(" WHEN {when} THEN {}", self.atom());
        }
        if self.rng.chance(50) {
            s += &format!(" ELSE {}", self.atom());
        }
        s + " END"
    }

    fn cond(&mut self) -> String {
        self.depth += 1;
        let deep = self.depth > 2;
        let c = match if deep { 0 } else { self.rng.below(8) } {
            0 | 1 => format!(
                "{} {} {}",
                self.column(),
                self.rng.pick(&["=", "<>", "<", ">=", "!="]),
                self.atom()
            ),
            2 => format!(
                "{} between {} and {}",
                self.column(),
                self.atom(),
                self.atom()
            ),
            3 => format!("{} in ({}, {})", self.column(), self.atom(), self.atom()),
            4 => format!("{} and {}", self.cond(), self.cond()),
            5 => format!("({} or {})", self.cond(), self.cond()),
            6 => format!("exists ({})", self.select()),
            _ => format!("{} like {}", self.column(), self.string()),
        };
        self.depth -= 1;
        c
    }

    fn table(&mut self) -> String {
        match self.rng.below(6) {
            0 if self.depth < 2 => {
                self.depth += 1;
                let s = format!("({}) sub", self.select());
                self.depth -= 1;
                s
            }
            1 if self.dialect == "bigquery" => "`my-project.ds.events`".into(),
            2 => format!("{}.{}", self.name(), self.name()),
            _ => format!("{} {}", self.name(), self.rng.pick(&["e", "t", "AS x", ""])),
        }
    }

    fn list(&mut self, n: usize, f: impl Fn(&mut Self) -> String) -> String {
        (0..n).map(|_| f(self)).collect::<Vec<_>>().join(", ")
    }

    fn select(&mut self) -> String {
        let mut s = String::from("select ");
        if self.rng.chance(15) {
            s += "distinct ";
        }
        if self.dialect == "sqlserver" && self.rng.chance(20) {
            s += "top 5 ";
        }
        let n = 1 + self.rng.below(3);
        s += &self.list(n, |g| {
            let e = g.expr();
            if g.rng.chance(30) {
                format!("{e} as {}", g.name())
            } else {
                e
            }
        });
        if self.dialect == "bigquery" && self.rng.chance(10) {
            s += ", * except (a, b)";
        }
        s += &format!(" from {}", self.table());
        for _ in 0..self.rng.below(if self.depth == 0 { 3 } else { 2 }) {
            let join = self.rng.pick(&[
                "join",
                "left join",
                "natural join",
                "left outer join",
                "cross join",
                "inner join",
                "full outer join",
                "natural left join",
                "full join",
                "right outer join",
                "left semi join",
                "natural full outer join",
            ]);
            s += &format!(" {join} {}", self.table());
            if !join.contains("natural") && !join.contains("cross") {
                s += &format!(" on {}", self.cond());
            }
        }
        if self.dialect == "sqlserver" && self.rng.chance(10) {
            s += &format!(" cross apply {}", self.table());
        }
        if self.rng.chance(60) {
            s += &format!(" where {}", self.cond());
        }
        if self.rng.chance(25) {
            let n = 1 + self.rng.below(2);
            s += &format!(" group by {}", self.list(n, Self::column));
            if self.rng.chance(50) {
                s += &format!(" having {}", self.cond());
            }
        }
        if self.dialect == "bigquery" && self.rng.chance(10) {
            s += " qualify row_number() over (order by x) = 1";
        }
        if self.rng.chance(30) {
            s += &format!(" order by {} desc", self.column());
            if self.rng.chance(30) {
                s += " nulls last";
            }
        }
        if self.rng.chance(20) && self.dialect != "sqlserver" && self.dialect != "plsql" {
            s += &format!(" limit {}", self.rng.below(100));
            match self.rng.below(3) {
                0 => s += " offset 5",
                1 if self.dialect == "mysql" => s += ", 10",
                _ => {}
            }
        } else if self.rng.chance(10) && !matches!(self.dialect, "mysql" | "sqlite") {
            s += self.rng.pick(&[
                " offset 5 rows fetch first 3 rows only",
                " fetch next 1 row only",
                " offset 2 row",
                " fetch first 10 rows with ties",
            ]);
        }
        if self.depth == 0 && self.rng.chance(10) {
            let op = match self.dialect {
                "plsql" => "minus",
                "bigquery" => "union distinct",
                _ => self
                    .rng
                    .pick(&["union", "union all", "intersect", "except"]),
            };
            s += &format!(" {op} {}", self.select());
        }
        s
    }

    fn statement(&mut self) -> String {
        self.depth = 0;
        match self.rng.below(16) {
            0 | 1 => {
                let rows = 1 + self.rng.below(5);
                let cols = 1 + self.rng.below(3);
                let names = self.list(cols, Self::name);
                let values = (0..rows)
                    .map(|_| format!("({})", self.list(cols, Self::atom)))
                    .collect::<Vec<_>>()
                    .join(if self.rng.chance(50) { "," } else { ", " });
                format!("insert into {} ({names}) values {values}", self.name())
            }
            2 => {
                let sets = 1 + self.rng.below(3);
                let list = self.list(sets, |g| format!("{} = {}", g.name(), g.expr()));
                format!("update {} set {list} where {}", self.name(), self.cond())
            }
            3 => format!("delete from {} where {}", self.name(), self.cond()),
            4 | 5 => {
                let rec = if self.rng.chance(20) {
                    "recursive "
                } else {
                    ""
                };
                let n = 1 + self.rng.below(2);
                let ctes = self.list(n, |g| {
                    g.depth = 1;
                    format!("{} as ({})", g.name(), g.select())
                });
                self.depth = 0;
                format!("with {rec}{ctes} {}", self.select())
            }
            6 if self.rng.chance(30) => {
                let n = 1 + self.rng.below(3);
                let actions = self.list(n, |g| {
                    let col = g.name();
                    match g.rng.below(6) {
                        0 => format!("add column {col} int"),
                        1 => format!("drop column {col}"),
                        2 => format!("alter column {col} set not null"),
                        3 => format!("modify {col} varchar(10) not null"),
                        4 => format!("change {col} {} int", g.name()),
                        _ => format!("rename column {col} to {}", g.name()),
                    }
                });
                format!("alter table {} {actions}", self.name())
            }
            6 => {
                let n = 1 + self.rng.below(4);
                let cols = self.list(n, |g| {
                    let ty = g
                        .rng
                        .pick(&["int", "varchar(100)", "numeric(10, 2)", "text", "date"]);
                    let extra = g.rng.pick(&["", " not null", " primary key", " default 0"]);
                    format!("{} {ty}{extra}", g.name())
                });
                format!("create table {} ({cols})", self.name())
            }
            7 => self.soup(),
            _ => self.select(),
        }
    }

    /// Tokens in no grammatical order, to stress the layout's tolerance.
    fn soup(&mut self) -> String {
        let pieces = [
            "(",
            ")",
            ",",
            "select",
            "from",
            "where",
            "and",
            "case",
            "end",
            "when",
            "then",
            "join",
            "values",
            "(1, 2)",
            "natural",
            "left",
            "set",
            "=",
            "-",
            "*",
            ".",
            "on",
            "group by",
            "union",
            "with",
            "as",
            "between",
            "offset",
            "limit",
            "full",
            "outer",
            "fetch",
            "first",
            "rows",
            "only",
            "alter table",
            "modify",
            "window(",
            "values(",
            "add",
        ];
        let mut s = String::new();
        for _ in 0..(3 + self.rng.below(20)) {
            let p = match self.rng.below(4) {
                0 => self.atom(),
                _ => self.rng.pick(&pieces).to_string(),
            };
            s += &p;
            s += " ";
        }
        s
    }

    /// A statement with comments and irregular whitespace between its words.
    fn decorated(&mut self) -> String {
        let stmt = self.statement();
        let mut out = String::new();
        for (k, word) in stmt.split(' ').enumerate() {
            if k > 0 {
                out += self.ws();
            }
            out += word;
            if self.rng.chance(3) {
                out += " ";
                out += &self.comment();
            }
        }
        if self.rng.chance(50) {
            out += ";";
        }
        out
    }
}

fn random_options(rng: &mut Rng, dialect: &str, has_line_comment: bool) -> Value {
    let minify = rng.chance(if has_line_comment { 5 } else { 20 });
    json!({
        "mode": if minify { "minify" } else { "format" },
        "indent": rng.pick(&["2", "4", "tab"]),
        "keywordCase": rng.pick(&["upper", "lower", "preserve"]),
        "linesBetweenQueries": 1 + rng.below(5),
        "commaPosition": rng.pick(&["trailing", "leading"]),
        "dialect": dialect,
    })
}

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
    let text = include_str!("../../../tests/data/sql-corpus.sql");
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
