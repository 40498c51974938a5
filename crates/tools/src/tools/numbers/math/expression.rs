//! math-evaluator's expressions: a small Pratt parser and evaluator over f64, with our syntax
//! checks, functions and constants, and errors that point at the faulty place.
//!
//! No permissively licensed crate keeps this tool's language (comparisons and booleans,
//! tuples, variadic min/max, strings, located errors, the infix of a division by zero), so the
//! grammar is written here; SPEC.md "Build" says why.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::depth;
use crate::tools::numbers::units::{number, round_sig};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::f64::consts::{E, PI, TAU};

/// The parser and the evaluator recurse once per level of the tree, which grows as deep as the
/// brackets nest plus the operators chain (`-(-(-1))`, `2^2^2`): the operators and the deepest
/// bracket nesting together may not pass [`depth::MAX_DEPTH`].
pub(super) fn check_depth(input: &str) -> Result<(), ToolError> {
    let (mut open, mut deepest, mut operators) = (0usize, 0usize, 0usize);
    let mut in_string = false;
    let mut previous = ' ';
    for (i, c) in input.char_indices() {
        if in_string {
            in_string = c != '"';
        } else {
            match c {
                '"' => in_string = true,
                '(' => {
                    open += 1;
                    deepest = deepest.max(open);
                }
                ')' => open = open.saturating_sub(1),
                // `<=`, `&&`, `+=` and the like are one operator.
                '+' | '-' | '*' | '/' | '%' | '^' | '=' | '<' | '>' | '!' | '&' | '|' | ';'
                    if !matches!(
                        previous,
                        '+' | '-' | '*' | '/' | '%' | '^' | '=' | '<' | '>' | '!' | '&' | '|'
                    ) || matches!(c, '-' | '!') =>
                {
                    operators += 1;
                }
                _ => {}
            }
        }
        previous = c;
        if deepest + operators > depth::MAX_DEPTH {
            return Err(depth::too_deep(
                "the expression",
                depth::MAX_DEPTH,
                depth::place(input, i),
            ));
        }
    }
    Ok(())
}

pub(super) fn evaluate(
    input: &str,
    variables: Option<&Value>,
    degrees: bool,
    digits: usize,
) -> ToolOutcome {
    if input.trim().is_empty() {
        return Err(ToolError::invalid("the expression is empty"));
    }
    check_syntax(input)?;
    let tree = Parser::new(input)?.parse()?;
    let scope = Scope::new(variables, degrees)?;
    let value = scope.eval(&tree)?;
    let result = to_json(&value, digits).ok_or_else(|| match zero_division(&tree, &scope) {
        Some(at) => ToolError::invalid(format!("division by zero in '{at}'")),
        None => ToolError::invalid(
            "the result is not a finite number (for example the square root or logarithm of a negative number, or an overflow)",
        ),
    })?;
    let output = render(&result);
    Ok(json!({ "output": output, "result": result, "expression": input.trim() }))
}

