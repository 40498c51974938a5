//! Cron expressions: validation naming the faulty field, a plain-English description, and the
//! next run times (schedules computed by croner).

mod description;

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use crate::tools::time::timestamps::{parse_datetime, timezone};
use chrono::{SecondsFormat, TimeZone as _, Utc};
use croner::Cron;
use croner::errors::CronError;
use croner::parser::{CronParser, Seconds, Year};
use serde_json::{Map, Value, json};

pub(crate) const TOOLS: &[Tool] = &[Tool::new("cron-parser", cron_parser)];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Second,
    Minute,
    Hour,
    Dom,
    Month,
    Dow,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Second => "second",
            Kind::Minute => "minute",
            Kind::Hour => "hour",
            Kind::Dom => "day-of-month",
            Kind::Month => "month",
            Kind::Dow => "day-of-week",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Kind::Second => "second",
            Kind::Minute => "minute",
            Kind::Hour => "hour",
            Kind::Dom => "dayOfMonth",
            Kind::Month => "month",
            Kind::Dow => "dayOfWeek",
        }
    }

    fn range(self) -> (u32, u32) {
        match self {
            Kind::Second | Kind::Minute => (0, 59),
            Kind::Hour => (0, 23),
            Kind::Dom => (1, 31),
            Kind::Month => (1, 12),
            Kind::Dow => (0, 7),
        }
    }

    fn names(self) -> &'static [&'static str] {
        match self {
            Kind::Month => &[
                "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
            ],
            Kind::Dow => &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
            _ => &[],
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Item {
    /// `*` or `?`.
    Any,
    Value(u32),
    Range(u32, u32),
    /// `*/n` (star), `a/n` or `a-b/n`.
    Step {
        star: bool,
        start: u32,
        end: u32,
        step: u32,
    },
    /// Day-of-month `L`.
    Last,
    /// Day-of-month `LW`.
    LastWeekday,
    /// Day-of-month `15W`.
    NearestWeekday(u32),
    /// Day-of-week `5L`.
    LastDow(u32),
    /// Day-of-week `1#2`.
    NthDow(u32, u32),
}

struct Field {
    kind: Kind,
    items: Vec<Item>,
}

impl Field {
    fn is_any(&self) -> bool {
        self.items.iter().all(|i| *i == Item::Any)
    }

    fn single(&self) -> Option<u32> {
        match self.items.as_slice() {
            [Item::Value(v)] => Some(*v),
            _ => None,
        }
    }

    fn values(&self) -> Option<Vec<u32>> {
        self.items
            .iter()
            .map(|i| match i {
                Item::Value(v) => Some(*v),
                _ => None,
            })
            .collect()
    }

    /// The field as croner reads it: numbers only, `a/n` spelled `a-max/n`.
    fn normalised(&self) -> String {
        let (_, max) = self.kind.range();
        self.items
            .iter()
            .map(|item| match *item {
                Item::Any => "*".to_string(),
                Item::Value(v) => v.to_string(),
                Item::Range(a, b) => format!("{a}-{b}"),
                Item::Step {
                    star: true, step, ..
                } => format!("*/{step}"),
                Item::Step {
                    start, end, step, ..
                } => format!("{start}-{}/{step}", end.min(max)),
                Item::Last => "L".into(),
                Item::LastWeekday => "LW".into(),
                Item::NearestWeekday(d) => format!("{d}W"),
                Item::LastDow(d) => format!("{d}L"),
                Item::NthDow(d, n) => format!("{d}#{n}"),
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

fn field_error(kind: Kind, text: &str, why: impl std::fmt::Display) -> ToolError {
    ToolError::invalid(format!(
        "{} field '{}': {why}",
        kind.name(),
        crate::text::preview(text, 40)
    ))
}

fn parse_value(kind: Kind, token: &str, text: &str) -> Result<u32, ToolError> {
    let (min, max) = kind.range();
    let upper = token.to_ascii_uppercase();
    if let Some(i) = kind.names().iter().position(|n| *n == upper) {
        return Ok(if kind == Kind::Month {
            i as u32 + 1
        } else {
            i as u32
        });
    }
    let value: u32 = token.parse().map_err(|_| {
        let names = if kind.names().is_empty() {
            String::new()
        } else {
            format!(" or a name ({})", kind.names().join(", "))
        };
        field_error(
            kind,
            text,
            format!("'{token}' is not a number from {min} to {max}{names}"),
        )
    })?;
    if value < min || value > max {
        return Err(field_error(
            kind,
            text,
            format!("{value} is out of range {min}-{max}"),
        ));
    }
    Ok(value)
}

fn parse_item(kind: Kind, token: &str, text: &str) -> Result<Item, ToolError> {
    let upper = token.to_ascii_uppercase();
    let (min, max) = kind.range();
    if upper == "*" || (upper == "?" && matches!(kind, Kind::Dom | Kind::Dow)) {
        return Ok(Item::Any);
    }
    if let Some((base, step)) = token.split_once('/') {
        let step: u32 = step
            .parse()
            .ok()
            .filter(|s| *s >= 1 && *s <= max.max(1))
            .ok_or_else(|| {
                field_error(
                    kind,
                    text,
                    format!("step '{step}' must be a whole number from 1 to {max}"),
                )
            })?;
        let (star, start, end) = if base == "*" {
            (true, min, max)
        } else if let Some((a, b)) = base.split_once('-') {
            let (a, b) = (parse_value(kind, a, text)?, parse_value(kind, b, text)?);
            check_order(kind, a, b, text)?;
            (false, a, b)
        } else {
            (false, parse_value(kind, base, text)?, max)
        };
        return Ok(Item::Step {
            star,
            start,
            end,
            step,
        });
    }
    if kind == Kind::Dom {
        if upper == "L" {
            return Ok(Item::Last);
        }
        if upper == "LW" {
            return Ok(Item::LastWeekday);
        }
        if let Some(day) = upper.strip_suffix('W') {
            return Ok(Item::NearestWeekday(parse_value(kind, day, text)?));
        }
    }
    if kind == Kind::Dow {
        if let Some(day) = upper.strip_suffix('L') {
            if day.is_empty() {
                return Err(field_error(
                    kind,
                    text,
                    "'L' needs a weekday before it, e.g. 5L for the last Friday of the month",
                ));
            }
            return Ok(Item::LastDow(parse_value(kind, day, text)? % 7));
        }
        if let Some((day, nth)) = upper.split_once('#') {
            let nth: u32 = nth
                .parse()
                .ok()
                .filter(|n| (1..=5).contains(n))
                .ok_or_else(|| {
                    field_error(
                        kind,
                        text,
                        format!("'#{nth}' must be #1 to #5 (the nth weekday of the month)"),
                    )
                })?;
            return Ok(Item::NthDow(parse_value(kind, day, text)? % 7, nth));
        }
    }
    if let Some((a, b)) = token.split_once('-') {
        let (a, b) = (parse_value(kind, a, text)?, parse_value(kind, b, text)?);
        check_order(kind, a, b, text)?;
        return Ok(Item::Range(a, b));
    }
    parse_value(kind, token, text).map(Item::Value)
}

fn check_order(kind: Kind, a: u32, b: u32, text: &str) -> Result<(), ToolError> {
    if a > b {
        return Err(field_error(
            kind,
            text,
            format!("range {a}-{b} runs backwards (write the smaller value first)"),
        ));
    }
    Ok(())
}

fn parse_field(kind: Kind, text: &str) -> Result<Field, ToolError> {
    let items = text
        .split(',')
        .map(|token| {
            if token.is_empty() {
                Err(field_error(kind, text, "empty list element"))
            } else {
                parse_item(kind, token, text)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Field { kind, items })
}

const NICKNAMES: &[(&str, &str)] = &[
    ("@yearly", "0 0 1 1 *"),
    ("@annually", "0 0 1 1 *"),
    ("@monthly", "0 0 1 * *"),
    ("@weekly", "0 0 * * 0"),
    ("@daily", "0 0 * * *"),
    ("@midnight", "0 0 * * *"),
    ("@hourly", "0 * * * *"),
];

fn parse_expression(expression: &str) -> Result<Vec<Field>, ToolError> {
    let trimmed = expression.trim();
    let expanded = if trimmed.starts_with('@') {
        NICKNAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(trimmed))
            .map(|(_, e)| *e)
            .ok_or_else(|| {
                let names: Vec<&str> = NICKNAMES.iter().map(|(n, _)| *n).collect();
                ToolError::invalid(format!(
                    "'{}' is not a schedule nickname; known: {} (@reboot has no schedule)",
                    crate::text::preview(trimmed, 40),
                    names.join(", ")
                ))
            })?
    } else {
        trimmed
    };
    let parts: Vec<&str> = expanded.split_whitespace().collect();
    let kinds: &[Kind] = match parts.len() {
        5 => &[Kind::Minute, Kind::Hour, Kind::Dom, Kind::Month, Kind::Dow],
        6 => &[
            Kind::Second,
            Kind::Minute,
            Kind::Hour,
            Kind::Dom,
            Kind::Month,
            Kind::Dow,
        ],
        n => {
            return Err(ToolError::invalid(format!(
                "expected 5 fields (minute hour day-of-month month day-of-week) or 6 (second first), found {n}"
            )));
        }
    };
    kinds
        .iter()
        .zip(parts)
        .map(|(kind, text)| parse_field(*kind, text))
        .collect()
}

fn cron_parser(args: &Args) -> ToolOutcome {
    let expression = args.str("expression")?;
    let fields = parse_expression(expression)?;
    let count = args.usize("count")?;
    let tz = timezone(args.str("timezone")?)?;
    let normalised: Vec<String> = fields.iter().map(Field::normalised).collect();
    let normalised = normalised.join(" ");
    let cron = CronParser::builder()
        .seconds(Seconds::Optional)
        .year(Year::Disallowed)
        .build()
        .parse(&normalised)
        .map_err(|e| ToolError::invalid(format!("invalid cron expression: {e}")))?;
    let from = match args.opt_str("from") {
        Some(text) => {
            parse_datetime(text.trim(), tz)?
                .ok_or_else(|| {
                    ToolError::invalid(format!(
                        "'from' must be an ISO 8601 date-time such as 2024-01-01T00:00:00Z, received '{}'",
                        crate::text::preview(text, 60)
                    ))
                })?
                .0
        }
        None => Utc::now(),
    };
    let mut runs = Vec::new();
    let mut formatted = Vec::new();
    let user_format = args.opt_str("format");
    let start = from.with_timezone(&tz);
    let mut cursor = start;
    while runs.len() < count {
        match cron.find_next_occurrence(&cursor, false) {
            Ok(next) => {
                runs.push(next.to_rfc3339_opts(SecondsFormat::Secs, false));
                if let Some(f) = user_format {
                    formatted.push(crate::tools::time::timestamps::strftime(&next, f)?);
                }
                cursor = next;
            }
            Err(CronError::TimeSearchLimitExceeded) => break,
            Err(e) => {
                return Err(ToolError::execution(format!(
                    "cannot compute run times: {e}"
                )));
            }
        }
    }
    let description = description::describe(&fields);
    let mut field_map = Map::new();
    for f in &fields {
        field_map.insert(f.kind.key().into(), Value::String(f.normalised()));
    }
    let note = shortfall_note(&cron, &start, runs.len(), count);
    let mut output = if runs.is_empty() {
        description.clone()
    } else {
        format!(
            "{description}\n\nNext runs ({}):\n{}",
            tz.name(),
            (if user_format.is_some() {
                &formatted
            } else {
                &runs
            })
            .iter()
            .map(|r| format!("  {r}"))
            .collect::<Vec<_>>()
            .join("\n")
        )
    };
    if let Some(note) = &note {
        output.push_str("\n\n");
        output.push_str(note);
    }
    let mut data = json!({
        "output": output,
        "description": description,
        "nextRuns": runs,
        "expression": normalised,
        "fields": field_map,
        "timezone": tz.name(),
    });
    if user_format.is_some() {
        data["formattedRuns"] = json!(formatted);
    }
    if let Some(note) = note {
        data["note"] = Value::String(note);
    }
    Ok(data)
}

/// Why fewer runs than asked were listed, if they were. croner computes run times only up to
/// the year 5000 ([`croner::YEAR_UPPER_LIMIT`]), so a shortfall is that horizon unless the
/// schedule matches no date at all (February 30), which a search from 2000 tells apart.
fn shortfall_note<Z: chrono::TimeZone>(
    cron: &Cron,
    start: &chrono::DateTime<Z>,
    found: usize,
    asked: usize,
) -> Option<String> {
    use chrono::Datelike;
    if found >= asked {
        return None;
    }
    let horizon = croner::YEAR_UPPER_LIMIT;
    if found > 0 {
        return Some(format!(
            "Only {found} of the {asked} runs asked for are listed: run times are computed up to the year {horizon}, and the schedule has no more runs before then."
        ));
    }
    if start.year() >= horizon {
        return Some(format!(
            "No runs are listed: run times are computed only up to the year {horizon}, and 'from' ({}) is later.",
            start.year()
        ));
    }
    let reference = chrono::Utc
        .with_ymd_and_hms(2000, 1, 1, 0, 0, 0)
        .single()
        .map(|t| t.with_timezone(&start.timezone()));
    let ever = reference.is_some_and(|t| cron.find_next_occurrence(&t, false).is_ok());
    Some(if ever {
        format!(
            "No runs are listed: the schedule has none between 'from' and the year {horizon}, where the computation of run times stops."
        )
    } else {
        "Never runs: no date matches this schedule (for example February 30, or April 31)."
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn describe(expression: &str) -> String {
        run_ok(
            "cron-parser",
            json!({"expression": expression, "from": "2024-01-01T00:00:00Z", "count": 1}),
        )["description"]
            .as_str()
            .unwrap()
            .to_string()
    }

    // Phrasings follow cronstrue / crontab.guru for the same expressions.
    #[test]
    fn descriptions() {
        assert_eq!(describe("* * * * *"), "Every minute");
        assert_eq!(describe("*/15 * * * *"), "Every 15 minutes");
        assert_eq!(describe("0 9 * * 1-5"), "At 09:00, Monday through Friday");
        assert_eq!(describe("0 */2 * * *"), "At minute 0 past every 2nd hour");
        assert_eq!(describe("0 * * * *"), "Every hour");
        assert_eq!(
            describe("30 4 1,15 * *"),
            "At 04:30, on days 1 and 15 of the month"
        );
        assert_eq!(
            describe("0 22 * * SAT,sun"),
            "At 22:00, only on Saturday and Sunday"
        );
        assert_eq!(describe("5 0 * 8 *"), "At 00:05, only in August");
        assert_eq!(
            describe("0 0,12 1 */2 *"),
            "At 00:00 and 12:00, on day 1 of the month, every 2 months"
        );
        assert_eq!(
            describe("23 0-20/2 * * *"),
            "At minute 23 past every 2nd hour from 0 through 20"
        );
        assert_eq!(
            describe("@yearly"),
            "At 00:00, on day 1 of the month, only in January"
        );
        assert_eq!(describe("@weekly"), "At 00:00, only on Sunday");
        assert_eq!(
            describe("0 6 * * */2"),
            "At 06:00, on every 2nd day of the week"
        );
        assert_eq!(describe("*/10 * * * * *"), "Every 10 seconds");
        assert_eq!(describe("30 15 10 * * *"), "At 10:15:30");
        assert_eq!(
            describe("0 12 L * *"),
            "At 12:00, on the last day of the month"
        );
        assert_eq!(
            describe("0 12 * * 5L"),
            "At 12:00, on the last Friday of the month"
        );
        assert_eq!(
            describe("0 12 * * MON#2"),
            "At 12:00, on the second Monday of the month"
        );
        assert_eq!(
            describe("0 0 1 * 1"),
            "At 00:00, on day 1 of the month, or on Monday"
        );
    }

    #[test]
    fn next_runs_on_weekdays_at_nine() {
        // 2024-01-05 is a Friday, so the next weekday mornings are Mon 8 … Fri 12.
        let data = run_ok(
            "cron-parser",
            json!({"expression": "0 9 * * 1-5", "from": "2024-01-05T10:00:00Z"}),
        );
        assert_eq!(
            data["nextRuns"],
            json!([
                "2024-01-08T09:00:00+00:00",
                "2024-01-09T09:00:00+00:00",
                "2024-01-10T09:00:00+00:00",
                "2024-01-11T09:00:00+00:00",
                "2024-01-12T09:00:00+00:00"
            ])
        );
        let leap = run_ok(
            "cron-parser",
            json!({"expression": "0 0 29 2 *", "from": "2023-01-01T00:00:00Z", "count": 2}),
        );
        assert_eq!(
            leap["nextRuns"],
            json!(["2024-02-29T00:00:00+00:00", "2028-02-29T00:00:00+00:00"])
        );
    }

    #[test]
    fn next_runs_in_a_time_zone_across_dst() {
        // New York springs forward on 2024-03-10: 09:00 is EST (-05:00) before, EDT (-04:00) after.
        let data = run_ok(
            "cron-parser",
            json!({"expression": "0 9 * * *", "from": "2024-03-09T00:00:00", "timezone": "America/New_York", "count": 2}),
        );
        assert_eq!(
            data["nextRuns"],
            json!(["2024-03-09T09:00:00-05:00", "2024-03-10T09:00:00-04:00"])
        );
        let six = run_ok(
            "cron-parser",
            json!({"expression": "*/20 * * * * *", "from": "2024-01-01T00:00:00Z", "count": 3}),
        );
        assert_eq!(
            six["nextRuns"],
            json!([
                "2024-01-01T00:00:20+00:00",
                "2024-01-01T00:00:40+00:00",
                "2024-01-01T00:01:00+00:00"
            ])
        );
    }

    #[test]
    fn errors_name_the_field() {
        let err = |e: &str| {
            let (code, msg) = run_err("cron-parser", json!({"expression": e}));
            assert_eq!(code, ErrorCode::InvalidInput);
            msg
        };
        assert!(err("60 * * * *").starts_with("minute field '60': 60 is out of range 0-59"));
        assert!(err("0 24 * * *").starts_with("hour field"));
        assert!(err("0 0 32 * *").starts_with("day-of-month field"));
        assert!(err("0 0 * 13 *").starts_with("month field"));
        assert!(err("0 0 * * FUN").contains("day-of-week field 'FUN'"));
        assert!(err("0 0 * *").contains("expected 5 fields"));
        assert!(err("*/0 * * * *").contains("step"));
        assert!(err("@reboot").contains("@reboot has no schedule"));
        let (code, msg) = run_err(
            "cron-parser",
            json!({"expression": "* * * * *", "timezone": "Europe/Londn"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("Europe/London"), "{msg}");
    }

    fn runs(expression: &str, from: &str, count: u32) -> serde_json::Value {
        run_ok(
            "cron-parser",
            json!({"expression": expression, "from": from, "count": count}),
        )
    }

    #[test]
    fn fewer_runs_than_asked_come_with_a_note() {
        // Yearly, close to croner's horizon (the year 5000): two runs, and why not five.
        let d = runs("0 0 1 1 *", "4998-06-01T00:00:00Z", 5);
        assert_eq!(
            d["nextRuns"],
            json!(["4999-01-01T00:00:00+00:00", "5000-01-01T00:00:00+00:00"])
        );
        assert_eq!(
            d["note"],
            "Only 2 of the 5 runs asked for are listed: run times are computed up to the year 5000, and the schedule has no more runs before then."
        );
        assert!(
            d["output"]
                .as_str()
                .unwrap()
                .ends_with(d["note"].as_str().unwrap())
        );
        // Near 9999 the schedule still runs every year: no "never runs".
        let d = runs("0 0 1 1 *", "9998-06-01T00:00:00Z", 5);
        assert_eq!(d["nextRuns"], json!([]));
        assert_eq!(
            d["note"],
            "No runs are listed: run times are computed only up to the year 5000, and 'from' (9998) is later."
        );
        assert!(!d["output"].as_str().unwrap().contains("Never runs"));
        // A date that never exists.
        let d = runs("0 0 30 2 *", "2024-01-01T00:00:00Z", 3);
        assert_eq!(
            d["note"],
            "Never runs: no date matches this schedule (for example February 30, or April 31)."
        );
        // Enough runs: no note.
        assert!(
            runs("0 0 1 1 *", "2024-06-01T00:00:00Z", 3)
                .get("note")
                .is_none()
        );
    }

    #[test]
    fn custom_output_date_format_matches_python_strftime() {
        let data = run_ok(
            "cron-parser",
            json!({"expression": "30 9 * * 1-5", "count": 3, "from": "2024-01-05T12:00:00Z",
                   "timezone": "Europe/Paris", "format": "%a %d %b %Y %H:%M %Z"}),
        );
        let expected = [
            "Mon 08 Jan 2024 09:30 CET",
            "Tue 09 Jan 2024 09:30 CET",
            "Wed 10 Jan 2024 09:30 CET",
        ];
        assert_eq!(data["formattedRuns"], json!(expected));
        assert_eq!(data["nextRuns"][0], "2024-01-08T09:30:00+01:00");
        assert!(
            data["output"]
                .as_str()
                .unwrap_or_default()
                .contains("  Mon 08 Jan 2024 09:30 CET\n")
        );
        if let Some(py) = crate::tools::kit::testing::python(
            "from datetime import datetime, timedelta\n\
             for d in (8, 9, 10): print(datetime(2024, 1, d, 9, 30).strftime('%a %d %b %Y %H:%M') + ' CET')",
        ) {
            assert_eq!(py, expected.join("\n"));
        }
        let (code, msg) = run_err(
            "cron-parser",
            json!({"expression": "* * * * *", "format": "%Q"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("unknown or incomplete % specifier"), "{msg}");
    }
}
