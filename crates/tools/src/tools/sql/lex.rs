//! The SQL tokenizer of sql-formatter: splits text into tokens by each dialect's quoting,
//! comment, number and parameter rules, so that layout only ever moves whole tokens.

use crate::ctp::ToolError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dialect {
    Generic,
    PostgreSql,
    MySql,
    Sqlite,
    SqlServer,
    PlSql,
    BigQuery,
}

impl Dialect {
    pub(super) fn from_name(name: &str) -> Dialect {
        match name {
            "postgresql" => Dialect::PostgreSql,
            "mysql" => Dialect::MySql,
            "sqlite" => Dialect::Sqlite,
            "sqlserver" => Dialect::SqlServer,
            "plsql" => Dialect::PlSql,
            "bigquery" => Dialect::BigQuery,
            _ => Dialect::Generic,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A bare word: a keyword or an unquoted identifier (`#temp` in T-SQL too).
    Word,
    QuotedIdent,
    String,
    Number,
    /// A placeholder or variable: `?`, `?1`, `$1`, `:name`, `@name`, `@@name`.
    Param,
    Operator,
    Comma,
    Semicolon,
    Dot,
    /// `(` or `[` (a subscript, where `[` does not quote identifiers).
    Open,
    /// `)` or `]`.
    Close,
    LineComment,
    BlockComment,
    /// Any other single character (`{`, `\`, a stray backtick): kept as it is.
    Other,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
    /// Whitespace separated this token from the previous one in the input.
    pub space_before: bool,
    /// That whitespace held a line break.
    pub newline_before: bool,
}

impl Token {
    pub(super) fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start as usize..self.end as usize]
    }
}

/// What a dialect's lexer accepts; one row per dialect keeps the differences visible.
#[derive(Clone, Copy)]
struct Rules {
    hash_comment: bool,
    nested_comments: bool,
    /// MySQL: `--` starts a comment only when a space or control character follows.
    dash_comment_needs_space: bool,
    backslash_escapes: bool,
    /// Generic SQL cannot know whether `\'` escapes the quote (MySQL, and the JS
    /// sql-formatter's "sql" language) or ends the string after a backslash (standard SQL,
    /// `'C:\'`). It escapes unless a blank, `,`, `)`, `;` or the end of the input follows
    /// the quote: what can follow a string there is what layout may put after it, so the
    /// output reads as the input did.
    backslash_quote_may_end: bool,
    double_quoted_strings: bool,
    backtick_idents: bool,
    bracket_idents: bool,
    dollar_quotes: bool,
    /// T-SQL temporary objects `#t`, `##t` are names, not comments.
    hash_names: bool,
    /// `$` and `#` may continue an unquoted name (Oracle, MySQL, PostgreSQL, T-SQL).
    dollar_in_names: bool,
    hash_in_names: bool,
    at_params: bool,
    colon_params: bool,
    dollar_params: bool,
    question_params: bool,
    q_quotes: bool,
    triple_quotes: bool,
    /// PostgreSQL builds operators from any run of operator characters.
    free_operators: bool,
    names_may_start_with_digit: bool,
    /// String prefixes (upper case) that glue to a following quote: `N'x'`, `E'x'`, `r"x"`.
    prefixes: &'static [&'static str],
}