/// A result as a person writes it: 5 rather than 5.0, tuples as "1, 2".
fn render(value: &Value) -> String {
    match value {
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), number),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(render).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// Finds unbalanced parentheses, operators missing an operand and values with no operator
/// between them, each with its character position, in one pass over the whole text.
fn check_syntax(input: &str) -> Result<(), ToolError> {
    #[derive(PartialEq, Clone, Copy)]
    enum Prev {
        Start,
        Value,
        Name,
        Operator,
        Open,
        Close,
    }
    let chars: Vec<char> = input.chars().collect();
    let mut open = Vec::new();
    let mut prev = Prev::Start;
    let mut last_op = (0, String::new());
    let mut i = 0;
    let err = |msg: String| Err(ToolError::invalid(msg));
    while i < chars.len() {
        let c = chars[i];
        let at = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            if matches!(prev, Prev::Value | Prev::Name | Prev::Close) {
                return err(format!(
                    "missing operator before the string at character {at}"
                ));
            }
            prev = Prev::Value;
            continue;
        }
        if is_word_char(c) {
            let start = i;
            i = word_end(&chars, i);
            if matches!(prev, Prev::Value | Prev::Name | Prev::Close) {
                let word: String = chars[start..i].iter().collect();
                return err(format!(
                    "missing operator before '{word}' at character {at}"
                ));
            }
            prev = if chars[start].is_ascii_digit() || chars[start] == '.' {
                Prev::Value
            } else {
                Prev::Name
            };
            continue;
        }
        match c {
            '(' => {
                if matches!(prev, Prev::Value | Prev::Close) {
                    return err(format!("missing operator before '(' at character {at}"));
                }
                open.push(at);
                prev = Prev::Open;
                i += 1;
                continue;
            }
            ')' => {
                if open.pop().is_none() {
                    return err(format!("unmatched ')' at character {at}"));
                }
                if prev == Prev::Operator {
                    return err(format!(
                        "'{}' at character {} has no right operand",
                        last_op.1, last_op.0
                    ));
                }
                prev = Prev::Close;
                i += 1;
                continue;
            }
            _ => {}
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        let op = if ["==", "!=", "<=", ">=", "&&", "||"].contains(&two.as_str()) {
            two
        } else {
            c.to_string()
        };
        if !"+-*/%^<>!,=&|".contains(c) {
            return err(format!("unexpected character '{c}' at character {at}"));
        }
        let unary = matches!(op.as_str(), "-" | "+" | "!");
        if !unary && matches!(prev, Prev::Start | Prev::Operator | Prev::Open) {
            return err(format!("'{op}' at character {at} has no left operand"));
        }
        i += op.chars().count();
        last_op = (at, op);
        prev = Prev::Operator;
    }
    if prev == Prev::Operator {
        return err(format!(
            "'{}' at character {} has no right operand",
            last_op.1, last_op.0
        ));
    }
    match open.last() {
        Some(at) => err(format!("'(' at character {at} is never closed")),
        None => Ok(()),
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | ':')
}

/// Where the word (a number or a name) starting at `start` ends.
fn word_end(chars: &[char], start: usize) -> usize {
    let mut i = start;
    while i < chars.len() && is_word_char(chars[i]) {
        i += 1;
        // Scientific notation: 1e-3, 2.5E+4.
        if i + 1 < chars.len()
            && matches!(chars[i - 1], 'e' | 'E')
            && matches!(chars[i], '+' | '-')
            && chars[i + 1].is_ascii_digit()
            && chars[start].is_ascii_digit()
        {
            i += 1;
        }
    }
    i
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    And,
    Or,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Mod => "%",
            Op::Pow => "^",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Ge => ">=",
            Op::And => "&&",
            Op::Or => "||",
        }
    }

    /// Binding power: `||` < `&&` < comparisons < `+ -` < `* / %` < unary `- !` < `^`.
    fn power(self) -> u8 {
        match self {
            Op::Or => 70,
            Op::And => 75,
            Op::Eq | Op::Ne | Op::Lt | Op::Gt | Op::Le | Op::Ge => 80,
            Op::Add | Op::Sub => 95,
            Op::Mul | Op::Div | Op::Mod => 100,
            Op::Pow => 120,
        }
    }
}

/// Binding power of the tuple comma, below every operator.
const COMMA: u8 = 40;
/// Binding power of unary `-` and `!`: above `*`, below `^` (`-2^2` is -4).
const PREFIX: u8 = 110;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Bool(bool),
    Str(String),
    Name(String),
    Op(Op),
    Not,
    Open,
    Close,
    Comma,
    /// `=`, refused with its own message.
    Assign,
}

#[derive(Debug)]
struct Token {
    tok: Tok,
    /// Character position from 1, as the messages give it.
    at: usize,
    /// Byte offset, for [`depth::place`].
    byte: usize,
}

