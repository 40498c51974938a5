//! math-evaluator's expressions: evalexpr with our syntax checks, functions and constants,
//! and errors that point at the faulty place.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::depth;
use crate::tools::numbers::units::{number, round_sig};
use evalexpr::{
    ContextWithMutableFunctions, ContextWithMutableVariables, DefaultNumericTypes, EvalexprError,
    Function, HashMapContext, Node, Operator, Value as Ev,
};
use serde_json::{Value, json};
use std::f64::consts::{E, PI, TAU};

type Ctx = HashMapContext<DefaultNumericTypes>;

/// evalexpr builds a tree as deep as the brackets nest plus the operators chain (`1+1+…+1`
/// is a tree as deep as it is long), and builds, evaluates and drops it recursively: the
/// operators and the deepest bracket nesting together may not pass [`depth::MAX_DEPTH`].
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
    let mut tree = evalexpr::build_operator_tree::<DefaultNumericTypes>(input)
        .map_err(|e| describe_error(input, e))?;
    // evalexpr divides integers as integers (7/2 = 3); a calculator means 3.5.
    floats_everywhere(&mut tree);
    let context = context(variables, degrees)?;
    let value = tree
        .eval_with_context(&context)
        .map_err(|e| describe_error(input, e))?;
    let result = to_json(&value, digits).ok_or_else(|| {
        match zero_division(&tree, &context) {
            Some(at) => ToolError::invalid(format!("division by zero in '{at}'")),
            None => ToolError::invalid(
                "the result is not a finite number (for example the square root or logarithm of a negative number, or an overflow)",
            ),
        }
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

/// Finds what evalexpr reports without a position: unbalanced parentheses, operators missing
/// an operand and values with no operator between them, each with its character position.
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
        if c.is_alphanumeric() || c == '_' || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '.' | ':'))
            {
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

fn describe_error(input: &str, e: EvalexprError<DefaultNumericTypes>) -> ToolError {
    let position = |name: &str| {
        input
            .find(name)
            .map(|b| format!(" at character {}", input[..b].chars().count() + 1))
            .unwrap_or_default()
    };
    ToolError::invalid(match e {
        EvalexprError::VariableIdentifierNotFound(name) => format!(
            "unknown variable '{name}'{}; constants are pi, e, tau and phi, other names go in 'variables' (write 2*pi, not 2pi)",
            position(&name)
        ),
        EvalexprError::FunctionIdentifierNotFound(name) => format!(
            "unknown function '{name}'{}; available: {}",
            position(&name),
            FUNCTION_NAMES.join(", ")
        ),
        EvalexprError::ContextNotMutable => {
            "assignments are not supported; pass values in 'variables' instead".to_string()
        }
        EvalexprError::WrongOperatorArgumentAmount { .. }
        | EvalexprError::AppendedToLeafNode
        | EvalexprError::PrecedenceViolation
        | EvalexprError::MissingOperatorOutsideOfBrace => {
            format!(
                "syntax error: an operator is missing an operand or two values have no operator between them ({e})"
            )
        }
        other => format!("cannot evaluate the expression: {other}"),
    })
}

fn floats_everywhere(node: &mut Node<DefaultNumericTypes>) {
    if let Operator::Const { value: Ev::Int(i) } = node.operator() {
        let f = *i as f64;
        *node.operator_mut() = Operator::Const {
            value: Ev::Float(f),
        };
    }
    for child in node.children_mut() {
        floats_everywhere(child);
    }
}

const FUNCTION_NAMES: &[&str] = &[
    "sqrt",
    "cbrt",
    "abs",
    "sign",
    "exp",
    "ln",
    "log",
    "log2",
    "log10",
    "pow",
    "hypot",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "ceil",
    "round",
    "trunc",
    "min",
    "max",
    "factorial",
];

fn unary(f: impl Fn(f64) -> f64 + Clone + Send + Sync + 'static) -> Function<DefaultNumericTypes> {
    Function::new(move |arg: &Ev<DefaultNumericTypes>| Ok(Ev::Float(f(arg.as_number()?))))
}

fn binary(
    f: impl Fn(f64, f64) -> f64 + Clone + Send + Sync + 'static,
) -> Function<DefaultNumericTypes> {
    Function::new(move |arg: &Ev<DefaultNumericTypes>| {
        let t = arg.as_fixed_len_tuple(2)?;
        Ok(Ev::Float(f(t[0].as_number()?, t[1].as_number()?)))
    })
}

/// min/max over one value or any number of them.
fn fold(f: fn(f64, f64) -> f64) -> Function<DefaultNumericTypes> {
    Function::new(move |arg: &Ev<DefaultNumericTypes>| {
        let values = match arg {
            Ev::Tuple(items) => items
                .iter()
                .map(|v| v.as_number())
                .collect::<Result<Vec<_>, _>>()?,
            other => vec![other.as_number()?],
        };
        Ok(Ev::Float(values.into_iter().reduce(f).unwrap_or(f64::NAN)))
    })
}

fn context(variables: Option<&Value>, degrees: bool) -> Result<Ctx, ToolError> {
    let mut ctx = Ctx::new();
    let internal = |e: EvalexprError<DefaultNumericTypes>| ToolError::execution(e.to_string());
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    for (name, v) in [("pi", PI), ("e", E), ("tau", TAU), ("phi", phi)] {
        ctx.set_value(name.into(), Ev::Float(v)).map_err(internal)?;
    }
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
            ctx.set_value(name.clone(), Ev::Float(n))
                .map_err(internal)?;
        }
    }
    let scale = if degrees { PI / 180.0 } else { 1.0 };
    let fns: Vec<(&str, Function<DefaultNumericTypes>)> = vec![
        ("sqrt", unary(f64::sqrt)),
        ("cbrt", unary(f64::cbrt)),
        ("abs", unary(f64::abs)),
        (
            "sign",
            unary(|x: f64| if x == 0.0 { 0.0 } else { x.signum() }),
        ),
        ("exp", unary(f64::exp)),
        ("ln", unary(f64::ln)),
        ("log2", unary(f64::log2)),
        ("log10", unary(f64::log10)),
        (
            "log",
            Function::new(|arg: &Ev<DefaultNumericTypes>| match arg {
                Ev::Tuple(_) => {
                    let t = arg.as_fixed_len_tuple(2)?;
                    Ok(Ev::Float(t[0].as_number()?.log(t[1].as_number()?)))
                }
                _ => Ok(Ev::Float(arg.as_number()?.log10())),
            }),
        ),
        ("pow", binary(f64::powf)),
        ("hypot", binary(f64::hypot)),
        ("sin", unary(move |x: f64| (x * scale).sin())),
        ("cos", unary(move |x: f64| (x * scale).cos())),
        ("tan", unary(move |x: f64| (x * scale).tan())),
        ("asin", unary(move |x: f64| x.asin() / scale)),
        ("acos", unary(move |x: f64| x.acos() / scale)),
        ("atan", unary(move |x: f64| x.atan() / scale)),
        ("atan2", binary(move |y: f64, x: f64| y.atan2(x) / scale)),
        ("sinh", unary(f64::sinh)),
        ("cosh", unary(f64::cosh)),
        ("tanh", unary(f64::tanh)),
        ("trunc", unary(f64::trunc)),
        ("min", fold(f64::min)),
        ("max", fold(f64::max)),
        ("factorial", unary(factorial)),
    ];
    for (name, f) in fns {
        ctx.set_function(name.into(), f).map_err(internal)?;
    }
    Ok(ctx)
}

