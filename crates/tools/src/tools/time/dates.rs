//! Calendar arithmetic: the difference between two dates or date-times (years-months-days and
//! elapsed totals, business days) and adding or subtracting a calendar duration, in an IANA zone.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use crate::tools::time::timestamps::{parse_datetime, timezone};
use chrono::{
    DateTime, Datelike, Days, Duration, LocalResult, Months, NaiveDate, NaiveDateTime, Offset,
    SecondsFormat, TimeZone, Utc, Weekday,
};
use chrono_tz::Tz;
use serde_json::{Value, json};
use std::collections::BTreeSet;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("date-calculator", date_calculator)];

/// A parsed point in time: the instant, its wall-clock reading in the zone, and whether the
/// input named only a date.
struct Moment {
    local: DateTime<Tz>,
    date_only: bool,
}

fn parse_moment(text: &str, what: &str, tz: Tz) -> Result<Moment, ToolError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("now") {
        return Ok(Moment {
            local: Utc::now().with_timezone(&tz),
            date_only: false,
        });
    }
    if t.eq_ignore_ascii_case("today") {
        let date = Utc::now().with_timezone(&tz).date_naive();
        return Ok(Moment {
            local: resolve_local(date.and_time(chrono::NaiveTime::MIN), tz)?.0,
            date_only: true,
        });
    }
    let date_only = NaiveDate::parse_from_str(t, "%Y-%m-%d").is_ok();
    match parse_datetime(t, tz)? {
        Some((instant, _)) => Ok(Moment {
            local: instant.with_timezone(&tz),
            date_only,
        }),
        None => Err(ToolError::invalid(format!(
            "{what} '{}' is not a date: {}",
            crate::text::preview(t, 60),
            why_not_a_date(t)
        ))),
    }
}

/// Explains a YYYY-MM-DD that does not exist, else lists the accepted forms.
fn why_not_a_date(t: &str) -> String {
    let head: String = t.chars().take(10).collect();
    let parts: Vec<&str> = head.split('-').collect();
    if let [y, m, d] = parts[..]
        && let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i32>(), m.parse::<u32>(), d.parse::<u32>())
    {
        if !(1..=12).contains(&m) {
            return format!("month {m} does not exist (1-12)");
        }
        let last = last_day_of_month(y, m);
        if d == 0 || d > last {
            let leap = if m == 2 && last == 28 {
                format!(" ({y} is not a leap year)")
            } else {
                String::new()
            };
            return format!("day {d} does not exist in {y}-{m:02}, which has {last} days{leap}");
        }
    }
    "use YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS], an RFC 3339 date-time with offset, RFC 2822, now or today".to_string()
}

fn last_day_of_month(year: i32, month: u32) -> u32 {
    (28..=31)
        .rev()
        .find(|d| NaiveDate::from_ymd_opt(year, month, *d).is_some())
        .unwrap_or(28)
}

/// Wall-clock time to an instant. In a DST overlap the earlier instant is used; in a gap the
/// time moves forward by the gap (RFC 5545 and Temporal's "compatible" choice). The flag says
/// whether the time was adjusted.
fn resolve_local(naive: NaiveDateTime, tz: Tz) -> Result<(DateTime<Tz>, bool), ToolError> {
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(dt) => Ok((dt, false)),
        LocalResult::Ambiguous(dt, _) => Ok((dt, false)),
        LocalResult::None => {
            let before = naive - Duration::hours(6);
            let offset = match tz.from_local_datetime(&before) {
                LocalResult::Single(dt) | LocalResult::Ambiguous(dt, _) => {
                    dt.offset().fix().local_minus_utc()
                }
                LocalResult::None => 0,
            };
            let utc = naive - Duration::seconds(i64::from(offset));
            Ok((Utc.from_utc_datetime(&utc).with_timezone(&tz), true))
        }
    }
}

fn describe(dt: &DateTime<Tz>, date_only: bool) -> Value {
    let week = dt.iso_week();
    json!({
        "value": format_moment(dt, date_only),
        "dayOfWeek": dt.format("%A").to_string(),
        "isoWeek": format!("{}-W{:02}", week.year(), week.week()),
        "dayOfYear": dt.ordinal(),
        "leapYear": dt.date_naive().leap_year(),
    })
}

fn format_moment(dt: &DateTime<Tz>, date_only: bool) -> String {
    if date_only {
        dt.format("%Y-%m-%d").to_string()
    } else {
        dt.to_rfc3339_opts(SecondsFormat::AutoSi, true)
    }
}