fn tokenize(input: &str) -> Result<Vec<Token>, ToolError> {
    let chars: Vec<char> = input.chars().collect();
    let bytes: Vec<usize> = input.char_indices().map(|(b, _)| b).collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let tok = if c.is_whitespace() {
            i += 1;
            continue;
        } else if c == '"' {
            // Only \" and \\ escape, as the engine before this one read strings.
            let mut text = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => {
                        return Err(ToolError::invalid(format!(
                            "the string at character {} is never closed",
                            start + 1
                        )));
                    }
                    Some('"') => break,
                    Some('\\') => match chars.get(i + 1) {
                        Some(&e @ ('"' | '\\')) => {
                            text.push(e);
                            i += 1;
                        }
                        other => {
                            return Err(ToolError::invalid(format!(
                                "unknown escape '\\{}' at character {} (strings know \\\" and \\\\)",
                                other.map(char::to_string).unwrap_or_default(),
                                i + 1
                            )));
                        }
                    },
                    Some(&ch) => text.push(ch),
                }
                i += 1;
            }
            i += 1;
            Tok::Str(text)
        } else if is_word_char(c) {
            i = word_end(&chars, i);
            let word: String = chars[start..i].iter().collect();
            // A word that is not a number is a name: `2pi` is then an unknown variable,
            // whose message says to write 2*pi.
            let number = (c.is_ascii_digit() || c == '.')
                .then(|| word.parse::<f64>().ok())
                .flatten();
            match (number, word.as_str()) {
                (Some(n), _) => Tok::Num(n),
                (None, "true") => Tok::Bool(true),
                (None, "false") => Tok::Bool(false),
                _ => Tok::Name(word),
            }
        } else {
            let next = chars.get(i + 1).copied();
            let (tok, len) = match (c, next) {
                ('=', Some('=')) => (Tok::Op(Op::Eq), 2),
                ('!', Some('=')) => (Tok::Op(Op::Ne), 2),
                ('<', Some('=')) => (Tok::Op(Op::Le), 2),
                ('>', Some('=')) => (Tok::Op(Op::Ge), 2),
                ('&', Some('&')) => (Tok::Op(Op::And), 2),
                ('|', Some('|')) => (Tok::Op(Op::Or), 2),
                ('+', _) => (Tok::Op(Op::Add), 1),
                ('-', _) => (Tok::Op(Op::Sub), 1),
                ('*', _) => (Tok::Op(Op::Mul), 1),
                ('/', _) => (Tok::Op(Op::Div), 1),
                ('%', _) => (Tok::Op(Op::Mod), 1),
                ('^', _) => (Tok::Op(Op::Pow), 1),
                ('<', _) => (Tok::Op(Op::Lt), 1),
                ('>', _) => (Tok::Op(Op::Gt), 1),
                ('!', _) => (Tok::Not, 1),
                ('(', _) => (Tok::Open, 1),
                (')', _) => (Tok::Close, 1),
                (',', _) => (Tok::Comma, 1),
                ('=', _) => (Tok::Assign, 1),
                ('&' | '|', _) => {
                    return Err(ToolError::invalid(format!(
                        "'{c}' at character {} is not an operator; write {c}{c}",
                        start + 1
                    )));
                }
                _ => {
                    return Err(ToolError::invalid(format!(
                        "unexpected character '{c}' at character {}",
                        start + 1
                    )));
                }
            };
            i += len;
            tok
        };
        tokens.push(Token {
            tok,
            at: start + 1,
            byte: bytes[start],
        });
    }
    Ok(tokens)
}

#[derive(Debug)]
enum Kind {
    Num(f64),
    Bool(bool),
    Str(String),
    Var(String),
    /// `()`.
    Empty,
    /// A function and its one argument: a value, a tuple, or empty.
    Call(String, Box<Node>),
    Neg(Box<Node>),
    Not(Box<Node>),
    Bin(Op, Box<Node>, Box<Node>),
    Tuple(Vec<Node>),
}

