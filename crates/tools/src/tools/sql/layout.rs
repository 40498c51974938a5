//! sql-formatter's layout: places the tokens of `lex` on lines. It only ever changes the
//! whitespace between tokens and the case of keywords, never a token's text or order.
//!
//! Nesting is tracked on an explicit stack (no recursion), and is bounded by `MAX_DEPTH`.

use super::keywords;
use super::lex::{Dialect, Kind, Lexer, Token, line_col};
use crate::ctp::ToolError;

/// Parentheses, brackets and CASE … END nested deeper than this are refused.
pub(super) const MAX_DEPTH: usize = 512;

/// Groups up to this many characters wide stay on one line (sql-formatter-plus's default).
const INLINE_WIDTH: u32 = 50;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum KeywordCase {
    Upper,
    Lower,
    Preserve,
}

pub(super) struct Options {
    pub indent: &'static str,
    pub case: KeywordCase,
    pub lines_between: usize,
    pub minify: bool,
    pub leading_commas: bool,
    pub dialect: Dialect,
}

const NONE: u32 = u32::MAX;

pub(super) fn tokenize(src: &str, dialect: Dialect) -> Result<Vec<Token>, ToolError> {
    if u32::try_from(src.len()).is_err() {
        return Err(ToolError::invalid(
            "SQL input is larger than 4 GiB: split it into smaller files",
        ));
    }
    let mut lexer = Lexer::new(src, dialect);
    let mut tokens = Vec::new();
    while let Some(t) = lexer.next_token()? {
        tokens.push(t);
    }
    Ok(tokens)
}

fn upper_is(src: &str, t: &Token, word: &str) -> bool {
    t.kind == Kind::Word && t.text(src).eq_ignore_ascii_case(word)
}

/// For every opening `(`/`[`/CASE the index of its closer (and back), refusing nesting deeper
/// than `MAX_DEPTH`.
fn match_groups(src: &str, tokens: &[Token]) -> Result<Vec<u32>, ToolError> {
    let mut partner = vec![NONE; tokens.len()];
    let mut stack: Vec<(usize, bool)> = Vec::new(); // (index, is CASE)
    for (i, t) in tokens.iter().enumerate() {
        let dotted = i > 0 && tokens[i - 1].kind == Kind::Dot
            || tokens.get(i + 1).is_some_and(|n| n.kind == Kind::Dot);
        let opens_case = !dotted && upper_is(src, t, "CASE");
        if t.kind == Kind::Open || opens_case {
            stack.push((i, opens_case));
            if stack.len() > MAX_DEPTH {
                let (line, col) = line_col(src, t.start as usize);
                return Err(ToolError::invalid(format!(
                    "SQL is nested more than {MAX_DEPTH} levels deep at line {line}, column {col} (parentheses, brackets and CASE … END count); the formatter's limit is {MAX_DEPTH} levels"
                )));
            }
        } else if t.kind == Kind::Close {
            while stack.last().is_some_and(|&(_, case)| case) {
                stack.pop();
            }
            if let Some((open, _)) = stack.pop() {
                partner[open] = i as u32;
                partner[i] = open as u32;
            }
        } else if !dotted
            && upper_is(src, t, "END")
            && stack.last().is_some_and(|&(_, case)| case)
            && let Some((open, _)) = stack.pop()
        {
            partner[open] = i as u32;
            partner[i] = open as u32;
        }
    }
    Ok(partner)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Clause {
    None,
    Select,
    From,
    Where,
    GroupBy,
    Having,
    OrderBy,
    Limit,
    Offset,
    /// `FETCH FIRST|NEXT n ROWS ONLY`.
    Fetch,
    Set,
    Values,
    With,
    /// `ALTER TABLE name` with one action (ADD, DROP, ALTER, MODIFY …) per line.
    AlterTable,
    Other,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FrameKind {
    /// A statement or a parenthesised query: clauses start lines.
    Query,
    /// A long parenthesised list: one item per line.
    List,
    /// Everything on one line.
    Inline,
    /// CASE … END with WHEN/ELSE on their own lines.
    CaseBlock,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    kind: FrameKind,
    /// Indent of this frame's clause keywords (or list items).
    base: usize,
    /// Indent of the line that opened it, where its closer goes.
    open_indent: usize,
    close: u32,
    clause: Clause,
    at_start: bool,
    is_update: bool,
    in_between: bool,
    /// In ALTER TABLE: the first action has started its line.
    in_action: bool,
}

impl Frame {
    fn new(kind: FrameKind, base: usize, open_indent: usize, close: u32) -> Self {
        Frame {
            kind,
            base,
            open_indent,
            close,
            clause: Clause::None,
            at_start: true,
            is_update: false,
            in_between: false,
            in_action: false,
        }
    }

    fn content(&self) -> usize {
        match (self.kind, self.clause) {
            (FrameKind::Query, Clause::None | Clause::AlterTable) => self.base,
            (FrameKind::Query, _) => self.base + 1,
            _ => self.base,
        }
    }
}

/// The output text and the whitespace owed before the next token.
struct Out<'o> {
    s: String,
    opts: &'o Options,
    newlines: usize,
    indent: usize,
    space: bool,
    line_indent: usize,
}

impl Out<'_> {
    fn newline(&mut self, indent: usize) {
        self.newline_n(1, indent);
    }

    fn newline_n(&mut self, n: usize, indent: usize) {
        if self.opts.minify {
            self.space = true;
            return;
        }
        if n >= self.newlines {
            self.indent = indent;
        }
        self.newlines = self.newlines.max(n);
    }

    fn line_is_empty(&self) -> bool {
        self.s.is_empty() || self.s.ends_with('\n')
    }

    fn emit(&mut self, text: &str) {
        if self.newlines > 0 && !self.s.is_empty() {
            let trimmed = self.s.trim_end_matches([' ', '\t']).len();
            self.s.truncate(trimmed);
            for _ in 0..self.newlines {
                self.s.push('\n');
            }
            for _ in 0..self.indent {
                self.s.push_str(self.opts.indent);
            }
            self.line_indent = self.indent;
        } else if self.space && !self.line_is_empty() {
            self.s.push(' ');
        }
        self.newlines = 0;
        self.space = false;
        self.s.push_str(text);
    }
}