/// A calendar duration: months and days are calendar units, the rest exact elapsed time.
#[derive(Default, Debug, PartialEq)]
struct CalendarDuration {
    months: i64,
    days: i64,
    seconds: i64,
    nanos: i64,
}

impl CalendarDuration {
    fn has_time(&self) -> bool {
        self.seconds != 0 || self.nanos != 0
    }

    fn negate(&mut self) {
        self.months = -self.months;
        self.days = -self.days;
        self.seconds = -self.seconds;
        self.nanos = -self.nanos;
    }

    fn iso(&self) -> String {
        let sign = if self.months < 0 || self.days < 0 || self.seconds < 0 || self.nanos < 0 {
            "-"
        } else {
            ""
        };
        iso_duration(
            sign,
            self.months.abs() / 12,
            self.months.abs() % 12,
            self.days.abs(),
            self.seconds.abs(),
            self.nanos.abs(),
        )
    }
}

fn iso_duration(sign: &str, y: i64, mo: i64, d: i64, secs: i64, nanos: i64) -> String {
    let mut s = format!("{sign}P");
    for (n, u) in [(y, 'Y'), (mo, 'M'), (d, 'D')] {
        if n != 0 {
            s.push_str(&format!("{n}{u}"));
        }
    }
    let (h, m, sec) = (secs / 3600, secs % 3600 / 60, secs % 60);
    if h != 0 || m != 0 || sec != 0 || nanos != 0 {
        s.push('T');
        if h != 0 {
            s.push_str(&format!("{h}H"));
        }
        if m != 0 {
            s.push_str(&format!("{m}M"));
        }
        if sec != 0 || nanos != 0 {
            if nanos != 0 {
                let frac = format!("{nanos:09}");
                s.push_str(&format!("{sec}.{}S", frac.trim_end_matches('0')));
            } else {
                s.push_str(&format!("{sec}S"));
            }
        }
    }
    if s.ends_with('P') {
        s.push_str("0D");
    }
    s
}

/// ISO 8601 (P1Y2M10DT2H30M, P3W) or words ("3 weeks 2 days", "1y 2mo 4h").
fn parse_duration(text: &str) -> Result<CalendarDuration, ToolError> {
    let t = text.trim();
    let bad = |why: &str| {
        ToolError::invalid(format!(
            "duration '{}' {why}; write ISO 8601 (P1Y2M10DT2H30M, P3W) or words (3 weeks 2 days, 1 year 6 months, 90 minutes)",
            crate::text::preview(t, 60)
        ))
    };
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let upper = body.to_ascii_uppercase();
    let mut d = CalendarDuration::default();
    if upper.starts_with('P') {
        let re = regex::Regex::new(
            r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d{1,9}))?S)?)?$",
        )
        .map_err(|e| ToolError::execution(e.to_string()))?;
        let c = re.captures(&upper).ok_or_else(|| bad("is not ISO 8601"))?;
        if upper == "P" || upper.ends_with('T') {
            return Err(bad("has no components"));
        }
        let n = |i: usize| -> Result<i64, ToolError> {
            c.get(i).map_or(Ok(0), |m| {
                m.as_str()
                    .parse()
                    .map_err(|_| bad("has a number that is too large"))
            })
        };
        d.months = n(1)? * 12 + n(2)?;
        d.days = n(3)? * 7 + n(4)?;
        d.seconds = n(5)? * 3600 + n(6)? * 60 + n(7)?;
        if let Some(f) = c.get(8) {
            d.nanos = format!("{:0<9}", f.as_str()).parse().unwrap_or(0);
        }
    } else {
        let re = regex::Regex::new(r"(?i)(\d+)\s*([a-z]+)")
            .map_err(|e| ToolError::execution(e.to_string()))?;
        let mut rest = body.to_string();
        let mut any = false;
        for c in re.captures_iter(body) {
            let n: i64 = c[1]
                .parse()
                .map_err(|_| bad("has a number that is too large"))?;
            match c[2].to_ascii_lowercase().as_str() {
                "y" | "yr" | "yrs" | "year" | "years" => d.months += n * 12,
                "mo" | "mon" | "mons" | "month" | "months" => d.months += n,
                "w" | "wk" | "wks" | "week" | "weeks" => d.days += n * 7,
                "d" | "day" | "days" => d.days += n,
                "h" | "hr" | "hrs" | "hour" | "hours" => d.seconds += n * 3600,
                "m" | "min" | "mins" | "minute" | "minutes" => d.seconds += n * 60,
                "s" | "sec" | "secs" | "second" | "seconds" => d.seconds += n,
                other => return Err(bad(&format!("has an unknown unit '{other}'"))),
            }
            any = true;
            rest = rest.replacen(&c[0], " ", 1);
        }
        let leftover: String = rest
            .split([',', ' '])
            .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("and"))
            .collect::<Vec<_>>()
            .join(" ");
        if !any || !leftover.is_empty() {
            return Err(bad(&if leftover.is_empty() {
                "has no amounts".to_string()
            } else {
                format!("has unreadable text '{leftover}'")
            }));
        }
    }
    if negative {
        d.negate();
    }
    Ok(d)
}