/// n! for whole n ≥ 0; NaN otherwise (reported as a non-finite result).
fn factorial(n: f64) -> f64 {
    if n < 0.0 || n.fract() != 0.0 {
        return f64::NAN;
    }
    (1..=(n.min(171.0) as u32)).fold(1.0, |acc, k| acc * f64::from(k))
}

fn to_json(value: &Ev<DefaultNumericTypes>, digits: usize) -> Option<Value> {
    match value {
        Ev::Float(f) if f.is_finite() => {
            let r = round_sig(*f, digits);
            Some(json!(if r == 0.0 { 0.0 } else { r }))
        }
        Ev::Float(_) => None,
        Ev::Int(i) => Some(json!(i)),
        Ev::Boolean(b) => Some(json!(b)),
        Ev::String(s) => Some(json!(s)),
        Ev::Tuple(items) => items
            .iter()
            .map(|v| to_json(v, digits))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array),
        Ev::Empty => Some(Value::Null),
    }
}

/// The innermost `a / b` or `a % b` whose divisor evaluates to zero, written in infix.
fn zero_division(node: &Node<DefaultNumericTypes>, ctx: &Ctx) -> Option<String> {
    for child in node.children() {
        if let Some(found) = zero_division(child, ctx) {
            return Some(found);
        }
    }
    if matches!(node.operator(), Operator::Div | Operator::Mod)
        && let Some(divisor) = node.children().get(1)
        && divisor
            .eval_with_context(ctx)
            .ok()
            .and_then(|v| v.as_number().ok())
            == Some(0.0)
    {
        return Some(infix(node));
    }
    None
}

fn infix(node: &Node<DefaultNumericTypes>) -> String {
    let kids = node.children();
    let wrap = |n: &Node<DefaultNumericTypes>| {
        let n = unroot(n);
        let s = infix(n);
        if n.children().len() >= 2 && !matches!(n.operator(), Operator::FunctionIdentifier { .. }) {
            format!("({s})")
        } else {
            s
        }
    };
    let symbol = match node.operator() {
        Operator::Add => "+",
        Operator::Sub => "-",
        Operator::Mul => "*",
        Operator::Div => "/",
        Operator::Mod => "%",
        Operator::Exp => "^",
        Operator::Tuple => ",",
        Operator::Const { value } => {
            return match value {
                Ev::Float(f) => number(*f),
                other => other.to_string(),
            };
        }
        Operator::VariableIdentifierRead { identifier } => return identifier.clone(),
        Operator::FunctionIdentifier { identifier } => {
            let arg = kids.first().map(infix).unwrap_or_default();
            let arg = arg
                .strip_prefix('(')
                .and_then(|a| a.strip_suffix(')'))
                .map(str::to_string)
                .unwrap_or(arg);
            return format!("{identifier}({arg})");
        }
        Operator::Neg => return format!("-{}", kids.first().map(wrap).unwrap_or_default()),
        Operator::RootNode => {
            return kids.first().map(infix).unwrap_or_default();
        }
        other => return format!("{other:?}"),
    };
    kids.iter()
        .map(wrap)
        .collect::<Vec<_>>()
        .join(&format!(" {symbol} "))
}

/// Parentheses in the source become root nodes with one child.
fn unroot(mut node: &Node<DefaultNumericTypes>) -> &Node<DefaultNumericTypes> {
    while matches!(node.operator(), Operator::RootNode) && node.children().len() == 1 {
        node = &node.children()[0];
    }
    node
}
