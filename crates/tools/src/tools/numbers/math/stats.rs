//! math-evaluator's statistics mode: summary statistics of a list of numbers.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::numbers::units::round_sig;
use serde_json::{Value, json};
use std::collections::HashMap;

pub(super) fn statistics(input: &str, digits: usize) -> ToolOutcome {
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