pub(super) fn format(src: &str, opts: &Options) -> Result<String, ToolError> {
    let tokens = tokenize(src, opts.dialect)?;
    if opts.minify
        && let Some(t) = tokens.iter().find(|t| t.kind == Kind::LineComment)
    {
        let (line, col) = line_col(src, t.start as usize);
        return Err(ToolError::invalid(format!(
            "cannot minify: line {line}, column {col} holds a line comment, which would swallow the rest of the joined line; rewrite it as /* ... */ or use mode 'format'"
        )));
    }
    let partner = match_groups(src, &tokens)?;
    // Widths in the input (token lengths plus one per gap) and forced line breaks, as prefix
    // sums, so that any group's width is two lookups.
    let mut width = Vec::with_capacity(tokens.len() + 1);
    let mut breaks = Vec::with_capacity(tokens.len() + 1);
    let (mut w, mut b) = (0u32, 0u32);
    for t in &tokens {
        width.push(w);
        breaks.push(b);
        w = w.saturating_add(t.end - t.start + u32::from(t.space_before));
        b += u32::from(t.kind == Kind::LineComment);
    }
    width.push(w);
    breaks.push(b);
    let keywords = (0..tokens.len())
        .map(|i| {
            let dotted = (i > 0 && tokens[i - 1].kind == Kind::Dot)
                || tokens.get(i + 1).is_some_and(|n| n.kind == Kind::Dot);
            let t = &tokens[i];
            (t.kind == Kind::Word && !dotted)
                .then(|| keywords::lookup(t.text(src)))
                .flatten()
        })
        .collect();
    let mut layout = Layout {
        src,
        tokens: &tokens,
        keywords,
        partner: &partner,
        width: &width,
        breaks: &breaks,
        opts,
        out: Out {
            s: String::with_capacity(src.len() + src.len() / 4),
            opts,
            newlines: 0,
            indent: 0,
            space: false,
            line_indent: 0,
        },
        stack: vec![Frame::new(FrameKind::Query, 0, 0, NONE)],
    };
    layout.run();
    let mut s = layout.out.s;
    s.truncate(s.trim_end().len());
    Ok(s)
}

