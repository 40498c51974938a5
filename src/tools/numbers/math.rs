//! Arithmetic tools: expression evaluation (evalexpr) and statistics, percentages, random numbers.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::ToolFn;
use crate::tools::kit::args::Args;
use crate::tools::kit::depth;
use crate::tools::numbers::units::{number, round_sig};
use evalexpr::{
    ContextWithMutableFunctions, ContextWithMutableVariables, DefaultNumericTypes, EvalexprError,
    Function, HashMapContext, Node, Operator, Value as Ev,
};
use rand::seq::index;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::f64::consts::{E, PI, TAU};

pub const TOOLS: &[(&str, ToolFn)] = &[
    ("math-evaluator", math_evaluator),
    ("percentage-calculator", percentage_calculator),
    ("random-number-generator", random_number_generator),
];

type Ctx = HashMapContext<DefaultNumericTypes>;

fn math_evaluator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let digits = args.usize("significantDigits")?;
    match args.str("mode")? {
        "statistics" => statistics(input, digits),
        _ => {
            let degrees = args.str("angleUnit")? == "degrees";
            let variables = args.get("variables");
            check_depth(input)?;
            depth::with_stack(|| evaluate(input, variables, degrees, digits))
        }
    }
}

/// evalexpr builds a tree as deep as the brackets nest plus the operators chain (`1+1+…+1`
/// is a tree as deep as it is long), and builds, evaluates and drops it recursively: the
/// operators and the deepest bracket nesting together may not pass [`depth::MAX_DEPTH`].
fn check_depth(input: &str) -> Result<(), ToolError> {
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

fn evaluate(input: &str, variables: Option<&Value>, degrees: bool, digits: usize) -> ToolOutcome {
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

fn statistics(input: &str, digits: usize) -> ToolOutcome {
    let mut values = Vec::new();
    let mut offset = 0;
    for piece in input.split_inclusive(|c: char| c == ',' || c == ';' || c.is_whitespace()) {
        let token = piece.trim_end_matches(|c: char| c == ',' || c == ';' || c.is_whitespace());
        if !token.is_empty() {
            let n: f64 = token
                .parse()
                .ok()
                .filter(|n: &f64| n.is_finite())
                .ok_or_else(|| {
                    ToolError::invalid(format!(
                        "'{}' at character {} (item {}) is not a number",
                        crate::text::preview(token, 30),
                        input[..offset].chars().count() + 1,
                        values.len() + 1
                    ))
                })?;
            if values.len() == crate::tools::kit::budget::MAX_VALUES {
                return Err(crate::tools::kit::budget::too_many(
                    "the list",
                    "numbers",
                    "summarise it in parts",
                ));
            }
            values.push(n);
        }
        offset += piece.len();
    }
    if values.is_empty() {
        return Err(ToolError::invalid(
            "no numbers given; separate them with commas, spaces or new lines",
        ));
    }
    let n = values.len() as f64;
    let sum: f64 = values.iter().sum();
    let mean = sum / n;
    let mut sorted = values.clone();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let median = if sorted.len() % 2 == 0 {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    };
    let squares: f64 = values.iter().map(|x| (x - mean).powi(2)).sum();
    let population_variance = squares / n;
    let sample_variance = (values.len() > 1).then(|| squares / (n - 1.0));
    let r = |x: f64| json!(round_sig(x, digits));
    let ro = |x: Option<f64>| x.map_or(Value::Null, r);
    let min = sorted[0];
    let max = sorted[sorted.len() - 1];
    let data = json!({
        "output": "",
        "count": values.len(),
        "sum": r(sum),
        "mean": r(mean),
        "median": r(median),
        "mode": modes(&values).into_iter().map(r).collect::<Vec<_>>(),
        "min": r(min),
        "max": r(max),
        "range": r(max - min),
        "populationVariance": r(population_variance),
        "sampleVariance": ro(sample_variance),
        "populationStdDev": r(population_variance.sqrt()),
        "sampleStdDev": ro(sample_variance.map(f64::sqrt)),
    });
    let mut data = data;
    let summary = [
        "count",
        "sum",
        "mean",
        "median",
        "min",
        "max",
        "populationStdDev",
        "sampleStdDev",
    ]
    .iter()
    .map(|k| format!("{k}: {}", data[*k]))
    .collect::<Vec<_>>()
    .join("\n");
    data["output"] = json!(summary);
    Ok(data)
}

/// The most frequent values in first-seen order; empty when every value occurs once.
fn modes(values: &[f64]) -> Vec<f64> {
    let mut counts: HashMap<u64, usize> = HashMap::new();
    for v in values {
        *counts.entry(v.to_bits()).or_default() += 1;
    }
    let best = counts.values().copied().max().unwrap_or(0);
    if best < 2 {
        return Vec::new();
    }
    let mut seen = Vec::new();
    for v in values {
        if counts[&v.to_bits()] == best && !seen.contains(v) {
            seen.push(*v);
        }
    }
    seen
}

fn percentage_calculator(args: &Args) -> ToolOutcome {
    let mode = args.str("mode")?;
    let x = args.f64("x")?;
    let y = args.f64("y")?;
    let digits = args.usize("significantDigits")?;
    let nonzero = |v: f64, what: &str| {
        if v == 0.0 {
            Err(ToolError::invalid(format!(
                "{what} is 0, so the percentage is undefined (division by zero)"
            )))
        } else {
            Ok(v)
        }
    };
    let (result, text) = match mode {
        "whatPercent" => {
            let r = x / nonzero(y, "y (the whole)")? * 100.0;
            (
                r,
                format!(
                    "{} is {}% of {}",
                    number(x),
                    number(round_sig(r, digits)),
                    number(y)
                ),
            )
        }
        "change" => {
            let r = (y - x) / nonzero(x, "x (the starting value)")?.abs() * 100.0;
            let shown = round_sig(r, digits);
            let sign = if shown > 0.0 { "+" } else { "" };
            (
                r,
                format!("{} → {} is {sign}{}%", number(x), number(y), number(shown)),
            )
        }
        "increase" => {
            let r = y * (1.0 + x / 100.0);
            (
                r,
                format!(
                    "{} + {}% = {}",
                    number(y),
                    number(x),
                    number(round_sig(r, digits))
                ),
            )
        }
        "decrease" => {
            let r = y * (1.0 - x / 100.0);
            (
                r,
                format!(
                    "{} − {}% = {}",
                    number(y),
                    number(x),
                    number(round_sig(r, digits))
                ),
            )
        }
        _ => {
            let r = x * y / 100.0;
            (
                r,
                format!(
                    "{}% of {} = {}",
                    number(x),
                    number(y),
                    number(round_sig(r, digits))
                ),
            )
        }
    };
    if !result.is_finite() {
        return Err(ToolError::invalid("the result is too large to represent"));
    }
    let result = round_sig(result, digits);
    Ok(json!({
        "output": number(result),
        "result": result,
        "mode": mode,
        "explanation": text,
    }))
}

/// Integer bounds stay within ±2^53 so every value is exact as a JSON number.
const LIMIT: f64 = 9_007_199_254_740_991.0;

fn random_number_generator(args: &Args) -> ToolOutcome {
    let preset = args.str("preset")?;
    let (min, max) = match preset {
        "port" => (1024.0, 65535.0),
        "dice" => (1.0, 6.0),
        "byte" => (0.0, 255.0),
        _ => (args.f64("min")?, args.f64("max")?),
    };
    let decimal = preset == "custom" && args.str("type")? == "decimal";
    let decimals = if decimal { args.usize("decimals")? } else { 0 };
    let count = args.usize("count")?;
    let unique = args.flag("unique");
    if min > max {
        return Err(ToolError::invalid(format!(
            "min ({}) is greater than max ({})",
            number(min),
            number(max)
        )));
    }
    // Decimals are integers on a grid of 10^-decimals, which makes 'unique' exact.
    let scale = 10f64.powi(decimals as i32);
    let (lo, hi) = ((min * scale).ceil(), (max * scale).floor());
    if lo > hi {
        return Err(ToolError::invalid(format!(
            "there is no number with {decimals} decimals between {} and {}",
            number(min),
            number(max)
        )));
    }
    if lo.abs() > LIMIT || hi.abs() > LIMIT {
        return Err(ToolError::invalid(
            "min and max (times 10^decimals) must stay within ±9007199254740991",
        ));
    }
    let (lo, hi) = (lo as i64, hi as i64);
    let span = (hi - lo) as u64 + 1;
    if unique && count as u64 > span {
        return Err(ToolError::invalid(format!(
            "cannot draw {count} unique numbers: only {span} distinct values lie between {} and {}",
            number(min),
            number(max)
        )));
    }
    let seed = args.opt_i64("seed");
    let mut picks = match seed {
        Some(s) => draw(
            &mut rand::rngs::StdRng::seed_from_u64(s as u64),
            lo,
            span,
            count,
            unique,
        ),
        // ThreadRng is a ChaCha CSPRNG seeded from the operating system.
        None => draw(&mut rand::rng(), lo, span, count, unique),
    };
    if args.flag("sort") {
        picks.sort_unstable();
    }
    let numbers: Vec<Value> = picks
        .iter()
        .map(|&i| {
            if decimal {
                json!(round_sig(i as f64 / scale, 17))
            } else {
                json!(i)
            }
        })
        .collect();
    let text: Vec<String> = picks
        .iter()
        .map(|&i| {
            if decimal {
                format!("{:.*}", decimals, i as f64 / scale)
            } else {
                i.to_string()
            }
        })
        .collect();
    Ok(json!({
        "output": text.join("\n"),
        "numbers": numbers,
        "min": min,
        "max": max,
    }))
}

fn draw<R: Rng + ?Sized>(rng: &mut R, lo: i64, span: u64, count: usize, unique: bool) -> Vec<i64> {
    use rand::RngExt;
    if unique {
        // Floyd's / Fisher–Yates sampling inside rand picks without rejection loops.
        return index::sample(rng, span as usize, count)
            .into_iter()
            .map(|i| lo + i as i64)
            .collect();
    }
    (0..count)
        .map(|_| lo + rng.random_range(0..span) as i64)
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn eval(expr: &str) -> serde_json::Value {
        run_ok("math-evaluator", json!({"input": expr}))["result"].clone()
    }

    #[test]
    fn arithmetic_precedence_and_functions() {
        assert_eq!(eval("1 + 2 * 3"), json!(7.0));
        assert_eq!(eval("(1 + 2) * 3"), json!(9.0));
        assert_eq!(eval("7 / 2"), json!(3.5));
        assert_eq!(eval("2 ^ 10"), json!(1024.0));
        assert_eq!(eval("17 % 5"), json!(2.0));
        assert_eq!(eval("sqrt(16) + abs(-3)"), json!(7.0));
        assert_eq!(eval("max(3, 9, 4) - min(2, 8) + min(1)"), json!(8.0));
        assert_eq!(eval("1e3 + 2.5E-1"), json!(1000.25));
        assert_eq!(eval("floor(2.7) + ceil(2.1) + round(2.5)"), json!(8.0));
        assert_eq!(eval("log(1000) + ln(e) + log(8, 2)"), json!(7.0));
        assert_eq!(eval("factorial(5)"), json!(120.0));
        assert_eq!(eval("0.1 + 0.2"), json!(0.3));
        assert_eq!(eval("2 > 1"), json!(true));
        let tuple = run_ok("math-evaluator", json!({"input": "1 / 4, 2 ^ 3"}));
        assert_eq!(tuple["output"], "0.25, 8");
    }

    #[test]
    fn constants_angles_and_variables() {
        assert_eq!(eval("cos(pi)"), json!(-1.0));
        assert_eq!(eval("sin(pi / 2)"), json!(1.0));
        let deg = run_ok(
            "math-evaluator",
            json!({"input": "sin(30) + cos(60)", "angleUnit": "degrees"}),
        );
        assert_eq!(deg["result"], json!(1.0));
        let vars = run_ok(
            "math-evaluator",
            json!({"input": "x^2 + y", "variables": {"x": 3, "y": 0.5}}),
        );
        assert_eq!(vars["output"], "9.5");
    }

    #[test]
    fn expression_errors_are_located() {
        let (code, msg) = run_err("math-evaluator", json!({"input": "10 / (5 - 5)"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("division by zero in '10 / (5 - 5)'"), "{msg}");
        let (code, msg) = run_err("math-evaluator", json!({"input": "(1 + 2"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("at character 1"), "{msg}");
        let (_, msg) = run_err("math-evaluator", json!({"input": "1 + 2)"}));
        assert!(msg.contains("')' at character 6"), "{msg}");
        let (_, msg) = run_err("math-evaluator", json!({"input": "1 + foo"}));
        assert!(
            msg.contains("unknown variable 'foo' at character 5"),
            "{msg}"
        );
        let (_, msg) = run_err("math-evaluator", json!({"input": "bar(2)"}));
        assert!(msg.contains("unknown function 'bar'"), "{msg}");
        let (code, msg) = run_err("math-evaluator", json!({"input": "1 + * 2"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("'*' at character 5 has no left operand"),
            "{msg}"
        );
        let (_, msg) = run_err("math-evaluator", json!({"input": "2 * 3 -"}));
        assert!(
            msg.contains("'-' at character 7 has no right operand"),
            "{msg}"
        );
        let (_, msg) = run_err("math-evaluator", json!({"input": "2 3"}));
        assert!(
            msg.contains("missing operator before '3' at character 3"),
            "{msg}"
        );
        let (_, msg) = run_err("math-evaluator", json!({"input": "sqrt(-1)"}));
        assert!(msg.contains("not a finite number"), "{msg}");
    }

    // The worked example of Wikipedia's "Standard deviation" article: 2 4 4 4 5 5 7 9.
    #[test]
    fn statistics_standard_example() {
        let data = run_ok(
            "math-evaluator",
            json!({"input": "2, 4, 4, 4, 5, 5, 7, 9", "mode": "statistics"}),
        );
        assert_eq!(data["count"], 8);
        assert_eq!(data["sum"], 40.0);
        assert_eq!(data["mean"], 5.0);
        assert_eq!(data["median"], 4.5);
        assert_eq!(data["mode"], json!([4.0]));
        assert_eq!(data["populationVariance"], 4.0);
        assert_eq!(data["populationStdDev"], 2.0);
        assert_eq!(data["sampleVariance"], 4.57142857142857);
        assert_eq!(data["sampleStdDev"], 2.13808993529940);
        assert_eq!(data["range"], 7.0);
    }

    #[test]
    fn statistics_errors_and_single_value() {
        let (code, msg) = run_err(
            "math-evaluator",
            json!({"input": "1 2 x3", "mode": "statistics"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'x3' at character 5 (item 3)"), "{msg}");
        let one = run_ok(
            "math-evaluator",
            json!({"input": "42", "mode": "statistics"}),
        );
        assert_eq!(one["sampleStdDev"], serde_json::Value::Null);
        assert_eq!(one["mode"], json!([]));
    }

    #[test]
    fn percentages() {
        let p = |mode: &str, x: f64, y: f64| {
            run_ok(
                "percentage-calculator",
                json!({"mode": mode, "x": x, "y": y}),
            )
        };
        assert_eq!(p("percentOf", 20.0, 150.0)["result"], 30.0);
        assert_eq!(
            p("percentOf", 20.0, 150.0)["explanation"],
            "20% of 150 = 30"
        );
        assert_eq!(p("whatPercent", 30.0, 150.0)["result"], 20.0);
        assert_eq!(p("change", 50.0, 75.0)["result"], 50.0);
        assert_eq!(p("change", 50.0, 75.0)["explanation"], "50 → 75 is +50%");
        assert_eq!(p("change", 80.0, 60.0)["result"], -25.0);
        assert_eq!(p("increase", 10.0, 200.0)["result"], 220.0);
        assert_eq!(p("decrease", 15.0, 80.0)["result"], 68.0);
    }

    #[test]
    fn percentage_division_by_zero() {
        let (code, msg) = run_err(
            "percentage-calculator",
            json!({"mode": "change", "x": 0, "y": 10}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("division by zero"), "{msg}");
        let (code, _) = run_err(
            "percentage-calculator",
            json!({"mode": "whatPercent", "x": 5, "y": 0}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn random_seeded_is_reproducible_and_in_range() {
        let args = json!({"min": 1, "max": 100, "count": 5, "seed": 42});
        let a = run_ok("random-number-generator", args.clone());
        let b = run_ok("random-number-generator", args);
        assert_eq!(a, b);
        for n in a["numbers"].as_array().unwrap() {
            let n = n.as_i64().unwrap();
            assert!((1..=100).contains(&n));
        }
        // The catalogue example is seeded, so its output is exact.
        let def = crate::catalogue::get("random-number-generator").unwrap();
        let example = run_ok(
            "random-number-generator",
            serde_json::Value::Object(def.example.input.clone()),
        );
        assert_eq!(example, def.example.output);
    }

    #[test]
    fn random_unique_decimals_and_presets() {
        let all = run_ok(
            "random-number-generator",
            json!({"min": 1, "max": 10, "count": 10, "unique": true, "sort": true}),
        );
        assert_eq!(all["numbers"], json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
        let dec = run_ok(
            "random-number-generator",
            json!({"min": 0, "max": 1, "count": 50, "type": "decimal", "decimals": 3}),
        );
        for n in dec["numbers"].as_array().unwrap() {
            let n = n.as_f64().unwrap();
            assert!((0.0..=1.0).contains(&n) && (n * 1000.0).fract().abs() < 1e-9);
        }
        let port = run_ok(
            "random-number-generator",
            json!({"preset": "port", "count": 20}),
        );
        for n in port["numbers"].as_array().unwrap() {
            assert!((1024..=65535).contains(&n.as_i64().unwrap()));
        }
    }

    #[test]
    fn random_impossible_requests() {
        let (code, msg) = run_err(
            "random-number-generator",
            json!({"min": 1, "max": 5, "count": 6, "unique": true}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("only 5 distinct values"), "{msg}");
        let (code, _) = run_err("random-number-generator", json!({"min": 10, "max": 1}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn nesting_and_operator_chains_are_limited() {
        use crate::tools::kit::depth::MAX_DEPTH;
        use crate::tools::kit::testing::{assert_too_deep, nest};
        for deep in [
            nest("(", "1", ")", 1_000_000),
            "-".repeat(1_000_000) + "1",
            vec!["2"; 1_000_000].join("^"),
            vec!["1"; 1_000_000].join("+"),
        ] {
            assert_too_deep(
                "math-evaluator",
                json!({"input": deep}),
                "the expression",
                MAX_DEPTH,
            );
        }
        let (_, msg) = run_err(
            "math-evaluator",
            json!({"input": nest("(", "1", ")", 1_000_000)}),
        );
        assert!(msg.contains("(at line 1, column 513)"), "{msg}");
        // Just under: 512 parentheses, or 512 operators.
        assert_eq!(eval(&nest("(", "1", ")", MAX_DEPTH)), json!(1.0));
        assert_eq!(eval(&vec!["1"; MAX_DEPTH + 1].join("+")), json!(513.0));
    }

    #[test]
    fn statistics_take_at_most_five_million_numbers() {
        let many = "1,".repeat(crate::tools::kit::budget::MAX_VALUES + 1);
        let (code, msg) = run_err(
            "math-evaluator",
            json!({"input": many, "mode": "statistics"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("the list has more than 5,000,000 numbers"),
            "{msg}"
        );
    }
}
