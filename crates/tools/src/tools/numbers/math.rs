//! Arithmetic tools: expression evaluation, statistics, percentages and random numbers.

mod expression;
mod stats;

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::depth;
use crate::tools::kit::tool::Tool;
use crate::tools::numbers::units::{number, round_sig};
use rand::seq::index;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("math-evaluator", math_evaluator),
    Tool::new("percentage-calculator", percentage_calculator),
    Tool::new("random-number-generator", random_number_generator),
];

fn math_evaluator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let digits = args.usize("significantDigits")?;
    match args.str("mode")? {
        "statistics" => stats::statistics(input, digits),
        _ => {
            let degrees = args.str("angleUnit")? == "degrees";
            let variables = args.get("variables");
            expression::check_depth(input)?;
            depth::with_stack(|| expression::evaluate(input, variables, degrees, digits))
        }
    }
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

#[cfg(test)]
mod expression_tests {
    //! The expression engine called directly, without the tool's `check_depth` before it.
    use super::expression::evaluate;
    use crate::tools::kit::depth::{MAX_DEPTH, with_stack};
    use crate::tools::kit::testing::nest;
    use serde_json::{Value, json};

    /// The result, or the message; x is 3 and y is 0.
    fn eval(expr: &str) -> Result<Value, String> {
        with_stack(|| evaluate(expr, Some(&json!({"x": 3, "y": 0})), false, 15))
            .map(|data| data["result"].clone())
            .map_err(|e| e.message)
    }

    fn fails_with(expr: &str, message: &str) {
        let got = eval(expr);
        assert!(
            got.as_ref().is_err_and(|m| m.contains(message)),
            "{expr}: {got:?}"
        );
    }

    #[test]
    fn powers_group_to_the_right_and_bind_tighter_than_minus() {
        assert_eq!(eval("2^3^2"), Ok(json!(512.0)));
        assert_eq!(eval("(2^3)^2"), Ok(json!(64.0)));
        assert_eq!(eval("-2^2"), Ok(json!(-4.0)));
        assert_eq!(eval("2^-1"), Ok(json!(0.5)));
        assert_eq!(eval("2 - -3 ^ 2"), Ok(json!(11.0)));
        assert_eq!(eval("-x^2 + 10 % 4 * 2"), Ok(json!(-5.0)));
        assert_eq!(eval("1 - 2 - 3"), Ok(json!(-4.0)));
        assert_eq!(eval("24 / 4 / 2"), Ok(json!(3.0)));
    }

    #[test]
    fn booleans_strings_tuples_and_nothing() {
        assert_eq!(eval("1 < 2 && 2 < 3 || false"), Ok(json!(true)));
        assert_eq!(eval("!true == false"), Ok(json!(true)));
        assert_eq!(eval("1 + 1 == 2 && 3 >= x"), Ok(json!(true)));
        assert_eq!(eval("1 == true"), Ok(json!(false)));
        assert_eq!(eval("(1, 2) == (1, 2)"), Ok(json!(true)));
        assert_eq!(eval(r#""a" + "b" == "ab""#), Ok(json!(true)));
        assert_eq!(eval(r#""x\"y\\" + "z""#), Ok(json!("x\"y\\z")));
        assert_eq!(eval(r#""abc" < "abd""#), Ok(json!(true)));
        assert_eq!(eval("(1, 2), 3"), Ok(json!([[1.0, 2.0], 3.0])));
        assert_eq!(eval("()"), Ok(Value::Null));
        assert_eq!(
            eval("max((1, 5, 3)) + log((8, 2)) + sqrt (4)"),
            Ok(json!(10.0))
        );
        assert_eq!(eval(".5 + 5. + 2.5E-1 + 1e-3"), Ok(json!(5.751)));
    }

    #[test]
    fn wrong_types_and_argument_counts_are_located() {
        fails_with(
            "1 / (1 < 2)",
            "cannot evaluate the expression: '/' at character 3 needs two numbers, got true",
        );
        fails_with(
            "true && 1",
            "'&&' at character 6 needs true or false, got 1",
        );
        fails_with(
            r#"-"a""#,
            r#"'-' at character 1 needs a number, got the string "a""#,
        );
        fails_with(
            "log(8, 2, 3)",
            "log at character 1 needs one or two numbers, got 3 values",
        );
        fails_with("2 * sqrt()", "sqrt at character 5 needs one number, got ()");
        fails_with(
            "max(1, (2, 3))",
            "max at character 1 needs numbers, got a list of 2 values",
        );
        fails_with(r#""a\nb""#, "unknown escape '\\n' at character 3");
        fails_with(r#"1 + "abc"#, "the string at character 5 is never closed");
        fails_with("1 & 2", "'&' at character 3 is not an operator; write &&");
        fails_with("x = 3", "assignments are not supported");
        fails_with("+1", "'+' at character 1 has no left operand");
    }

    #[test]
    fn unknown_names_point_at_their_own_place() {
        // The 'a' in "max" comes first in the text; the variable is the one at 5.
        fails_with("max(a)", "unknown variable 'a' at character 5;");
        fails_with("2pi", "unknown variable '2pi' at character 1;");
        fails_with("1 + foo(foo(1))", "unknown function 'foo' at character 5;");
        fails_with(
            "math::sqrt(4)",
            "unknown function 'math::sqrt' at character 1;",
        );
        fails_with("inf", "unknown variable 'inf'");
    }

    #[test]
    fn division_by_zero_names_the_innermost_division() {
        fails_with("1 / min(2, 0)", "division by zero in '1 / min(2, 0)'");
        fails_with(
            "(1 + 2) / (x - 3) * 5",
            "division by zero in '(1 + 2) / (x - 3)'",
        );
        fails_with("1 / -(y)", "division by zero in '1 / -y'");
        fails_with("x % y + 1 / y", "division by zero in 'x % y'");
        // A division by zero that leaves the result finite is no error.
        assert_eq!(eval("atan(1 / y) * 2 / pi"), Ok(json!(1.0)));
    }

    #[test]
    fn the_parser_keeps_its_own_depth_limit() {
        // check_depth refuses these first in the tool; called directly, the parser still does.
        for deep in [
            nest("(", "1", ")", MAX_DEPTH + 1),
            "-".repeat(MAX_DEPTH + 1) + "1",
            vec!["2"; 100_000].join("^"),
            vec!["1"; 100_000].join("+"),
            nest("sqrt(", "1", ")", 100_000),
        ] {
            let got = eval(&deep);
            assert!(
                got.as_ref()
                    .is_err_and(|m| m.contains(&format!("nests deeper than {MAX_DEPTH} levels"))),
                "{}…: {got:?}",
                &deep[..20]
            );
        }
        fails_with(
            &nest("(", "1", ")", 100_000),
            &format!("(at line 1, column {})", MAX_DEPTH + 1),
        );
        assert_eq!(eval(&nest("(", "1", ")", MAX_DEPTH)), Ok(json!(1.0)));
        assert_eq!(eval(&nest("-(", "1", ")", MAX_DEPTH / 2)), Ok(json!(1.0)));
        assert_eq!(
            eval(&vec!["1"; MAX_DEPTH + 1].join("+")),
            Ok(json!((MAX_DEPTH + 1) as f64))
        );
        let wide = vec!["1"; 100_000].join(",");
        assert_eq!(
            eval(&wide).map(|v| v.as_array().map(Vec::len)),
            Ok(Some(100_000))
        );
    }
}