fn add_duration(
    start: &DateTime<Tz>,
    d: &CalendarDuration,
    tz: Tz,
) -> Result<(DateTime<Tz>, bool), ToolError> {
    let overflow = || ToolError::invalid("the result is outside the supported date range");
    let naive = start.naive_local();
    let months = u32::try_from(d.months.unsigned_abs()).map_err(|_| overflow())?;
    let shifted = if d.months >= 0 {
        naive.checked_add_months(Months::new(months))
    } else {
        naive.checked_sub_months(Months::new(months))
    }
    .ok_or_else(overflow)?;
    let days = Days::new(d.days.unsigned_abs());
    let shifted = if d.days >= 0 {
        shifted.checked_add_days(days)
    } else {
        shifted.checked_sub_days(days)
    }
    .ok_or_else(overflow)?;
    // Calendar units keep the wall-clock time; hours and smaller are elapsed time.
    let (local, adjusted) = if d.months != 0 || d.days != 0 {
        resolve_local(shifted, tz)?
    } else {
        (*start, false)
    };
    let exact = Duration::try_seconds(d.seconds)
        .and_then(|s| s.checked_add(&Duration::nanoseconds(d.nanos)))
        .ok_or_else(overflow)?;
    let result = local.checked_add_signed(exact).ok_or_else(overflow)?;
    Ok((result, adjusted))
}

/// Whole calendar months from `a` to `b` (a ≤ b) with end-of-month clamping, then the rest.
fn calendar_breakdown(a: NaiveDateTime, b: NaiveDateTime) -> (i64, Duration) {
    let mut months =
        i64::from(b.year() - a.year()) * 12 + i64::from(b.month()) - i64::from(a.month());
    let add = |m: i64| a.checked_add_months(Months::new(u32::try_from(m.max(0)).unwrap_or(0)));
    while months > 0 && add(months).is_none_or(|x| x > b) {
        months -= 1;
    }
    let anchor = add(months.max(0)).unwrap_or(a);
    (months.max(0), b - anchor)
}

/// Monday–Friday dates in [from, to), less the holidays.
fn business_days(from: NaiveDate, to: NaiveDate, holidays: &BTreeSet<NaiveDate>) -> i64 {
    let span = (to - from).num_days();
    if span <= 0 {
        return 0;
    }
    let weeks = span / 7;
    let mut count = weeks * 5;
    let mut day = from + Duration::days(weeks * 7);
    while day < to {
        if !matches!(day.weekday(), Weekday::Sat | Weekday::Sun) {
            count += 1;
        }
        day += Duration::days(1);
    }
    let off = holidays
        .range(from..to)
        .filter(|d| !matches!(d.weekday(), Weekday::Sat | Weekday::Sun))
        .count() as i64;
    count - off
}

fn parse_holidays(text: Option<&str>) -> Result<BTreeSet<NaiveDate>, ToolError> {
    let mut set = BTreeSet::new();
    for item in text
        .unwrap_or("")
        .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter(|s| !s.is_empty())
    {
        let date = NaiveDate::parse_from_str(item, "%Y-%m-%d").map_err(|_| {
            ToolError::invalid(format!(
                "holiday '{}' is not a YYYY-MM-DD date: {}",
                crate::text::preview(item, 40),
                why_not_a_date(item)
            ))
        })?;
        set.insert(date);
    }
    Ok(set)
}

