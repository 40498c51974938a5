//! Durations: parsing and formatting (short, long, ISO 8601, clock) and the ETA calculator.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use chrono::{SecondsFormat, SubsecRound as _, TimeDelta, Utc};
use regex::Regex;
use serde_json::{Value, json};
use std::sync::OnceLock;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("duration-formatter", duration_formatter),
    Tool::new("eta-calculator", eta_calculator),
];

const MS_PER: [(&str, &str, i64); 6] = [
    ("w", "week", 604_800_000),
    ("d", "day", 86_400_000),
    ("h", "hour", 3_600_000),
    ("m", "minute", 60_000),
    ("s", "second", 1_000),
    ("ms", "millisecond", 1),
];

/// Durations are kept in whole milliseconds; beyond 2^53 an f64 input could not be exact.
const MAX_MS: f64 = 9_007_199_254_740_991.0;

fn duration_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?.trim();
    let unit = args.str("inputUnit")?;
    let format = args.str("format")?;
    let largest = args.str("largestUnit")?;
    let max_units = args.usize("maxUnits")?;
    let ms = parse_duration(input, unit)?;
    let parts = Parts::new(ms, largest);
    let mut data = json!({
        "output": "",
        "milliseconds": ms,
        // Whole seconds as an integer ("9000", not "9000.0").
        "seconds": if ms % 1000 == 0 { json!(ms / 1000) } else { json!(ms as f64 / 1000.0) },
        "short": parts.short(max_units),
        "long": parts.long(max_units),
        "iso8601": iso8601(ms, largest),
        "clock": clock(ms),
        "components": parts.components(),
    });
    data["output"] = match data[format].clone() {
        Value::Number(n) => Value::String(n.to_string()),
        v => v,
    };
    Ok(data)
}

fn eta_calculator(args: &Args) -> ToolOutcome {
    let total = args.f64("total")?;
    let done = args.f64("done")?;
    let amount = args.f64("amount")?;
    let period = args.f64("period")?;
    let period_unit = args.str("periodUnit")?;
    let tz = crate::tools::time::timestamps::timezone(args.str("timezone")?)?;
    if amount <= 0.0 || period <= 0.0 {
        return Err(ToolError::invalid(format!(
            "the rate must be positive: {amount} units per {period} {period_unit} never finishes"
        )));
    }
    if done > total {
        return Err(ToolError::invalid(format!(
            "done ({done}) is more than the total ({total})"
        )));
    }
    // Whole seconds: sub-second noise from the clock would only clutter the times shown.
    let now = Utc::now().trunc_subsecs(0);
    let start = match args.opt_str("start").map(str::trim) {
        None | Some("") => now,
        Some(s) if s.eq_ignore_ascii_case("now") => now,
        Some(s) => crate::tools::time::timestamps::parse_datetime(s, tz)?
            .map(|(dt, _)| dt)
            .ok_or_else(|| {
                ToolError::invalid(format!(
                    "cannot read start time '{}'; use ISO 8601 such as 2024-05-01T09:00:00Z or 2024-05-01 09:00 (read in the given time zone)",
                    crate::text::preview(s, 60)
                ))
            })?,
    };
    let period_ms = period * unit_ms(period_unit)?;
    let remaining = total - done;
    let exact_ms = remaining * period_ms / amount;
    if !exact_ms.is_finite() || exact_ms > MAX_MS {
        return Err(ToolError::invalid(
            "the duration is too long to represent; check the total and the rate",
        ));
    }
    let ms = exact_ms.round() as i64;
    let finish = start
        .checked_add_signed(TimeDelta::milliseconds(ms))
        .ok_or_else(|| ToolError::invalid("the finish time is beyond the year 262143"))?;
    let fmt = |dt: chrono::DateTime<Utc>| {
        dt.with_timezone(&tz)
            .to_rfc3339_opts(SecondsFormat::AutoSi, true)
    };
    let parts = Parts::new(ms, "days");
    let per_minute = amount / (period_ms / 60_000.0);
    Ok(json!({
        "output": fmt(finish),
        "finish": fmt(finish),
        "start": fmt(start),
        "durationMs": ms,
        "duration": parts.short(0),
        "durationLong": parts.long(0),
        "iso8601": iso8601(ms, "days"),
        "remaining": remaining,
        "ratePerMinute": per_minute,
        "timezone": tz.name(),
    }))
}