fn rules(d: Dialect) -> Rules {
    let base = Rules {
        hash_comment: false,
        nested_comments: false,
        dash_comment_needs_space: false,
        backslash_escapes: false,
        backslash_quote_may_end: false,
        double_quoted_strings: false,
        backtick_idents: false,
        bracket_idents: false,
        dollar_quotes: false,
        hash_names: false,
        dollar_in_names: true,
        hash_in_names: false,
        at_params: false,
        colon_params: false,
        dollar_params: false,
        question_params: false,
        q_quotes: false,
        triple_quotes: false,
        free_operators: false,
        names_may_start_with_digit: false,
        prefixes: &["N", "X", "B", "U&"],
    };
    match d {
        Dialect::Generic => Rules {
            backslash_escapes: true,
            backslash_quote_may_end: true,
            backtick_idents: true,
            dollar_quotes: true,
            at_params: true,
            colon_params: true,
            dollar_params: true,
            question_params: true,
            prefixes: &["N", "X", "B", "E", "U&"],
            ..base
        },
        Dialect::PostgreSql => Rules {
            nested_comments: true,
            dollar_quotes: true,
            dollar_params: true,
            free_operators: true,
            prefixes: &["N", "X", "B", "E", "U&"],
            ..base
        },
        Dialect::MySql => Rules {
            hash_comment: true,
            dash_comment_needs_space: true,
            backslash_escapes: true,
            double_quoted_strings: true,
            backtick_idents: true,
            at_params: true,
            question_params: true,
            names_may_start_with_digit: true,
            prefixes: &["N", "X", "B"],
            ..base
        },
        Dialect::Sqlite => Rules {
            backtick_idents: true,
            bracket_idents: true,
            at_params: true,
            colon_params: true,
            dollar_params: true,
            question_params: true,
            prefixes: &["X"],
            ..base
        },
        Dialect::SqlServer => Rules {
            nested_comments: true,
            bracket_idents: true,
            hash_names: true,
            hash_in_names: true,
            at_params: true,
            question_params: true,
            prefixes: &["N"],
            ..base
        },
        Dialect::PlSql => Rules {
            hash_in_names: true,
            colon_params: true,
            q_quotes: true,
            prefixes: &["N"],
            ..base
        },
        Dialect::BigQuery => Rules {
            hash_comment: true,
            backslash_escapes: true,
            double_quoted_strings: true,
            backtick_idents: true,
            at_params: true,
            question_params: true,
            triple_quotes: true,
            dollar_in_names: false,
            prefixes: &["R", "B", "RB", "BR"],
            ..base
        },
    }
}

/// Fixed operators of the dialects without PostgreSQL's free-form ones, longest first.
const OPERATORS: &[&str] = &[
    "<=>", "->>", "#>>", "<>", "<=", ">=", "!=", "==", "||", "&&", "<<", ">>", "->", "#>", "@>",
    "<@", ":=", "=>", "!<", "!>", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "**", "::",
];

const OPERATOR_CHARS: &str = "+-*/<>=~!@#%^&|?:";

/// What a backslash does inside a quoted run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Backslash {
    Plain,
    Escapes,
    /// Escapes, except a `\'` that a blank, `,`, `)`, `;` or the end follows ends the string.
    EscapesUnlessEnd,
}

fn is_name_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

pub(super) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    rules: Rules,
}