#[derive(Debug)]
struct Node {
    kind: Kind,
    /// Character position of the token that made the node.
    at: usize,
    /// Levels below this node: 0 for a value or a name.
    height: usize,
}

impl Node {
    fn children(&self) -> Vec<&Node> {
        match &self.kind {
            Kind::Call(_, x) | Kind::Neg(x) | Kind::Not(x) => vec![x],
            Kind::Bin(_, a, b) => vec![a, b],
            Kind::Tuple(items) => items.iter().collect(),
            _ => vec![],
        }
    }
}

/// Builds the tree, refusing more than [`depth::MAX_DEPTH`] levels both of its own recursion
/// (brackets, unary operators, `^` chains) and of the tree it returns (`1+1+…+1` is built by a
/// loop but evaluated, searched and dropped recursively). [`check_depth`] refuses the tool's
/// input before this; these limits keep any other caller within the stack too.
struct Parser<'a> {
    input: &'a str,
    tokens: Vec<Token>,
    next: usize,
    /// Levels of [`Parser::expr`] open below the outermost one.
    levels: usize,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str) -> Result<Self, ToolError> {
        Ok(Self {
            input,
            tokens: tokenize(input)?,
            next: 0,
            levels: 0,
        })
    }

    fn parse(mut self) -> Result<Node, ToolError> {
        let tree = self.sequence(0)?;
        match self.tokens.get(self.next) {
            None => Ok(tree),
            Some(t) if t.tok == Tok::Close => Err(ToolError::invalid(format!(
                "unmatched ')' at character {}",
                t.at
            ))),
            Some(t) => Err(self.missing_operator(t)),
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.next).map(|t| &t.tok)
    }

    fn too_deep(&self, byte: usize) -> ToolError {
        depth::too_deep(
            "the expression",
            depth::MAX_DEPTH,
            depth::place(self.input, byte),
        )
    }

    /// A node made by token `token`, as long as the tree stays within the limit.
    fn node(&self, kind: Kind, token: usize) -> Result<Node, ToolError> {
        let mut node = Node {
            kind,
            at: self.tokens[token].at,
            height: 0,
        };
        node.height = node
            .children()
            .iter()
            .map(|c| c.height + 1)
            .max()
            .unwrap_or(0);
        if node.height > depth::MAX_DEPTH {
            return Err(self.too_deep(self.tokens[token].byte));
        }
        Ok(node)
    }

    fn missing_operator(&self, t: &Token) -> ToolError {
        let what = match &t.tok {
            Tok::Str(_) => "the string".to_string(),
            Tok::Open => "'('".to_string(),
            Tok::Name(n) => format!("'{n}'"),
            _ => format!("'{}'", self.text_of(t)),
        };
        ToolError::invalid(format!(
            "missing operator before {what} at character {}",
            t.at
        ))
    }

    /// The source text of a number or operator token, as written.
    fn text_of(&self, t: &Token) -> String {
        let chars: Vec<char> = self.input[t.byte..].chars().collect();
        chars[..word_end(&chars, 0).max(1)].iter().collect()
    }

    /// Values separated by commas: one value, or a tuple of them. `opener` is the token that
    /// opened this level (for the depth message).
    fn sequence(&mut self, opener: usize) -> Result<Node, ToolError> {
        let start = self.next;
        let first = self.expr(COMMA, opener)?;
        if self.peek() != Some(&Tok::Comma) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.peek() == Some(&Tok::Comma) {
            self.next += 1;
            items.push(self.expr(COMMA, opener)?);
        }
        self.node(Kind::Tuple(items), start)
    }

    /// An expression whose operators bind tighter than `min`.
    fn expr(&mut self, min: u8, opener: usize) -> Result<Node, ToolError> {
        if self.levels > depth::MAX_DEPTH {
            let byte = self.tokens.get(opener).map_or(0, |t| t.byte);
            return Err(self.too_deep(byte));
        }
        self.levels += 1;
        let mut left = self.operand()?;
        while let Some(t) = self.tokens.get(self.next) {
            let op = match t.tok {
                Tok::Op(op) if op.power() > min => op,
                Tok::Assign => {
                    return Err(ToolError::invalid(
                        "assignments are not supported; pass values in 'variables' instead",
                    ));
                }
                Tok::Op(_) | Tok::Comma | Tok::Close => break,
                _ => return Err(self.missing_operator(t)),
            };
            let token = self.next;
            self.next += 1;
            // `^` groups to the right (2^3^2 is 2^9); the others to the left.
            let bind = if op == Op::Pow {
                op.power() - 1
            } else {
                op.power()
            };
            let right = self.expr(bind, token)?;
            left = self.node(Kind::Bin(op, Box::new(left), Box::new(right)), token)?;
        }
        self.levels -= 1;
        Ok(left)
    }

    /// A value, a name, a call, a bracketed sequence, or a unary operator and its operand.
    fn operand(&mut self) -> Result<Node, ToolError> {
        let token = self.next;
        let Some(t) = self.tokens.get(token) else {
            let last = self.tokens.last().map_or(0, |t| t.at);
            return Err(ToolError::invalid(format!(
                "the expression ends too early after character {last}"
            )));
        };
        let at = t.at;
        let tok = t.tok.clone();
        self.next += 1;
        let kind = match tok {
            Tok::Num(n) => Kind::Num(n),
            Tok::Bool(b) => Kind::Bool(b),
            Tok::Str(s) => Kind::Str(s),
            Tok::Name(name) if self.peek() == Some(&Tok::Open) => {
                self.next += 1;
                Kind::Call(name, Box::new(self.bracketed(token + 1)?))
            }
            Tok::Name(name) => Kind::Var(name),
            Tok::Open => return self.bracketed(token),
            Tok::Op(Op::Sub) => Kind::Neg(Box::new(self.expr(PREFIX, token)?)),
            Tok::Not => Kind::Not(Box::new(self.expr(PREFIX, token)?)),
            Tok::Assign => {
                return Err(ToolError::invalid(
                    "assignments are not supported; pass values in 'variables' instead",
                ));
            }
            Tok::Op(op) => {
                return Err(ToolError::invalid(format!(
                    "'{}' at character {at} has no left operand",
                    op.symbol()
                )));
            }
            Tok::Comma => {
                return Err(ToolError::invalid(format!(
                    "',' at character {at} has no left operand"
                )));
            }
            Tok::Close => {
                return Err(ToolError::invalid(format!(
                    "')' at character {at} has nothing before it"
                )));
            }
        };
        self.node(kind, token)
    }

    /// What follows the opening bracket `open` (already taken), up to its closing one.
    fn bracketed(&mut self, open: usize) -> Result<Node, ToolError> {
        if self.peek() == Some(&Tok::Close) {
            self.next += 1;
            return self.node(Kind::Empty, open);
        }
        let inner = self.sequence(open)?;
        if self.peek() != Some(&Tok::Close) {
            return Err(ToolError::invalid(format!(
                "'(' at character {} is never closed",
                self.tokens[open].at
            )));
        }
        self.next += 1;
        Ok(inner)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Val {
    Num(f64),
    Bool(bool),
    Str(String),
    Tuple(Vec<Val>),
    Empty,
}

impl Val {
    fn describe(&self) -> String {
        match self {
            Val::Num(n) => number(*n),
            Val::Bool(b) => b.to_string(),
            Val::Str(s) => format!("the string {s:?}"),
            Val::Tuple(items) => format!("a list of {} values", items.len()),
            Val::Empty => "()".to_string(),
        }
    }
}

/// `cannot evaluate the expression: '/' at character 3 needs two numbers, got true`.
fn type_error(subject: &str, at: usize, needs: &str, got: &Val) -> ToolError {
    ToolError::invalid(format!(
        "cannot evaluate the expression: {subject} at character {at} needs {needs}, got {}",
        got.describe()
    ))
}

/// A function's argument: one number, two, or one or more.
enum Arity {
    One(fn(f64, f64) -> f64),
    Two(fn(f64, f64, f64) -> f64),
    /// log: log10(x), or log(x, base).
    OneOrTwo,
    Many(fn(f64, f64) -> f64),
}

/// The functions, each taking the angle scale (radians per unit) as its last argument.
const FUNCTIONS: &[(&str, Arity)] = &[
    ("sqrt", Arity::One(|x, _| x.sqrt())),
    ("cbrt", Arity::One(|x, _| x.cbrt())),
    ("abs", Arity::One(|x, _| x.abs())),
    (
        "sign",
        Arity::One(|x, _| if x == 0.0 { 0.0 } else { x.signum() }),
    ),
    ("exp", Arity::One(|x, _| x.exp())),
    ("ln", Arity::One(|x, _| x.ln())),
    ("log", Arity::OneOrTwo),
    ("log2", Arity::One(|x, _| x.log2())),
    ("log10", Arity::One(|x, _| x.log10())),
    ("pow", Arity::Two(|x, y, _| x.powf(y))),
    ("hypot", Arity::Two(|x, y, _| x.hypot(y))),
    ("sin", Arity::One(|x, s| (x * s).sin())),
    ("cos", Arity::One(|x, s| (x * s).cos())),
    ("tan", Arity::One(|x, s| (x * s).tan())),
    ("asin", Arity::One(|x, s| x.asin() / s)),
    ("acos", Arity::One(|x, s| x.acos() / s)),
    ("atan", Arity::One(|x, s| x.atan() / s)),
    ("atan2", Arity::Two(|y, x, s| y.atan2(x) / s)),
    ("sinh", Arity::One(|x, _| x.sinh())),
    ("cosh", Arity::One(|x, _| x.cosh())),
    ("tanh", Arity::One(|x, _| x.tanh())),
    ("floor", Arity::One(|x, _| x.floor())),
    ("ceil", Arity::One(|x, _| x.ceil())),
    ("round", Arity::One(|x, _| x.round())),
    ("trunc", Arity::One(|x, _| x.trunc())),
    ("min", Arity::Many(f64::min)),
    ("max", Arity::Many(f64::max)),
    ("factorial", Arity::One(|x, _| factorial(x))),
];

/// n! for whole n ≥ 0; NaN otherwise (reported as a non-finite result).
fn factorial(n: f64) -> f64 {
    if n < 0.0 || n.fract() != 0.0 {
        return f64::NAN;
    }
    (1..=(n.min(171.0) as u32)).fold(1.0, |acc, k| acc * f64::from(k))
}

/// The names an expression can read, and the angle unit.
struct Scope {
    values: HashMap<String, f64>,
    /// Radians per angle unit.
    scale: f64,
}

impl Scope {
    fn new(variables: Option<&Value>, degrees: bool) -> Result<Self, ToolError> {
        let phi = (1.0 + 5f64.sqrt()) / 2.0;
        let mut values: HashMap<String, f64> = [("pi", PI), ("e", E), ("tau", TAU), ("phi", phi)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        if let Some(vars) = variables {
            let Value::Object(map) = vars else {
                return Err(ToolError::invalid(
                    "'variables' must be a JSON object of names to numbers, such as {\"x\": 2}",
                ));
            };
            for (name, v) in map {
                let ok_name = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                let Some(n) = v.as_f64().filter(|_| ok_name) else {
                    return Err(ToolError::invalid(format!(
                        "variable '{name}' must be a name (letters, digits, _) with a number value, got {v}"
                    )));
                };
                values.insert(name.clone(), n);
            }
        }
        let scale = if degrees { PI / 180.0 } else { 1.0 };
        Ok(Self { values, scale })
    }

    fn eval(&self, node: &Node) -> Result<Val, ToolError> {
        let at = node.at;
        Ok(match &node.kind {
            Kind::Num(n) => Val::Num(*n),
            Kind::Bool(b) => Val::Bool(*b),
            Kind::Str(s) => Val::Str(s.clone()),
            Kind::Empty => Val::Empty,
            Kind::Var(name) => match self.values.get(name) {
                Some(v) => Val::Num(*v),
                None => {
                    return Err(ToolError::invalid(format!(
                        "unknown variable '{name}' at character {at}; constants are pi, e, tau and phi, other names go in 'variables' (write 2*pi, not 2pi)"
                    )));
                }
            },
            Kind::Tuple(items) => Val::Tuple(
                items
                    .iter()
                    .map(|n| self.eval(n))
                    .collect::<Result<_, _>>()?,
            ),
            Kind::Neg(x) => match self.eval(x)? {
                Val::Num(n) => Val::Num(-n),
                other => return Err(type_error("'-'", at, "a number", &other)),
            },
            Kind::Not(x) => match self.eval(x)? {
                Val::Bool(b) => Val::Bool(!b),
                other => return Err(type_error("'!'", at, "true or false", &other)),
            },
            Kind::Bin(op, a, b) => binary(*op, at, self.eval(a)?, self.eval(b)?)?,
            Kind::Call(name, arg) => {
                let Some((_, arity)) = FUNCTIONS.iter().find(|(n, _)| n == name) else {
                    let names: Vec<&str> = FUNCTIONS.iter().map(|(n, _)| *n).collect();
                    return Err(ToolError::invalid(format!(
                        "unknown function '{name}' at character {at}; available: {}",
                        names.join(", ")
                    )));
                };
                Val::Num(self.call(name, arity, at, &self.eval(arg)?)?)
            }
        })
    }

    fn call(&self, name: &str, arity: &Arity, at: usize, arg: &Val) -> Result<f64, ToolError> {
        let numbers = |want: &str| -> Result<Vec<f64>, ToolError> {
            let items = match arg {
                Val::Tuple(items) => items.as_slice(),
                one => std::slice::from_ref(one),
            };
            items
                .iter()
                .map(|v| match v {
                    Val::Num(n) => Ok(*n),
                    other => Err(type_error(name, at, want, other)),
                })
                .collect()
        };
        let count = |want: &str, n: usize| {
            ToolError::invalid(format!(
                "cannot evaluate the expression: {name} at character {at} needs {want}, got {n} values"
            ))
        };
        let s = self.scale;
        match arity {
            Arity::One(f) => match numbers("one number")?.as_slice() {
                [x] => Ok(f(*x, s)),
                other => Err(count("one number", other.len())),
            },
            Arity::Two(f) => match numbers("two numbers")?.as_slice() {
                [x, y] => Ok(f(*x, *y, s)),
                other => Err(count("two numbers", other.len())),
            },
            Arity::OneOrTwo => match numbers("one or two numbers")?.as_slice() {
                [x] => Ok(x.log10()),
                [x, base] => Ok(x.log(*base)),
                other => Err(count("one or two numbers", other.len())),
            },
            Arity::Many(f) => Ok(numbers("numbers")?
                .into_iter()
                .reduce(f)
                .unwrap_or(f64::NAN)),
        }
    }
}

fn binary(op: Op, at: usize, a: Val, b: Val) -> Result<Val, ToolError> {
    use Val::{Bool, Num, Str};
    let symbol = op.symbol();
    Ok(match (op, a, b) {
        (Op::Eq, a, b) => Bool(a == b),
        (Op::Ne, a, b) => Bool(a != b),
        (Op::And, Bool(x), Bool(y)) => Bool(x && y),
        (Op::Or, Bool(x), Bool(y)) => Bool(x || y),
        (Op::And | Op::Or, Bool(_), other) | (Op::And | Op::Or, other, _) => {
            return Err(type_error(
                &format!("'{symbol}'"),
                at,
                "true or false",
                &other,
            ));
        }
        (Op::Add, Num(x), Num(y)) => Num(x + y),
        (Op::Sub, Num(x), Num(y)) => Num(x - y),
        (Op::Mul, Num(x), Num(y)) => Num(x * y),
        (Op::Div, Num(x), Num(y)) => Num(x / y),
        (Op::Mod, Num(x), Num(y)) => Num(x % y),
        (Op::Pow, Num(x), Num(y)) => Num(x.powf(y)),
        (Op::Lt, Num(x), Num(y)) => Bool(x < y),
        (Op::Gt, Num(x), Num(y)) => Bool(x > y),
        (Op::Le, Num(x), Num(y)) => Bool(x <= y),
        (Op::Ge, Num(x), Num(y)) => Bool(x >= y),
        (Op::Add, Str(x), Str(y)) => Str(x + &y),
        (Op::Lt, Str(x), Str(y)) => Bool(x < y),
        (Op::Gt, Str(x), Str(y)) => Bool(x > y),
        (Op::Le, Str(x), Str(y)) => Bool(x <= y),
        (Op::Ge, Str(x), Str(y)) => Bool(x >= y),
        // The first operand of the wrong type is the one named.
        (_, Num(_) | Str(_), other) | (_, other, _) => {
            let want = match op {
                Op::Add | Op::Lt | Op::Gt | Op::Le | Op::Ge => "two numbers or two strings",
                _ => "two numbers",
            };
            return Err(type_error(&format!("'{symbol}'"), at, want, &other));
        }
    })
}

fn to_json(value: &Val, digits: usize) -> Option<Value> {
    match value {
        Val::Num(f) if f.is_finite() => {
            let r = round_sig(*f, digits);
            Some(json!(if r == 0.0 { 0.0 } else { r }))
        }
        Val::Num(_) => None,
        Val::Bool(b) => Some(json!(b)),
        Val::Str(s) => Some(json!(s)),
        Val::Tuple(items) => items
            .iter()
            .map(|v| to_json(v, digits))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array),
        Val::Empty => Some(Value::Null),
    }
}

/// The innermost `a / b` or `a % b` whose divisor evaluates to zero, written in infix.
fn zero_division(node: &Node, scope: &Scope) -> Option<String> {
    let children = node.children();
    if let Some(found) = children.into_iter().find_map(|c| zero_division(c, scope)) {
        return Some(found);
    }
    match &node.kind {
        Kind::Bin(Op::Div | Op::Mod, _, divisor)
            if scope.eval(divisor).ok() == Some(Val::Num(0.0)) =>
        {
            Some(infix(node))
        }
        _ => None,
    }
}

fn infix(node: &Node) -> String {
    // Operators and tuples inside another node are bracketed; values, names, calls and
    // unary operators are not.
    let wrap = |n: &Node| match n.kind {
        Kind::Bin(..) | Kind::Tuple(_) => format!("({})", infix(n)),
        _ => infix(n),
    };
    match &node.kind {
        Kind::Num(n) => number(*n),
        Kind::Bool(b) => b.to_string(),
        Kind::Str(s) => format!("{s:?}"),
        Kind::Var(name) => name.clone(),
        Kind::Empty => "()".to_string(),
        Kind::Call(name, arg) => format!("{name}({})", infix(arg)),
        Kind::Neg(x) => format!("-{}", wrap(x)),
        Kind::Not(x) => format!("!{}", wrap(x)),
        Kind::Bin(op, a, b) => format!("{} {} {}", wrap(a), op.symbol(), wrap(b)),
        Kind::Tuple(items) => items.iter().map(wrap).collect::<Vec<_>>().join(", "),
    }
}