fn unit_ms(unit: &str) -> Result<f64, ToolError> {
    Ok(match unit {
        "ms" => 1.0,
        "s" => 1_000.0,
        "min" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        "w" => 604_800_000.0,
        other => {
            return Err(ToolError::invalid(format!("unknown time unit '{other}'")));
        }
    })
}

/// Reads a bare number (in `unit`), ISO 8601 (`PT1H30M`), a clock (`1:02:03`, `02:03.5`)
/// or a unit expression (`2h30m`, `1.5 days`, `1 hour, 2 minutes and 3 seconds`).
fn parse_duration(input: &str, unit: &str) -> Result<i64, ToolError> {
    static NUMBER: OnceLock<Regex> = OnceLock::new();
    static CLOCK: OnceLock<Regex> = OnceLock::new();
    let number = NUMBER.get_or_init(|| {
        Regex::new(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$").expect("valid regex")
    });
    let clock = CLOCK.get_or_init(|| {
        Regex::new(r"^([+-])?(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$").expect("valid regex")
    });
    if input.is_empty() {
        return Err(ToolError::invalid(
            "the duration is empty; give milliseconds (3723000), units (1h 2m 3s) or ISO 8601 (PT1H2M3S)",
        ));
    }
    let ms = if number.is_match(input) {
        let n: f64 = input
            .parse()
            .map_err(|_| ToolError::invalid(format!("'{input}' is not a number")))?;
        n * unit_ms(unit)?
    } else if input.trim_start_matches(['+', '-']).starts_with(['P', 'p']) {
        parse_iso(input)?
    } else if let Some(c) = clock.captures(input) {
        let field = |i: usize| {
            c.get(i)
                .map_or(Ok(0.0), |m| m.as_str().parse::<f64>())
                .unwrap_or(0.0)
        };
        let (h, m, s) = (field(2), field(3), field(4));
        if m >= 60.0 || s >= 60.0 {
            return Err(ToolError::invalid(format!(
                "clock duration '{input}' has minutes or seconds of 60 or more"
            )));
        }
        let sign = if c.get(1).is_some_and(|m| m.as_str() == "-") {
            -1.0
        } else {
            1.0
        };
        sign * ((h * 60.0 + m) * 60.0 + s) * 1000.0
    } else {
        parse_units(input)?
    };
    if !ms.is_finite() || ms.abs() > MAX_MS {
        return Err(ToolError::invalid(format!(
            "duration '{}' is too large (limit about 285,000 years)",
            crate::text::preview(input, 40)
        )));
    }
    Ok(ms.round() as i64)
}

fn parse_iso(input: &str) -> Result<f64, ToolError> {
    static ISO: OnceLock<Regex> = OnceLock::new();
    let iso = ISO.get_or_init(|| {
        let n = r"(\d+(?:[.,]\d+)?)";
        Regex::new(&format!(
            r"(?i)^([+-])?P(?:{n}Y)?(?:{n}M)?(?:{n}W)?(?:{n}D)?(?:T(?:{n}H)?(?:{n}M)?(?:{n}S)?)?$"
        ))
        .expect("valid regex")
    });
    let bad = || {
        ToolError::invalid(format!(
            "'{}' is not an ISO 8601 duration such as PT1H2M3S, P1DT12H or P2W",
            crate::text::preview(input, 40)
        ))
    };
    let c = iso.captures(input).ok_or_else(bad)?;
    let field = |i: usize| -> f64 {
        c.get(i)
            .and_then(|m| m.as_str().replace(',', ".").parse().ok())
            .unwrap_or(0.0)
    };
    let has = |i: usize| c.get(i).is_some();
    if !(2..=8).any(has) || (input.to_ascii_uppercase().contains('T') && !(6..=8).any(has)) {
        return Err(bad());
    }
    if field(2) != 0.0 || field(3) != 0.0 {
        return Err(ToolError::invalid(format!(
            "'{input}' has years or months, which have no fixed length; express them in weeks or days"
        )));
    }
    let ms = field(4) * 604_800_000.0
        + field(5) * 86_400_000.0
        + field(6) * 3_600_000.0
        + field(7) * 60_000.0
        + field(8) * 1000.0;
    Ok(if c.get(1).is_some_and(|m| m.as_str() == "-") {
        -ms
    } else {
        ms
    })
}

/// Unit words accepted in expressions, with their length in milliseconds.
fn unit_word(word: &str) -> Option<f64> {
    Some(match word.to_lowercase().as_str() {
        "ns" | "nanosecond" | "nanoseconds" => 1e-6,
        "us" | "µs" | "μs" | "microsecond" | "microseconds" => 1e-3,
        "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => 1.0,
        "s" | "sec" | "secs" | "second" | "seconds" => 1e3,
        "m" | "min" | "mins" | "minute" | "minutes" => 6e4,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3.6e6,
        "d" | "day" | "days" => 8.64e7,
        "w" | "wk" | "wks" | "week" | "weeks" => 6.048e8,
        _ => return None,
    })
}

fn parse_units(input: &str) -> Result<f64, ToolError> {
    let chars: Vec<char> = input.chars().collect();
    let mut i = 0;
    let mut total = 0.0;
    let mut sign = 1.0;
    let mut terms = 0;
    if let Some(&c) = chars.first()
        && (c == '-' || c == '+')
    {
        sign = if c == '-' { -1.0 } else { 1.0 };
        i = 1;
    }
    let at = |i: usize| i + 1;
    loop {
        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ',') {
            i += 1;
        }
        if i >= chars.len() {
            break;
        }
        let rest: String = chars[i..].iter().collect();
        if terms > 0 && rest.to_lowercase().starts_with("and ") {
            i += 4;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let number: String = chars[start..i].iter().collect();
        let value: f64 = number.parse().map_err(|_| {
            ToolError::invalid(format!(
                "expected a number at character {} of '{}', found '{}'",
                at(start),
                crate::text::preview(input, 60),
                chars[start]
            ))
        })?;
        while i < chars.len() && chars[i] == ' ' {
            i += 1;
        }
        let unit_start = i;
        while i < chars.len() && chars[i].is_alphabetic() {
            i += 1;
        }
        let word: String = chars[unit_start..i].iter().collect();
        if word.is_empty() {
            return Err(ToolError::invalid(format!(
                "the number {number} at character {} has no unit; use ms, s, m, h, d or w (or words such as minutes)",
                at(start)
            )));
        }
        let lower = word.to_lowercase();
        if matches!(
            lower.as_str(),
            "y" | "yr" | "yrs" | "year" | "years" | "mo" | "month" | "months"
        ) {
            return Err(ToolError::invalid(format!(
                "'{word}' at character {} has no fixed length; express years and months in days or weeks",
                at(unit_start)
            )));
        }
        let factor = unit_word(&word).ok_or_else(|| {
            ToolError::invalid(format!(
                "unknown unit '{word}' at character {}; use ns, us, ms, s, m, h, d or w (or words such as minutes, hours)",
                at(unit_start)
            ))
        })?;
        total += value * factor;
        terms += 1;
    }
    if terms == 0 {
        return Err(ToolError::invalid(format!(
            "'{}' contains no duration",
            crate::text::preview(input, 40)
        )));
    }
    Ok(sign * total)
}

/// A duration split into units from the largest requested down to milliseconds.
struct Parts {
    negative: bool,
    units: Vec<(&'static str, &'static str, i64)>,
}

impl Parts {
    fn new(ms: i64, largest: &str) -> Parts {
        let skip = match largest {
            "weeks" => 0,
            "days" => 1,
            "hours" => 2,
            "minutes" => 3,
            "seconds" => 4,
            _ => 5,
        };
        let mut rest = ms.unsigned_abs();
        let units = MS_PER[skip..]
            .iter()
            .map(|&(short, long, size)| {
                let n = rest / size as u64;
                rest %= size as u64;
                (short, long, n as i64)
            })
            .collect();
        Parts {
            negative: ms < 0,
            units,
        }
    }

    /// The non-zero units, at most `max` of them (0 = all) counted from the largest; smaller
    /// units beyond that are dropped, not rounded.
    fn shown(&self, max: usize) -> Vec<(&'static str, &'static str, i64)> {
        let mut shown: Vec<_> = self.units.iter().copied().filter(|u| u.2 != 0).collect();
        if max > 0 {
            shown.truncate(max);
        }
        shown
    }

    fn sign(&self, shown: &[(&str, &str, i64)]) -> &'static str {
        if self.negative && !shown.is_empty() {
            "-"
        } else {
            ""
        }
    }

    fn short(&self, max: usize) -> String {
        let shown = self.shown(max);
        if shown.is_empty() {
            return "0s".into();
        }
        let body: Vec<String> = shown.iter().map(|(s, _, n)| format!("{n}{s}")).collect();
        format!("{}{}", self.sign(&shown), body.join(" "))
    }

    fn long(&self, max: usize) -> String {
        let shown = self.shown(max);
        if shown.is_empty() {
            return "0 seconds".into();
        }
        let body: Vec<String> = shown
            .iter()
            .map(|(_, l, n)| format!("{n} {l}{}", if *n == 1 { "" } else { "s" }))
            .collect();
        format!("{}{}", self.sign(&shown), body.join(", "))
    }

    fn components(&self) -> Value {
        let mut map = serde_json::Map::new();
        for (_, long, n) in &self.units {
            map.insert(format!("{long}s"), json!(n));
        }
        Value::Object(map)
    }
}