fn plural(n: i64, unit: &str) -> String {
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

fn date_calculator(args: &Args) -> ToolOutcome {
    let tz = timezone(args.str("timezone")?)?;
    let mode = args.str("mode")?;
    let start = parse_moment(args.str("start")?, "start", tz)?;
    if mode == "difference" {
        let end_text = args
            .opt_str("end")
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| ToolError::invalid("mode 'difference' needs an end date"))?;
        let end = parse_moment(end_text, "end", tz)?;
        return difference(&start, &end, tz, args);
    }
    let text = args
        .opt_str("duration")
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "mode '{mode}' needs a duration (P1M, 3 weeks 2 days)"
            ))
        })?;
    let mut d = parse_duration(text)?;
    if mode == "subtract" {
        d.negate();
    }
    let (result, adjusted) = add_duration(&start.local, &d, tz)?;
    let date_only = start.date_only && !d.has_time();
    let clamped = d.months != 0 && {
        let day = start.local.day();
        day > 28 && result.day() < day && d.days == 0
    };
    let mut notes = Vec::new();
    if clamped {
        notes.push(format!(
            "day {} does not exist in the target month, so the last day of that month was used",
            start.local.day()
        ));
    }
    if adjusted {
        notes.push(
            "the wall-clock time fell in a daylight-saving gap and was moved forward by the gap"
                .to_string(),
        );
    }
    Ok(json!({
        "output": format_moment(&result, date_only),
        "mode": mode,
        "start": describe(&start.local, start.date_only),
        "duration": d.iso(),
        "result": describe(&result, date_only),
        "timezone": tz.name(),
        "notes": notes,
    }))
}