struct Layout<'a> {
    src: &'a str,
    tokens: &'a [Token],
    /// The keyword each token spells, unless it is part of a dotted name.
    keywords: Vec<Option<&'static str>>,
    partner: &'a [u32],
    width: &'a [u32],
    breaks: &'a [u32],
    opts: &'a Options,
    out: Out<'a>,
    stack: Vec<Frame>,
}

/// Words that may stand before JOIN; FULL, SEMI and ANTI are no keywords of `keywords`,
/// as they are names wherever they do not start a join.
const JOIN_WORDS: &[&str] = &[
    "NATURAL", "LEFT", "RIGHT", "FULL", "INNER", "CROSS", "OUTER", "SEMI", "ANTI",
];

/// ALTER TABLE actions that start a line (MySQL's MODIFY and CHANGE, RENAME TO/COLUMN).
const ALTER_ACTIONS: &[&str] = &["ADD", "DROP", "ALTER", "MODIFY", "CHANGE", "RENAME"];

impl Layout<'_> {
    fn top(&mut self) -> &mut Frame {
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    fn text(&self, i: usize) -> &str {
        self.tokens[i].text(self.src)
    }

    fn dotted(&self, i: usize) -> bool {
        (i > 0 && self.tokens[i - 1].kind == Kind::Dot)
            || self.tokens.get(i + 1).is_some_and(|n| n.kind == Kind::Dot)
    }

    /// The keyword token `i` spells, unless it is part of a dotted name.
    fn kw(&self, i: usize) -> Option<&'static str> {
        self.keywords.get(i).copied().flatten()
    }

    /// Whether token `i` is the bare word `upper` (any case), not part of a dotted name:
    /// for words that are keywords in one position only and so are not in `keywords`.
    fn word_is(&self, i: usize, upper: &str) -> bool {
        self.tokens
            .get(i)
            .is_some_and(|t| upper_is(self.src, t, upper))
            && !self.dotted(i)
    }

    fn word_in(&self, i: usize, words: &[&str]) -> bool {
        words.iter().any(|w| self.word_is(i, w))
    }

    /// A word that may start a join. MySQL has no FULL JOIN: there `a full join b` makes
    /// `full` the alias of `a`, so it stays a name.
    fn join_word(&self, i: usize) -> bool {
        self.word_in(i, JOIN_WORDS)
            && !(self.opts.dialect == Dialect::MySql && self.word_is(i, "FULL"))
    }

    fn next_is_open(&self, i: usize) -> bool {
        self.tokens
            .get(i + 1)
            .is_some_and(|t| t.kind == Kind::Open && t.text(self.src) == "(")
    }

    /// Whether the `(` at `i` opens a function's arguments: it follows a name (not a keyword).
    fn call_paren(&self, i: usize) -> bool {
        i > 0
            && matches!(self.tokens[i - 1].kind, Kind::Word | Kind::QuotedIdent)
            && !self.reserved_here(i - 1)
    }

    /// Whether VALUES at `i` is MySQL's `VALUES(col)` function rather than a row list: it is
    /// called where an expression starts (after an operator, a comma, a function's `(` or a
    /// keyword that takes an expression).
    fn values_function(&self, i: usize) -> bool {
        if i == 0 || !self.next_is_open(i) {
            return false;
        }
        match self.tokens[i - 1].kind {
            Kind::Operator | Kind::Comma => true,
            Kind::Open => self.call_paren(i - 1),
            Kind::Word => matches!(
                self.prev_kw(i),
                Some(
                    "SELECT"
                        | "WHERE"
                        | "AND"
                        | "OR"
                        | "NOT"
                        | "ON"
                        | "WHEN"
                        | "THEN"
                        | "ELSE"
                        | "HAVING"
                        | "BY"
                        | "RETURN"
                )
            ),
            _ => false,
        }
    }

    fn prev_kw(&self, i: usize) -> Option<&'static str> {
        if i == 0 { None } else { self.kw(i - 1) }
    }

    fn group_width(&self, open: usize, close: usize) -> u32 {
        self.width[close + 1] - self.width[open]
    }

    /// Whether the group has a comma of its own (not inside a nested group): only a list
    /// is worth one item per line.
    fn has_own_comma(&self, open: usize, close: usize) -> bool {
        let mut j = open + 1;
        while j < close {
            match self.tokens[j].kind {
                Kind::Comma => return true,
                Kind::Open if self.partner[j] != NONE && (self.partner[j] as usize) < close => {
                    j = self.partner[j] as usize;
                }
                _ => {}
            }
            j += 1;
        }
        false
    }

    fn group_breaks(&self, open: usize, close: usize) -> bool {
        self.breaks[close + 1] != self.breaks[open]
    }

    /// The word as it is written out: keywords re-cased when `as_keyword`.
    fn cased(&self, i: usize, as_keyword: bool) -> String {
        let text = self.text(i);
        match (self.opts.case, as_keyword) {
            (KeywordCase::Upper, true) => text.to_ascii_uppercase(),
            (KeywordCase::Lower, true) => text.to_ascii_lowercase(),
            _ => text.to_string(),
        }
    }

    /// Whether a reserved word at `i` is used as a keyword here: not a dotted name, not the
    /// alias after AS at query level, not a table name right after FROM/JOIN/INTO/UPDATE/TABLE.
    fn reserved_here(&self, i: usize) -> bool {
        let Some(kw) = self.kw(i) else {
            return false;
        };
        if !keywords::reserved(kw, self.opts.dialect) {
            return false;
        }
        let prev = self.prev_kw(i);
        let query_level = self
            .stack
            .last()
            .is_some_and(|f| f.kind == FrameKind::Query);
        if prev == Some("AS") && query_level && !matches!(kw, "SELECT" | "WITH" | "VALUES") {
            return false;
        }
        if matches!(prev, Some("FROM" | "JOIN" | "INTO" | "UPDATE" | "TABLE"))
            && !matches!(kw, "LATERAL" | "IF" | "SELECT" | "WITH" | "VALUES")
        {
            return false;
        }
        true
    }

    /// Whether the previous token makes an operator at `i` unary (`-1`, `NOT -x`).
    fn unary_position(&self, i: usize) -> bool {
        if i == 0 {
            return true;
        }
        let p = &self.tokens[i - 1];
        match p.kind {
            Kind::Open | Kind::Comma | Kind::Operator | Kind::Semicolon => true,
            Kind::Word => self.kw(i - 1).is_some() && !upper_is(self.src, p, "END"),
            Kind::LineComment | Kind::BlockComment => true,
            _ => false,
        }
    }

    /// Whether to put a space between token `i - 1` and token `i` on one line.
    fn space_before(&self, i: usize) -> bool {
        if i == 0 {
            return false;
        }
        let (p, t) = (&self.tokens[i - 1], &self.tokens[i]);
        let input = t.space_before;
        match (p.kind, t.kind) {
            (Kind::LineComment, _) => true,
            (_, Kind::Comma | Kind::Semicolon) => false,
            (_, Kind::Close) => false,
            (Kind::Open, _) => false,
            // Spacing around a dot is kept: joining `1 . 5` would make one number, and
            // `a . end` would turn a keyword into part of a name.
            (Kind::Dot, _) | (_, Kind::Dot) => input,
            (Kind::Comma, _) => true,
            (Kind::Word, Kind::Open) if self.spaced_before_paren(i - 1) => true,
            (_, Kind::Open) => input,
            (Kind::Operator, _) if self.is_colon_cast(i - 1) => input,
            (_, Kind::Operator) if self.is_colon_cast(i) => input,
            (Kind::Operator, _) if self.unary_position(i - 1) => input,
            (Kind::Operator, _) => true,
            (_, Kind::Operator) => true,
            _ => input,
        }
    }

    /// Keywords that take a space before `(`. Others keep the input's spacing: in MySQL a
    /// space after a function name (`count (`, `left (`) changes how the name is read.
    fn spaced_before_paren(&self, i: usize) -> bool {
        self.reserved_here(i)
            && matches!(
                self.kw(i),
                Some(
                    "IN" | "AS"
                        | "ON"
                        | "USING"
                        | "OVER"
                        | "EXISTS"
                        | "AND"
                        | "OR"
                        | "NOT"
                        | "FROM"
                        | "JOIN"
                        | "WHERE"
                        | "SELECT"
                        | "THEN"
                        | "ELSE"
                        | "WHEN"
                        | "INTO"
                        | "TABLE"
                        | "UNION"
                        | "ALL"
                        | "ANY"
                        | "WITH"
                        | "HAVING"
                        | "BY"
                        | "LIKE"
                        | "IS"
                        | "BETWEEN"
                        | "KEY"
                        | "REFERENCES"
                        | "UNIQUE"
                        | "CHECK"
                        | "LATERAL"
                )
            )
    }

    fn is_colon_cast(&self, i: usize) -> bool {
        self.tokens[i].kind == Kind::Operator && self.text(i) == "::"
    }

    fn emit(&mut self, i: usize, text: &str) {
        if self.space_before(i) {
            self.out.space = true;
        }
        self.out.emit(text);
    }

    fn emit_word(&mut self, i: usize, as_keyword: bool) {
        let text = self.cased(i, as_keyword);
        self.emit(i, &text);
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.tokens.len() {
            i = self.step(i);
        }
    }

    /// Lays out token `i` (and any keywords that belong with it); returns the next index.
    fn step(&mut self, i: usize) -> usize {
        let t = self.tokens[i];
        let frame = *self
            .stack
            .last()
            .unwrap_or(&Frame::new(FrameKind::Query, 0, 0, NONE));
        match t.kind {
            Kind::LineComment | Kind::BlockComment => {
                self.comment(i, frame);
                return i + 1;
            }
            Kind::Semicolon => {
                self.emit(i, ";");
                self.stack.truncate(1);
                self.stack[0] = Frame::new(FrameKind::Query, 0, 0, NONE);
                self.out.newline_n(self.opts.lines_between, 0);
                return i + 1;
            }
            Kind::Comma => {
                self.comma(i, frame);
                return i + 1;
            }
            Kind::Open => {
                self.open(i, frame);
                return i + 1;
            }
            Kind::Close => {
                self.close(i, frame, ")");
                return i + 1;
            }
            Kind::Word => return self.word(i, frame),
            _ => {}
        }
        self.top().at_start = false;
        let text = self.text(i).to_string();
        self.emit(i, &text);
        i + 1
    }

    fn comment(&mut self, i: usize, frame: Frame) {
        let t = self.tokens[i];
        let text = self.text(i).to_string();
        let content = frame.content();
        if t.newline_before && i > 0 {
            self.out.newline(if self.out.newlines > 0 {
                self.out.indent
            } else {
                content
            });
            self.out.emit(&text);
        } else if self.out.newlines > 0 && !self.out.s.is_empty() {
            // A comment that ended a line in the input stays on that line.
            let (n, indent) = (self.out.newlines, self.out.indent);
            self.out.newlines = 0;
            self.out.space = true;
            self.out.emit(&text);
            self.out.newline_n(n, indent);
        } else {
            self.emit(i, &text);
        }
        let next_on_new_line = self
            .tokens
            .get(i + 1)
            .is_some_and(|n| n.newline_before && n.kind != Kind::Semicolon);
        if t.kind == Kind::LineComment {
            // Nothing may follow a line comment on its line, not even in minify mode.
            let indent = if self.out.newlines > 0 {
                self.out.indent
            } else {
                content
            };
            self.out.newlines = self.out.newlines.max(1);
            self.out.indent = indent;
        } else if next_on_new_line && self.out.newlines == 0 {
            self.out.newline(content);
        }
    }

    fn comma(&mut self, i: usize, frame: Frame) {
        // MySQL's `LIMIT offset, count` is one value pair, kept on one line.
        let breaks = matches!(frame.kind, FrameKind::Query | FrameKind::List)
            && !(frame.kind == FrameKind::Query
                && matches!(frame.clause, Clause::None | Clause::Limit));
        if !breaks {
            self.emit(i, ",");
            return;
        }
        let content = frame.content();
        if self.opts.leading_commas && !self.opts.minify {
            self.out.newline(content);
            self.out.emit(",");
            self.out.space = true;
        } else {
            self.emit(i, ",");
            self.out.newline(content);
        }
    }

    fn open(&mut self, i: usize, frame: Frame) {
        let close = self.partner[i];
        let bracket = self.text(i).to_string();
        self.top().at_start = false;
        if close == NONE || frame.kind == FrameKind::Inline || bracket == "[" {
            self.emit(i, &bracket);
            self.stack
                .push(Frame::new(FrameKind::Inline, frame.base, frame.base, close));
            return;
        }
        let close_i = close as usize;
        let first = (i + 1..close_i)
            .find(|&j| !matches!(self.tokens[j].kind, Kind::LineComment | Kind::BlockComment));
        let subquery = first.is_some_and(|j| match self.kw(j) {
            Some("SELECT" | "WITH" | "INSERT" | "UPDATE" | "DELETE") => true,
            Some("VALUES") => !self.values_function(j),
            _ => false,
        });
        let forced = self.group_breaks(i, close_i);
        let row = frame.kind == FrameKind::Query && frame.clause == Clause::Values;
        let kind = if subquery && (!row || forced) {
            FrameKind::Query
        } else if !forced
            && (row
                || self.group_width(i, close_i) <= INLINE_WIDTH
                || !self.has_own_comma(i, close_i))
        {
            FrameKind::Inline
        } else {
            FrameKind::List
        };
        self.emit(i, &bracket);
        if kind == FrameKind::Inline {
            self.stack
                .push(Frame::new(FrameKind::Inline, frame.base, frame.base, close));
            return;
        }
        let line = self.out.line_indent;
        self.stack.push(Frame::new(kind, line + 1, line, close));
        self.out.newline(line + 1);
    }

    fn close(&mut self, i: usize, frame: Frame, text: &str) {
        let text = if text == ")" {
            self.text(i).to_string()
        } else {
            text.to_string()
        };
        if frame.close as usize == i && self.stack.len() > 1 {
            self.stack.pop();
            if matches!(
                frame.kind,
                FrameKind::Query | FrameKind::List | FrameKind::CaseBlock
            ) {
                self.out.newline(frame.open_indent);
            }
        }
        self.top().at_start = false;
        self.emit(i, &text);
    }

    /// How many words from `i` on form one keyword phrase, each in `then`, at least one.
    fn phrase(&self, i: usize, then: &[&str]) -> usize {
        let mut n = 1;
        while self.kw(i + n).is_some_and(|k| then.contains(&k)) {
            n += 1;
        }
        n
    }

    fn emit_phrase(&mut self, i: usize, n: usize) {
        for j in i..i + n {
            self.emit_word(j, true);
        }
    }

    fn word(&mut self, i: usize, frame: Frame) -> usize {
        let kw = self.kw(i);
        let reserved = self.reserved_here(i);
        // CASE … END
        if kw == Some("CASE") && self.partner[i] != NONE {
            let close = self.partner[i] as usize;
            // As the JS sql-formatter, CASE puts each WHEN and ELSE on a line of its own,
            // however short; only inside a group kept on one line does it stay there too.
            let inline = frame.kind == FrameKind::Inline;
            self.top().at_start = false;
            self.emit_word(i, true);
            let line = self.out.line_indent;
            let kind = if inline {
                FrameKind::Inline
            } else {
                FrameKind::CaseBlock
            };
            self.stack
                .push(Frame::new(kind, line + 1, line, close as u32));
            return i + 1;
        }
        if kw == Some("END") && frame.close as usize == i {
            let text = self.cased(i, true);
            self.close(i, frame, &text);
            return i + 1;
        }
        if frame.kind == FrameKind::CaseBlock && matches!(kw, Some("WHEN" | "ELSE")) {
            self.out.newline(frame.base);
            self.emit_word(i, true);
            return i + 1;
        }
        if frame.kind == FrameKind::Query
            && let Some(next) = self.query_keyword(i, frame)
        {
            return next;
        }
        let structural = self.contextual_keyword(i, frame) || self.row_limit_word(i, frame);
        self.top().at_start = false;
        self.emit_word(i, reserved || structural);
        i + 1
    }

    /// `ROW`/`ROWS`, `ONLY` and `TIES` of `OFFSET n ROWS FETCH FIRST n ROWS ONLY|WITH TIES`.
    fn row_limit_word(&self, i: usize, frame: Frame) -> bool {
        if !matches!(frame.clause, Clause::Offset | Clause::Fetch) || i == 0 {
            return false;
        }
        let prev_value = matches!(
            self.tokens[i - 1].kind,
            Kind::Number | Kind::Param | Kind::Close
        );
        (self.word_in(i, &["ROW", "ROWS"]) && prev_value)
            || (self.word_is(i, "ONLY") && self.word_in(i - 1, &["ROW", "ROWS"]))
            || (self.word_is(i, "TIES") && self.word_is(i - 1, "WITH"))
    }

    /// Contextual keywords re-cased where they stand (see `keywords::CONTEXTUAL`).
    fn contextual_keyword(&self, i: usize, frame: Frame) -> bool {
        let Some(kw) = self.kw(i) else {
            return false;
        };
        let prev = self.prev_kw(i);
        let next = self.kw(i + 1);
        match kw {
            "BEGIN" | "COMMIT" | "ROLLBACK" | "TRUNCATE" | "VACUUM" | "ANALYZE" | "START" => {
                frame.at_start && frame.kind == FrameKind::Query
            }
            "TRANSACTION" => matches!(prev, Some("BEGIN" | "START" | "COMMIT" | "ROLLBACK")),
            "VIEW" | "SEQUENCE" | "MATERIALIZED" | "TEMP" | "TEMPORARY" | "EXTENSION" | "TYPE"
            | "SCHEMA" | "DATABASE" | "REPLACE" => matches!(
                prev,
                Some("CREATE" | "ALTER" | "DROP" | "OR" | "TEMP" | "TEMPORARY" | "MATERIALIZED")
            ),
            "NULLS" => matches!(next, Some("FIRST" | "LAST")),
            // PostgreSQL's `FROM ONLY t` and `ALTER TABLE [IF EXISTS] ONLY t`.
            "ONLY" => {
                self.opts.dialect == Dialect::PostgreSql
                    && matches!(prev, Some("FROM" | "JOIN" | "TABLE" | "EXISTS"))
                    && self
                        .tokens
                        .get(i + 1)
                        .is_some_and(|t| matches!(t.kind, Kind::Word | Kind::QuotedIdent))
            }
            "FIRST" | "LAST" => prev == Some("NULLS"),
            "TOP" => {
                self.opts.dialect == Dialect::SqlServer
                    && matches!(prev, Some("SELECT" | "DISTINCT"))
            }
            _ => false,
        }
    }

    /// Clause keywords, joins and AND/OR of a query frame; `None` when `i` is none of them.
    fn query_keyword(&mut self, i: usize, frame: Frame) -> Option<usize> {
        // Joins: the whole phrase (NATURAL LEFT OUTER JOIN, CROSS APPLY) on one line.
        if frame.clause == Clause::From
            && (self.join_word(i) || self.kw(i) == Some("JOIN") || self.word_is(i, "STRAIGHT_JOIN"))
        {
            let mut n = 0;
            while self.join_word(i + n) {
                n += 1;
            }
            if self.kw(i + n) == Some("JOIN") || self.word_in(i + n, &["APPLY", "STRAIGHT_JOIN"]) {
                self.out.newline(frame.base + 1);
                self.emit_phrase(i, n + 1);
                self.top().at_start = false;
                return Some(i + n + 1);
            }
        }
        if frame.clause == Clause::AlterTable
            && self.word_in(i, ALTER_ACTIONS)
            && (!frame.in_action || self.tokens[i - 1].kind == Kind::Comma)
        {
            // After a comma the comma has already broken the line.
            if !frame.in_action {
                self.out.newline(frame.base);
            }
            self.top().in_action = true;
            self.emit_word(i, true);
            return Some(i + 1);
        }
        let kw = self.kw(i)?;
        let prev = self.prev_kw(i);
        let next = self.kw(i + 1);
        let at_start = frame.at_start || frame.clause == Clause::With;
        let clause = |c: Clause| Some(c);
        let (clause, n, set_op) = match kw {
            "SELECT" => (
                clause(Clause::Select),
                self.phrase(i, &["DISTINCT", "ALL"]),
                false,
            ),
            "FROM" if !matches!(prev, Some("DISTINCT")) => (clause(Clause::From), 1, false),
            "WHERE" => (clause(Clause::Where), 1, false),
            "GROUP" if next == Some("BY") => (clause(Clause::GroupBy), 2, false),
            "ORDER" if next == Some("BY") => (clause(Clause::OrderBy), 2, false),
            "HAVING" => (clause(Clause::Having), 1, false),
            "LIMIT" => (clause(Clause::Limit), 1, false),
            // OFFSET may name a column in MySQL and SQLite: after a table or a condition it
            // is the clause only when a count follows.
            "OFFSET"
                if matches!(frame.clause, Clause::Limit | Clause::OrderBy)
                    || (matches!(
                        frame.clause,
                        Clause::From | Clause::Where | Clause::GroupBy | Clause::Having
                    ) && self
                        .tokens
                        .get(i + 1)
                        .is_some_and(|t| matches!(t.kind, Kind::Number | Kind::Param))) =>
            {
                (clause(Clause::Offset), 1, false)
            }
            // `FETCH FIRST|NEXT`; a statement that starts with FETCH reads a cursor.
            "FETCH" if frame.clause != Clause::None && self.word_in(i + 1, &["FIRST", "NEXT"]) => {
                (clause(Clause::Fetch), 2, false)
            }
            // A WINDOW clause names its window first, so `window(x)` calls a function.
            "WINDOW" if !self.next_is_open(i) => (clause(Clause::Other), 1, false),
            "QUALIFY" | "RETURNING" => (clause(Clause::Other), 1, false),
            // MySQL's upsert: its assignments are laid out as SET's.
            "ON" if self.word_is(i + 1, "DUPLICATE")
                && self.kw(i + 2) == Some("KEY")
                && self.kw(i + 3) == Some("UPDATE") =>
            {
                (clause(Clause::Set), 4, false)
            }
            "ALTER" if at_start && next == Some("TABLE") => (clause(Clause::AlterTable), 2, false),
            "SET" if frame.is_update || at_start || prev == Some("UPDATE") => {
                (clause(Clause::Set), 1, false)
            }
            // MySQL's `c = VALUES(c)` is a function, not a row list.
            "VALUES" if !self.values_function(i) => (clause(Clause::Values), 1, false),
            "WITH" if frame.at_start => {
                (clause(Clause::With), self.phrase(i, &["RECURSIVE"]), false)
            }
            "INSERT" if at_start => (
                clause(Clause::Other),
                self.phrase(
                    i,
                    &[
                        "INTO",
                        "IGNORE",
                        "OR",
                        "REPLACE",
                        "ABORT",
                        "FAIL",
                        "ROLLBACK",
                        "OVERWRITE",
                    ],
                ),
                false,
            ),
            "REPLACE" if at_start && !self.next_is_open(i) => {
                (clause(Clause::Other), self.phrase(i, &["INTO"]), false)
            }
            "MERGE" if at_start => (clause(Clause::Other), self.phrase(i, &["INTO"]), false),
            "UPDATE" if at_start => (clause(Clause::Other), 1, false),
            "DELETE" if at_start => (clause(Clause::Other), self.phrase(i, &["FROM"]), false),
            "UNION" | "INTERSECT" | "EXCEPT" | "MINUS" if self.is_set_operator(i, kw) => (
                clause(Clause::None),
                self.phrase(i, &["ALL", "DISTINCT"]),
                true,
            ),
            _ => (None, 0, false),
        };
        if let Some(c) = clause {
            let base = frame.base;
            self.out.newline(base);
            self.emit_phrase(i, n);
            let top = self.top();
            top.clause = c;
            top.at_start = set_op;
            top.in_between = false;
            top.in_action = false;
            if kw == "UPDATE" {
                top.is_update = true;
            }
            // ALTER TABLE keeps its table name on its line; its actions start the next.
            if c != Clause::AlterTable {
                self.out.newline(if set_op { base } else { base + 1 });
            }
            return Some(i + n);
        }
        if frame.clause == Clause::None {
            return None;
        }
        match kw {
            "BETWEEN" => self.top().in_between = true,
            "AND" if frame.in_between => {
                self.top().in_between = false;
                return None;
            }
            "AND" | "OR"
                if matches!(
                    frame.clause,
                    Clause::Where | Clause::Having | Clause::From | Clause::Other
                ) =>
            {
                self.out.newline(frame.base + 1);
                self.emit_word(i, true);
                return Some(i + 1);
            }
            _ => {}
        }
        None
    }

    fn is_set_operator(&self, i: usize, kw: &str) -> bool {
        // BigQuery's SELECT * EXCEPT (a) and REPLACE are column modifiers, not set operators.
        if i > 0 && self.text(i - 1) == "*" {
            return false;
        }
        if kw == "MINUS" && self.opts.dialect != Dialect::PlSql {
            return false;
        }
        if self.opts.dialect == Dialect::BigQuery {
            return matches!(self.kw(i + 1), Some("ALL" | "DISTINCT"));
        }
        true
    }
}