/// ISO 8601 duration with nominal days (weeks folded into days so components never mix with W).
fn iso8601(ms: i64, largest: &str) -> String {
    let largest = if largest == "weeks" { "days" } else { largest };
    let p = Parts::new(ms, largest);
    let get = |unit: &str| p.units.iter().find(|u| u.0 == unit).map_or(0, |u| u.2);
    let mut out = String::from(if ms < 0 { "-P" } else { "P" });
    if get("d") != 0 {
        out.push_str(&format!("{}D", get("d")));
    }
    let (h, m, s, milli) = (get("h"), get("m"), get("s"), get("ms"));
    if h != 0 || m != 0 || s != 0 || milli != 0 || ms == 0 {
        out.push('T');
        if h != 0 {
            out.push_str(&format!("{h}H"));
        }
        if m != 0 {
            out.push_str(&format!("{m}M"));
        }
        if milli != 0 {
            let frac = format!("{milli:03}");
            out.push_str(&format!("{s}.{}S", frac.trim_end_matches('0')));
        } else if s != 0 || ms == 0 {
            out.push_str(&format!("{s}S"));
        }
    }
    out
}

/// `hh:mm:ss[.mmm]`, hours not wrapped at 24.
fn clock(ms: i64) -> String {
    let abs = ms.unsigned_abs();
    let (h, m, s, milli) = (
        abs / 3_600_000,
        abs / 60_000 % 60,
        abs / 1000 % 60,
        abs % 1000,
    );
    let sign = if ms < 0 { "-" } else { "" };
    if milli == 0 {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    } else {
        format!("{sign}{h:02}:{m:02}:{s:02}.{milli:03}")
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    #[test]
    fn milliseconds_to_every_format() {
        let data = run_ok("duration-formatter", json!({"input": "3723000"}));
        assert_eq!(data["output"], "1h 2m 3s");
        assert_eq!(data["long"], "1 hour, 2 minutes, 3 seconds");
        assert_eq!(data["iso8601"], "PT1H2M3S");
        assert_eq!(data["clock"], "01:02:03");
        assert_eq!(data["seconds"], 3723);
        assert_eq!(data["seconds"].to_string(), "3723");
        let iso = run_ok(
            "duration-formatter",
            json!({"input": "3723000", "format": "iso8601"}),
        );
        assert_eq!(iso["output"], "PT1H2M3S");
    }

    #[test]
    fn seconds_are_integers_when_whole() {
        let whole = run_ok(
            "duration-formatter",
            json!({"input": "2.5h", "format": "seconds"}),
        );
        assert_eq!(whole["output"], "9000");
        assert_eq!(whole["seconds"].to_string(), "9000");
        let part = run_ok(
            "duration-formatter",
            json!({"input": "1500", "format": "seconds"}),
        );
        assert_eq!(part["output"], "1.5");
        let zero = run_ok(
            "duration-formatter",
            json!({"input": "0", "format": "seconds"}),
        );
        assert_eq!(zero["output"], "0");
    }

    // Go's time.ParseDuration documentation examples and ISO 8601 (RFC 3339 Appendix A) forms.
    #[test]
    fn parses_expressions_iso_and_clock() {
        for (input, ms) in [
            ("2h30m", 9_000_000),
            ("1.5 days", 129_600_000),
            ("PT1H", 3_600_000),
            ("P1DT12H", 129_600_000),
            ("P2W", 1_209_600_000),
            ("PT0.5S", 500),
            ("1h15m30.918273645s", 4_530_918),
            ("1 hour, 2 minutes and 3 seconds", 3_723_000),
            ("300ms", 300),
            ("-1.5h", -5_400_000),
            ("01:02:03", 3_723_000),
            ("02:03.5", 123_500),
        ] {
            let data = run_ok("duration-formatter", json!({"input": input}));
            assert_eq!(data["milliseconds"], ms, "{input}");
        }
    }

    #[test]
    fn units_precision_and_largest_unit() {
        let data = run_ok(
            "duration-formatter",
            json!({"input": "90061.5", "inputUnit": "s", "format": "long"}),
        );
        assert_eq!(
            data["output"],
            "1 day, 1 hour, 1 minute, 1 second, 500 milliseconds"
        );
        assert_eq!(data["iso8601"], "P1DT1H1M1.5S");
        let two = run_ok(
            "duration-formatter",
            json!({"input": "90061500", "maxUnits": 2}),
        );
        assert_eq!(two["short"], "1d 1h");
        let hours = run_ok(
            "duration-formatter",
            json!({"input": "P1DT1H", "largestUnit": "hours"}),
        );
        assert_eq!(hours["short"], "25h");
        assert_eq!(hours["iso8601"], "PT25H");
        let weeks = run_ok(
            "duration-formatter",
            json!({"input": "15d", "largestUnit": "weeks"}),
        );
        assert_eq!(weeks["short"], "2w 1d");
        assert_eq!(weeks["iso8601"], "P15D");
        let zero = run_ok("duration-formatter", json!({"input": "0"}));
        assert_eq!(zero["short"], "0s");
        assert_eq!(zero["iso8601"], "PT0S");
    }

    #[test]
    fn duration_errors() {
        let (code, msg) = run_err("duration-formatter", json!({"input": "2 fortnights"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'fortnights' at character 3"), "{msg}");
        let (code, msg) = run_err("duration-formatter", json!({"input": "P1Y2M"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("no fixed length"), "{msg}");
        let (code, _) = run_err("duration-formatter", json!({"input": "PT"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        let (code, msg) = run_err("duration-formatter", json!({"input": "5 10m"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("no unit"), "{msg}");
    }

    // it-tools' ETA calculator defaults: 186 units at 3 per 5 minutes take 5 h 10 min.
    #[test]
    fn eta_it_tools_defaults() {
        let data = run_ok(
            "eta-calculator",
            json!({"total": 186, "amount": 3, "period": 5, "start": "2024-01-01T08:00:00Z"}),
        );
        assert_eq!(data["duration"], "5h 10m");
        assert_eq!(data["durationMs"], 18_600_000);
        assert_eq!(data["finish"], "2024-01-01T13:10:00Z");
        assert_eq!(data["iso8601"], "PT5H10M");
        assert_eq!(data["ratePerMinute"], 0.6);
    }

    #[test]
    fn eta_with_progress_and_time_zone() {
        let data = run_ok(
            "eta-calculator",
            json!({
                "total": 1000, "done": 400, "amount": 50, "period": 1, "periodUnit": "h",
                "start": "2024-03-30 20:00", "timezone": "Europe/Paris"
            }),
        );
        // 600 units at 50/h = 12 h; the clocks go forward at 02:00 on 31 March.
        assert_eq!(data["remaining"], 600.0);
        assert_eq!(data["start"], "2024-03-30T20:00:00+01:00");
        assert_eq!(data["finish"], "2024-03-31T09:00:00+02:00");
    }

    #[test]
    fn eta_errors() {
        let (code, msg) = run_err(
            "eta-calculator",
            json!({"total": 10, "amount": 0, "period": 1, "start": "2024-01-01T00:00:00Z"}),
        );
        assert!(
            matches!(
                code,
                ErrorCode::InvalidInput | ErrorCode::ConstraintViolation
            ),
            "{msg}"
        );
        let (code, msg) = run_err(
            "eta-calculator",
            json!({"total": 10, "done": 11, "amount": 1, "period": 1, "start": "2024-01-01T00:00:00Z"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("more than the total"), "{msg}");
        let (code, _) = run_err(
            "eta-calculator",
            json!({"total": 10, "amount": 1, "period": 1, "start": "yesterday-ish"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }
}
