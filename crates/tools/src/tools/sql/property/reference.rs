//! The reference tokenizer: each dialect's lexical rules, written from its documentation
//! independently of `lex.rs`, and the tokens a formatted statement must keep.

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
pub(super) enum Tok {
    /// A word that may be re-cased, in upper case.
    Keyword(String),
    /// Any other token, byte for byte: names, strings, numbers, comments, operators.
    Exact(String),
}

#[derive(Clone, Copy)]
pub(super) struct Spec {
    pub(super) hash_comment: bool,
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

pub(super) fn spec(dialect: &str) -> Spec {
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
pub(super) fn reference_tokens(sql: &str, dialect: &str) -> Result<Vec<Tok>, String> {
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