fn difference(start: &Moment, end: &Moment, tz: Tz, args: &Args) -> ToolOutcome {
    let holidays = parse_holidays(args.opt_str("holidays"))?;
    let (a, b, sign): (_, _, i64) = if end.local >= start.local {
        (&start.local, &end.local, 1)
    } else {
        (&end.local, &start.local, -1)
    };
    let (months, rest) = calendar_breakdown(a.naive_local(), b.naive_local());
    let (years, months) = (months / 12, months % 12);
    let days = rest.num_days();
    let secs = rest.num_seconds() - days * 86_400;
    let nanos = i64::from(rest.subsec_nanos());
    let (hours, minutes, seconds) = (secs / 3600, secs % 3600 / 60, secs % 60);
    let elapsed = *b - *a;
    let total_seconds = elapsed.num_milliseconds() as f64 / 1000.0;
    let mut parts = vec![
        plural(years, "year"),
        plural(months, "month"),
        plural(days, "day"),
    ];
    if hours != 0 || minutes != 0 || seconds != 0 {
        parts.extend([
            plural(hours, "hour"),
            plural(minutes, "minute"),
            plural(seconds, "second"),
        ]);
    }
    let mut output = parts.join(", ");
    if sign < 0 {
        output.push_str(" (end is before start)");
    }
    let business = business_days(a.date_naive(), b.date_naive(), &holidays) * sign;
    let round = |x: f64| (x * 1e6).round() / 1e6;
    let date_only = start.date_only && end.date_only;
    let sign_f = sign as f64;
    Ok(json!({
        "output": output,
        "mode": "difference",
        "sign": sign,
        "years": years,
        "months": months,
        "days": days,
        "hours": hours,
        "minutes": minutes,
        "seconds": seconds,
        "iso8601": iso_duration(if sign < 0 { "-" } else { "" }, years, months, days, secs, nanos),
        "totalDays": round(total_seconds / 86_400.0) * sign_f,
        "totalWeeks": round(total_seconds / 604_800.0) * sign_f,
        "totalHours": round(total_seconds / 3600.0) * sign_f,
        "totalMinutes": round(total_seconds / 60.0) * sign_f,
        "totalSeconds": total_seconds * sign_f,
        "businessDays": business,
        "start": describe(&start.local, date_only),
        "end": describe(&end.local, date_only),
        "timezone": tz.name(),
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn add(start: &str, duration: &str, extra: serde_json::Value) -> serde_json::Value {
        let mut args = json!({"mode": "add", "start": start, "duration": duration});
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        run_ok("date-calculator", args)
    }

    #[test]
    fn month_end_clamping_and_leap_years() {
        let d = add("2024-01-31", "P1M", json!({}));
        assert_eq!(d["output"], "2024-02-29");
        assert_eq!(d["result"]["dayOfWeek"], "Thursday");
        assert_eq!(d["result"]["isoWeek"], "2024-W09");
        assert_eq!(d["result"]["dayOfYear"], 60);
        assert_eq!(d["notes"].as_array().unwrap().len(), 1);
        assert_eq!(add("2023-01-31", "P1M", json!({}))["output"], "2023-02-28");
        assert_eq!(add("2024-02-29", "P1Y", json!({}))["output"], "2025-02-28");
        assert_eq!(
            add("2024-01-01", "P1Y2M10DT2H30M", json!({}))["output"],
            "2025-03-11T02:30:00Z"
        );
        assert_eq!(
            add("2024-01-01", "3 weeks 2 days", json!({}))["output"],
            "2024-01-24"
        );
        let d = run_ok(
            "date-calculator",
            json!({"mode": "subtract", "start": "2024-03-31", "duration": "1 month"}),
        );
        assert_eq!(d["output"], "2024-02-29");
    }

    #[test]
    fn dst_aware_addition_in_new_york() {
        // 2024-03-10 02:00 EST → 03:00 EDT. A calendar day keeps the wall clock (23 h later);
        // 24 hours are elapsed time.
        let zone = json!({"timezone": "America/New_York"});
        let d = add("2024-03-09T12:00", "P1D", zone.clone());
        assert_eq!(d["output"], "2024-03-10T12:00:00-04:00");
        let d = add("2024-03-09T12:00", "PT24H", zone.clone());
        assert_eq!(d["output"], "2024-03-10T13:00:00-04:00");
        // Landing in the gap moves forward by the gap.
        let d = add("2024-03-09T02:30", "P1D", zone);
        assert_eq!(d["output"], "2024-03-10T03:30:00-04:00");
        assert_eq!(d["notes"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn difference_breakdown_totals_and_business_days() {
        let d = run_ok(
            "date-calculator",
            json!({"start": "2024-01-01", "end": "2024-12-25"}),
        );
        assert_eq!(d["months"], 11);
        assert_eq!(d["days"], 24);
        assert_eq!(d["totalDays"], 359.0);
        assert_eq!(d["iso8601"], "P11M24D");
        // 2024-01-01 is a Monday: 51 full weeks (255) + Mon 23 and Tue 24 Dec.
        assert_eq!(d["businessDays"], 257);
        let d = run_ok(
            "date-calculator",
            json!({"start": "2024-01-01", "end": "2024-12-25", "holidays": "2024-01-01, 2024-07-04, 2024-07-06"}),
        );
        assert_eq!(d["businessDays"], 255);
        let d = run_ok(
            "date-calculator",
            json!({"start": "2000-02-29T10:00:00Z", "end": "2024-02-28T12:30:15Z"}),
        );
        assert_eq!(d["years"], 23);
        assert_eq!(d["months"], 11);
        assert_eq!(d["days"], 30);
        assert_eq!(d["hours"], 2);
        assert_eq!(d["minutes"], 30);
        assert_eq!(d["seconds"], 15);
        let d = run_ok(
            "date-calculator",
            json!({"start": "2024-03-10", "end": "2024-03-09"}),
        );
        assert_eq!(d["sign"], -1);
        assert_eq!(d["totalDays"], -1.0);
        assert_eq!(d["iso8601"], "-P1D");
    }

    #[test]
    fn difference_across_dst_in_a_zone() {
        // A calendar day across spring-forward is 23 elapsed hours.
        let d = run_ok(
            "date-calculator",
            json!({"start": "2024-03-10", "end": "2024-03-11", "timezone": "America/New_York"}),
        );
        assert_eq!(d["days"], 1);
        assert_eq!(d["totalHours"], 23.0);
    }

    #[test]
    fn invalid_dates_and_durations() {
        let (code, msg) = run_err(
            "date-calculator",
            json!({"start": "2023-02-29", "end": "2023-03-01"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("2023 is not a leap year"), "{msg}");
        let (_, msg) = run_err(
            "date-calculator",
            json!({"start": "2024-13-01", "end": "2024-03-01"}),
        );
        assert!(msg.contains("month 13"), "{msg}");
        let (_, msg) = run_err(
            "date-calculator",
            json!({"mode": "add", "start": "2024-01-01", "duration": "3 fortnights"}),
        );
        assert!(msg.contains("unknown unit 'fortnights'"), "{msg}");
        let (_, msg) = run_err(
            "date-calculator",
            json!({"mode": "add", "start": "2024-01-01", "duration": "P1H"}),
        );
        assert!(msg.contains("not ISO 8601"), "{msg}");
        let (_, msg) = run_err("date-calculator", json!({"start": "2024-01-01"}));
        assert!(msg.contains("needs an end date"), "{msg}");
    }
}