/// Line and column (1-based, in characters) of a byte offset, for error messages.
pub(super) fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let before = &src[..offset.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before, |i| &before[i + 1..])
        .chars()
        .count()
        + 1;
    (line, col)
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a str, dialect: Dialect) -> Self {
        Lexer {
            src,
            pos: 0,
            rules: rules(dialect),
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(ahead)
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn unterminated(&self, what: &str, start: usize) -> ToolError {
        let (line, col) = line_col(self.src, start);
        ToolError::invalid(format!(
            "unterminated {what} starting at line {line}, column {col}: close it, or check the dialect (it decides which quotes and comments exist)"
        ))
    }

    /// The next token, or `None` at the end of the input.
    pub(super) fn next_token(&mut self) -> Result<Option<Token>, ToolError> {
        let ws_start = self.pos;
        let rest = self.rest();
        let trimmed = rest.trim_start();
        self.pos += rest.len() - trimmed.len();
        let ws = &self.src[ws_start..self.pos];
        let (space_before, newline_before) = (!ws.is_empty(), ws.contains(['\n', '\r']));
        let start = self.pos;
        let Some(kind) = self.scan()? else {
            return Ok(None);
        };
        Ok(Some(Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
            space_before,
            newline_before,
        }))
    }

    fn scan(&mut self) -> Result<Option<Kind>, ToolError> {
        let start = self.pos;
        let rest = self.rest();
        let Some(c) = rest.chars().next() else {
            return Ok(None);
        };
        let next = self.peek(1);
        let r = self.rules;
        if rest.starts_with("--")
            && (!r.dash_comment_needs_space
                || self
                    .peek(2)
                    .is_none_or(|c| c.is_whitespace() || c.is_control()))
        {
            return Ok(Some(self.line_comment()));
        }
        if c == '#' && r.hash_comment {
            return Ok(Some(self.line_comment()));
        }
        if rest.starts_with("/*") {
            return self.block_comment(start).map(Some);
        }
        if let Some(kind) = self.prefixed_string(start)? {
            return Ok(Some(kind));
        }
        match c {
            '\'' => return self.quoted('\'', Kind::String, start).map(Some),
            '"' if r.double_quoted_strings => {
                return self.quoted('"', Kind::String, start).map(Some);
            }
            '"' => return self.quoted('"', Kind::QuotedIdent, start).map(Some),
            '`' if r.backtick_idents => {
                return self.quoted('`', Kind::QuotedIdent, start).map(Some);
            }
            '[' if r.bracket_idents => {
                return self.delimited(']', Kind::QuotedIdent, start).map(Some);
            }
            '$' => {
                if r.dollar_quotes
                    && let Some(kind) = self.dollar_quoted(start)?
                {
                    return Ok(Some(kind));
                }
                if r.dollar_params && next.is_some_and(|n| n.is_ascii_digit() || is_name_start(n)) {
                    self.pos += 1;
                    self.eat_name_chars();
                    return Ok(Some(Kind::Param));
                }
            }
            _ => {}
        }
        // `.5` is a number, but `t.5x` (a MySQL name after a dot) is not.
        let after_name = self.src[..start]
            .chars()
            .next_back()
            .is_some_and(|p| p == '_' || p.is_alphanumeric() || "\"`])".contains(p));
        let leading_dot = c == '.' && !after_name && next.is_some_and(|n| n.is_ascii_digit());
        if c.is_ascii_digit() || leading_dot {
            self.number();
            if self.rules.names_may_start_with_digit
                && self.peek(0).is_some_and(|n| is_name_start(n) || n == '$')
            {
                self.eat_name_chars();
                return Ok(Some(Kind::Word));
            }
            return Ok(Some(Kind::Number));
        }
        if is_name_start(c) || (c == '#' && r.hash_names) {
            self.pos += c.len_utf8();
            self.eat_name_chars();
            return Ok(Some(Kind::Word));
        }
        if let Some(kind) = self.param(c, next) {
            return Ok(Some(kind));
        }
        let single = match c {
            ',' => Some(Kind::Comma),
            ';' => Some(Kind::Semicolon),
            '.' => Some(Kind::Dot),
            '(' | '[' => Some(Kind::Open),
            ')' | ']' => Some(Kind::Close),
            _ => None,
        };
        if let Some(kind) = single {
            self.pos += 1;
            return Ok(Some(kind));
        }
        if OPERATOR_CHARS.contains(c) {
            self.operator();
            return Ok(Some(Kind::Operator));
        }
        self.pos += c.len_utf8();
        Ok(Some(Kind::Other))
    }

    fn line_comment(&mut self) -> Kind {
        let rest = self.rest();
        self.pos += rest.find(['\n', '\r']).unwrap_or(rest.len());
        Kind::LineComment
    }

    fn block_comment(&mut self, start: usize) -> Result<Kind, ToolError> {
        let bytes = self.src.as_bytes();
        let mut i = self.pos + 2;
        let mut depth = 1usize;
        while i < bytes.len() {
            if bytes[i..].starts_with(b"*/") {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    self.pos = i;
                    return Ok(Kind::BlockComment);
                }
            } else if self.rules.nested_comments && bytes[i..].starts_with(b"/*") {
                depth += 1;
                i += 2;
            } else {
                i += 1;
            }
        }
        Err(self.unterminated("/* comment", start))
    }

    /// `N'…'`, `E'…'`, `X'…'`, `U&'…'`, `U&"…"`, BigQuery `r'…'`/`b"""…"""`, Oracle `q'[…]'`.
    fn prefixed_string(&mut self, start: usize) -> Result<Option<Kind>, ToolError> {
        let rest = self.rest();
        let letters = rest
            .find(|c: char| !(c.is_ascii_alphabetic() || c == '&'))
            .unwrap_or(rest.len());
        if letters == 0 || letters > 3 {
            return Ok(None);
        }
        let prefix = rest[..letters].to_ascii_uppercase();
        let after = &rest[letters..];
        if self.rules.q_quotes && (prefix == "Q" || prefix == "NQ") && after.starts_with('\'') {
            return self.q_quoted(start, letters).map(Some);
        }
        if !self.rules.prefixes.contains(&prefix.as_str()) {
            return Ok(None);
        }
        let quote = match after.chars().next() {
            Some('\'') => '\'',
            Some('"') if prefix == "U&" || self.rules.double_quoted_strings => '"',
            _ => return Ok(None),
        };
        self.pos += letters;
        let kind = if quote == '"' && prefix == "U&" {
            Kind::QuotedIdent
        } else {
            Kind::String
        };
        // E'…' strings take backslash escapes in PostgreSQL; BigQuery raw strings still end
        // only at an unescaped quote, as in Python.
        let backslash = match (prefix.as_str(), kind) {
            ("E", _) => Backslash::Escapes,
            (_, Kind::String) => self.string_backslash(),
            _ => Backslash::Plain,
        };
        self.quoted_with(quote, kind, start, backslash).map(Some)
    }

    fn quoted(&mut self, quote: char, kind: Kind, start: usize) -> Result<Kind, ToolError> {
        let backslash = if kind == Kind::String {
            self.string_backslash()
        } else if quote == '`' && self.rules.triple_quotes {
            Backslash::Escapes
        } else {
            Backslash::Plain
        };
        self.quoted_with(quote, kind, start, backslash)
    }

    fn string_backslash(&self) -> Backslash {
        match (
            self.rules.backslash_escapes,
            self.rules.backslash_quote_may_end,
        ) {
            (false, _) => Backslash::Plain,
            (true, false) => Backslash::Escapes,
            (true, true) => Backslash::EscapesUnlessEnd,
        }
    }

    /// A quoted run where a doubled quote stands for one (and, as `backslash` says, `\x` for x).
    fn quoted_with(
        &mut self,
        quote: char,
        kind: Kind,
        start: usize,
        backslash: Backslash,
    ) -> Result<Kind, ToolError> {
        let q = quote as u8;
        let bytes = self.src.as_bytes();
        if self.rules.triple_quotes && quote != '`' {
            let triple = [q, q, q];
            if bytes[self.pos..].starts_with(&triple) {
                let mut i = self.pos + 3;
                while i < bytes.len() {
                    if bytes[i] == b'\\' {
                        i += 2;
                    } else if bytes[i..].starts_with(&triple) {
                        self.pos = i + 3;
                        return Ok(kind);
                    } else {
                        i += 1;
                    }
                }
                return Err(self.unterminated(&format!("{quote}{quote}{quote} string"), start));
            }
        }
        let mut i = self.pos + 1;
        while i < bytes.len() {
            let escape = match backslash {
                _ if bytes[i] != b'\\' => false,
                Backslash::Plain => false,
                Backslash::Escapes => true,
                Backslash::EscapesUnlessEnd => {
                    bytes.get(i + 1) != Some(&q)
                        || self.src[i + 2..]
                            .chars()
                            .next()
                            .is_some_and(|c| !(c.is_whitespace() || ",);".contains(c)))
                }
            };
            if escape {
                i += 2;
            } else if bytes[i] == q {
                if !self.rules.triple_quotes && bytes.get(i + 1) == Some(&q) {
                    i += 2;
                } else {
                    self.pos = i + 1;
                    return Ok(kind);
                }
            } else {
                i += 1;
            }
        }
        let what = if kind == Kind::String {
            format!("{quote} string")
        } else {
            format!("{quote} quoted name")
        };
        Err(self.unterminated(&what, start))
    }

    /// `[name]` with `]]` standing for `]`.
    fn delimited(&mut self, close: char, kind: Kind, start: usize) -> Result<Kind, ToolError> {
        let rest = &self.src[self.pos + 1..];
        let mut i = 0;
        while let Some(off) = rest[i..].find(close) {
            let at = i + off;
            if rest[at + 1..].starts_with(close) {
                i = at + 2;
            } else {
                self.pos += 1 + at + 1;
                return Ok(kind);
            }
        }
        Err(self.unterminated("[ quoted name", start))
    }

    /// PostgreSQL `$$…$$` and `$tag$…$tag$`: the body is kept byte for byte.
    fn dollar_quoted(&mut self, start: usize) -> Result<Option<Kind>, ToolError> {
        let rest = self.rest();
        let tag_len = rest[1..]
            .find(|c: char| !(c == '_' || c.is_alphanumeric()))
            .unwrap_or(rest.len() - 1);
        let tag_end = 1 + tag_len;
        if !rest[tag_end..].starts_with('$') || rest[1..].starts_with(|c: char| c.is_ascii_digit())
        {
            return Ok(None);
        }
        let delimiter = &rest[..tag_end + 1];
        match rest[delimiter.len()..].find(delimiter) {
            Some(at) => {
                self.pos += delimiter.len() + at + delimiter.len();
                Ok(Some(Kind::String))
            }
            None => Err(self.unterminated(&format!("{delimiter} string"), start)),
        }
    }

    /// Oracle `q'[…]'`: the quote is the character after `'`, closed by its pair then `'`.
    fn q_quoted(&mut self, start: usize, prefix_len: usize) -> Result<Kind, ToolError> {
        let body_start = self.pos + prefix_len + 1;
        let Some(open) = self.src[body_start..].chars().next() else {
            return Err(self.unterminated("q'…' string", start));
        };
        let close = match open {
            '[' => ']',
            '{' => '}',
            '(' => ')',
            '<' => '>',
            c => c,
        };
        let body = &self.src[body_start + open.len_utf8()..];
        let mut pat = String::new();
        pat.push(close);
        pat.push('\'');
        match body.find(&pat) {
            Some(at) => {
                self.pos = body_start + open.len_utf8() + at + pat.len();
                Ok(Kind::String)
            }
            None => Err(self.unterminated("q'…' string", start)),
        }
    }

    fn number(&mut self) {
        let bytes = self.src.as_bytes();
        let mut i = self.pos;
        if bytes[i] == b'0'
            && matches!(bytes.get(i + 1), Some(b'x' | b'X'))
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            i += 2;
            while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                i += 1;
            }
            self.pos = i;
            return;
        }
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i < bytes.len() && matches!(bytes[i], b'e' | b'E') {
            let mut j = i + 1;
            if j < bytes.len() && matches!(bytes[j], b'+' | b'-') {
                j += 1;
            }
            if j < bytes.len() && bytes[j].is_ascii_digit() {
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
                i = j;
            }
        }
        self.pos = i;
    }

    fn eat_name_chars(&mut self) {
        let r = &self.rules;
        let rest = self.rest();
        let len = rest
            .find(|c: char| {
                !(c == '_'
                    || c.is_alphanumeric()
                    || (c == '$' && r.dollar_in_names)
                    || (c == '#' && r.hash_in_names))
            })
            .unwrap_or(rest.len());
        self.pos += len;
    }

    fn param(&mut self, c: char, next: Option<char>) -> Option<Kind> {
        let r = self.rules;
        let named = |n: Option<char>| n.is_some_and(|n| is_name_start(n) || n.is_ascii_digit());
        match c {
            '@' if r.at_params && (named(next) || next == Some('@')) => {
                self.pos += 1;
                if next == Some('@') {
                    self.pos += 1;
                }
                self.eat_name_chars();
                Some(Kind::Param)
            }
            ':' if r.colon_params && named(next) => {
                self.pos += 1;
                self.eat_name_chars();
                Some(Kind::Param)
            }
            '?' if r.question_params => {
                self.pos += 1;
                let rest = self.rest();
                self.pos += rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                Some(Kind::Param)
            }
            _ => None,
        }
    }

    fn operator(&mut self) {
        let rest = self.rest();
        if !self.rules.free_operators || rest.starts_with("::") || rest.starts_with(":=") {
            let len = OPERATORS
                .iter()
                .find(|op| rest.starts_with(**op))
                .map_or(1, |op| op.len());
            self.pos += len;
            return;
        }
        // PostgreSQL: the longest run of operator characters, stopping where a comment starts;
        // a run of several characters cannot end in + or - unless it holds one of ~!@#%^&|`?.
        let mut len = 0;
        for (i, ch) in rest.char_indices() {
            if !"+-*/<>=~!@#%^&|`?".contains(ch)
                || (i > 0 && (rest[i..].starts_with("--") || rest[i..].starts_with("/*")))
            {
                break;
            }
            len = i + 1;
        }
        let run = &rest[..len];
        if len > 1 && !run.contains(['~', '!', '@', '#', '%', '^', '&', '|', '`', '?']) {
            while len > 1 && run[..len].ends_with(['+', '-']) {
                len -= 1;
            }
        }
        self.pos += len.max(1);
    }
}
