//! Time conversions: Unix timestamps ⇄ ISO 8601 / RFC 3339 / RFC 2822, in any IANA zone.
//! Also owns the time-zone and date-time parsing the cron tool shares.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use chrono::format::{Item, StrftimeItems};
use chrono::{
    DateTime, Datelike, LocalResult, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Utc,
};
use chrono_tz::{OffsetComponents, OffsetName, Tz};
use serde_json::{Value, json};
use std::fmt::Write;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("timestamp-converter", timestamp_converter)];

const ACCEPTED: &str = "accepted: a Unix time in seconds, milliseconds, microseconds or nanoseconds \
(e.g. 1700000000), an ISO 8601 / RFC 3339 date-time (2023-11-14T22:13:20Z, 2023-11-14 22:13, \
2023-11-14), an RFC 2822 date (Tue, 14 Nov 2023 22:13:20 +0000) or \"now\"";

fn timestamp_converter(args: &Args) -> ToolOutcome {
    let tz = timezone(args.str("timezone")?)?;
    let input = args.str("input")?.trim();
    let (instant, detected) = parse_input(input, args.str("unit")?, tz)?;
    let local = instant.with_timezone(&tz);
    let offset = local.offset();
    let date = local.date_naive();
    let iso_week = local.iso_week();
    let rfc2822 = if (0..=9999).contains(&local.year()) {
        Value::String(local.to_rfc2822())
    } else {
        Value::Null
    };
    let local_text = local.to_rfc3339_opts(SecondsFormat::AutoSi, false);
    let formatted = match args.opt_str("format") {
        Some(f) => Some(strftime(&local, f)?),
        None => None,
    };
    let mut data = json!({
        "output": formatted.clone().unwrap_or_else(|| local_text.clone()),
        "unixSeconds": instant.timestamp(),
        "unixMilliseconds": instant.timestamp_millis(),
        "iso8601": instant.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        "rfc3339": instant.to_rfc3339_opts(SecondsFormat::AutoSi, false),
        "local": local_text,
        "rfc2822": rfc2822,
        "timezone": tz.name(),
        "utcOffset": local.format("%:z").to_string(),
        "abbreviation": offset.abbreviation(),
        "isDst": !offset.dst_offset().is_zero(),
        "dayOfWeek": local.format("%A").to_string(),
        "dayOfYear": local.ordinal(),
        "isoWeek": format!("{}-W{:02}", iso_week.year(), iso_week.week()),
        "isLeapYear": date.leap_year(),
        "inputFormat": detected,
        "excelSerial": to_excel_serial(&local),
        "dotnetTicks": instant.timestamp_nanos_opt().map(|ns| i128::from(ns) / 100 + DOTNET_UNIX_EPOCH_TICKS).and_then(|t| i64::try_from(t).ok()),
    });
    if let Some(f) = formatted {
        data["formatted"] = Value::String(f);
    }
    Ok(data)
}

/// An IANA zone name, matched case-insensitively, with a did-you-mean on a miss.
pub(super) fn timezone(name: &str) -> Result<Tz, ToolError> {
    let name = name.trim();
    if let Ok(tz) = name.parse::<Tz>() {
        return Ok(tz);
    }
    if let Some(tz) = chrono_tz::TZ_VARIANTS
        .iter()
        .find(|tz| tz.name().eq_ignore_ascii_case(name))
    {
        return Ok(*tz);
    }
    let hint = crate::suggest::did_you_mean(name, chrono_tz::TZ_VARIANTS.iter().map(|t| t.name()))
        .map(|s| format!("; did you mean '{s}'?"))
        .unwrap_or_default();
    Err(ToolError::invalid(format!(
        "unknown time zone '{}'{hint} (use an IANA name such as UTC, Europe/Paris or America/New_York)",
        crate::text::preview(name, 60)
    )))
}

fn parse_input(
    input: &str,
    unit: &str,
    tz: Tz,
) -> Result<(DateTime<Utc>, &'static str), ToolError> {
    if input.eq_ignore_ascii_case("now") {
        return Ok((Utc::now(), "now"));
    }
    match unit {
        "objectid" => return object_id(input),
        _ if unit == "auto" && is_object_id(input) => return object_id(input),
        "excel" => return excel_serial(input, tz),
        "dotnet-ticks" => return dotnet_ticks(input),
        _ => {}
    }
    if looks_numeric(input) {
        return unix(input, unit);
    }
    if unit != "auto" {
        return Err(ToolError::invalid(format!(
            "unit '{unit}' needs a numeric Unix time, but input '{}' is not a number",
            crate::text::preview(input, 60)
        )));
    }
    parse_datetime(input, tz)?.ok_or_else(|| {
        ToolError::invalid(format!(
            "cannot read '{}' as a date or time; {ACCEPTED}",
            crate::text::preview(input, 60)
        ))
    })
}

fn is_object_id(s: &str) -> bool {
    s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A MongoDB ObjectId: its first four bytes are the creation time in Unix seconds.
fn object_id(input: &str) -> Result<(DateTime<Utc>, &'static str), ToolError> {
    let hex = input
        .trim_start_matches("ObjectId(\"")
        .trim_end_matches("\")");
    if !is_object_id(hex) {
        return Err(ToolError::invalid(format!(
            "'{}' is not a MongoDB ObjectId: expected 24 hexadecimal digits such as 65920080a1b2c3d4e5f60718",
            crate::text::preview(input, 40)
        )));
    }
    let seconds = u32::from_str_radix(&hex[..8], 16).unwrap_or(0);
    Ok((
        DateTime::from_timestamp(i64::from(seconds), 0).unwrap_or_default(),
        "mongodb-objectid",
    ))
}

/// Days between 0001-01-01 and 1970-01-01, in .NET ticks (100 ns).
const DOTNET_UNIX_EPOCH_TICKS: i128 = 621_355_968_000_000_000;

/// .NET `DateTime.Ticks`: 100-nanosecond intervals since 0001-01-01T00:00:00, read as UTC.
fn dotnet_ticks(input: &str) -> Result<(DateTime<Utc>, &'static str), ToolError> {
    let ticks: i128 = input
        .parse()
        .ok()
        .filter(|t| (0..=3_155_378_975_999_999_999).contains(t))
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "'{}' is not .NET ticks: expected a whole number from 0 to 3155378975999999999 (DateTime.MaxValue)",
                crate::text::preview(input, 40)
            ))
        })?;
    let ns = (ticks - DOTNET_UNIX_EPOCH_TICKS) * 100;
    let secs = ns.div_euclid(1_000_000_000) as i64;
    let sub = ns.rem_euclid(1_000_000_000) as u32;
    DateTime::from_timestamp(secs, sub)
        .map(|dt| (dt, "dotnet-ticks"))
        .ok_or_else(|| ToolError::invalid(format!("{input} ticks is outside the supported range")))
}

/// An Excel serial date (1900 date system) as wall-clock time in `tz`. Excel counts
/// 1900-02-29, which never existed (Lotus 1-2-3's leap-year bug), so serials below 60 are one
/// day later than a plain count from 1899-12-30, and 60 itself has no real date.
fn excel_serial(input: &str, tz: Tz) -> Result<(DateTime<Utc>, &'static str), ToolError> {
    let serial: f64 = input
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && (0.0..=2_958_466.0).contains(v))
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "'{}' is not an Excel serial date: expected days since 1899-12-30 from 0 to 2958465.99999 (9999-12-31), e.g. 45292.5",
                crate::text::preview(input, 40)
            ))
        })?;
    if (60.0..61.0).contains(&serial) {
        return Err(ToolError::invalid(
            "Excel serial 60 is 1900-02-29, a day that exists only through Excel's 1900 leap-year bug",
        ));
    }
    let base = if serial < 60.0 {
        NaiveDate::from_ymd_opt(1899, 12, 31)
    } else {
        NaiveDate::from_ymd_opt(1899, 12, 30)
    }
    .and_then(|d| d.and_hms_opt(0, 0, 0))
    .unwrap_or_default();
    // Rounded to the millisecond: a serial's fraction is binary, so 0.5 s errors are common.
    let ms = (serial * 86_400_000.0).round() as i64;
    let naive = base + chrono::Duration::milliseconds(ms);
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(dt) | LocalResult::Ambiguous(dt, _) => {
            Ok((dt.with_timezone(&Utc), "excel-serial"))
        }
        LocalResult::None => Err(ToolError::invalid(format!(
            "Excel serial {input} is {naive}, a wall-clock time that does not exist in {} (skipped by a DST change)",
            tz.name()
        ))),
    }
}

/// The wall-clock time `local` as an Excel serial date (days since 1899-12-30), to the
/// millisecond; `None` before 1900-03-01, where Excel's leap-year bug shifts serials.
fn to_excel_serial(local: &DateTime<Tz>) -> Option<f64> {
    let base = NaiveDate::from_ymd_opt(1899, 12, 30)?.and_hms_opt(0, 0, 0)?;
    let ms = (local.naive_local() - base).num_milliseconds();
    let serial = ms as f64 / 86_400_000.0;
    (serial >= 61.0).then(|| (serial * 1e8).round() / 1e8)
}

fn looks_numeric(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// A Unix time in the given (or magnitude-detected) unit, exact to the nanosecond.
fn unix(input: &str, unit: &str) -> Result<(DateTime<Utc>, &'static str), ToolError> {
    let negative = input.starts_with('-');
    let digits = input.trim_start_matches(['-', '+']);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int_value: i128 = int
        .parse()
        .ok()
        .filter(|_| int.len() <= 30)
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "Unix time '{}' is too large",
                crate::text::preview(input, 40)
            ))
        })?;
    let unit = match unit {
        "auto" => match int_value {
            v if v < 100_000_000_000 => "seconds",
            v if v < 100_000_000_000_000 => "milliseconds",
            v if v < 100_000_000_000_000_000 => "microseconds",
            _ => "nanoseconds",
        },
        u => u,
    };
    let (per_unit, label): (i128, &'static str) = match unit {
        "milliseconds" => (1_000_000, "unix-milliseconds"),
        "microseconds" => (1_000, "unix-microseconds"),
        "nanoseconds" => (1, "unix-nanoseconds"),
        _ => (1_000_000_000, "unix-seconds"),
    };
    // Fractions finer than a nanosecond are dropped.
    let frac = &frac[..frac.len().min(9)];
    let frac_ns = if frac.is_empty() {
        0
    } else {
        let value: i128 = frac.parse().unwrap_or(0);
        value * per_unit / 10i128.pow(frac.len() as u32)
    };
    let mut total = int_value * per_unit + frac_ns;
    if negative {
        total = -total;
    }
    let secs = total.div_euclid(1_000_000_000);
    let nanos = total.rem_euclid(1_000_000_000) as u32;
    i64::try_from(secs)
        .ok()
        .and_then(|s| DateTime::from_timestamp(s, nanos))
        .map(|dt| (dt, label))
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "Unix time {input} ({unit}) is outside the representable range (about ±262,000 years)"
            ))
        })
}

/// An ISO 8601 date-time with its `Z` written as `+00:00` and a decimal comma as a point,
/// which chrono's offset and fraction parsers need; other text is returned unchanged.
fn iso_offset_form(input: &str) -> std::borrow::Cow<'_, str> {
    let b = input.as_bytes();
    let date_len = if b.get(4) == Some(&b'-') { 10 } else { 8 };
    let looks_iso =
        b.len() > date_len && b[..4].iter().all(u8::is_ascii_digit) && b[date_len] == b'T';
    if !looks_iso {
        return input.into();
    }
    let mut s = input.replace(',', ".");
    if s.ends_with(['Z', 'z']) {
        s.pop();
        s.push_str("+00:00");
    }
    s.into()
}

/// Parses RFC 3339, other ISO 8601 shapes and RFC 2822; a date-time without an offset is read
/// as wall-clock time in `tz`. `Ok(None)` means the text matches none of the forms.
pub(super) fn parse_datetime(
    input: &str,
    tz: Tz,
) -> Result<Option<(DateTime<Utc>, &'static str)>, ToolError> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(input) {
        return Ok(Some((dt.with_timezone(&Utc), "rfc3339")));
    }
    // ISO 8601 basic (20240101T000000Z) and extended forms, with Z or an offset of
    // ±hh:mm, ±hhmm or ±hh, seconds optional, a fraction after '.' or ','.
    let iso = iso_offset_form(input);
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f%#z",
        "%Y-%m-%dT%H:%M%#z",
        "%Y%m%dT%H%M%S%.f%#z",
        "%Y%m%dT%H%M%#z",
    ] {
        if let Ok(dt) = DateTime::parse_from_str(&iso, f) {
            return Ok(Some((dt.with_timezone(&Utc), "iso8601")));
        }
    }
    if let Ok(dt) = DateTime::parse_from_rfc2822(input) {
        return Ok(Some((dt.with_timezone(&Utc), "rfc2822")));
    }
    let naive = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
        "%Y%m%dT%H%M%S",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(input, f).ok())
    .or_else(|| {
        NaiveDate::parse_from_str(input, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
    });
    let Some(naive) = naive else {
        return Ok(None);
    };
    // In a DST overlap the earlier instant wins, as most schedulers and libraries choose.
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(dt) | LocalResult::Ambiguous(dt, _) => {
            Ok(Some((dt.with_timezone(&Utc), "iso8601-local")))
        }
        LocalResult::None => Err(ToolError::invalid(format!(
            "{naive} does not exist in {} (it falls in a daylight-saving gap)",
            tz.name()
        ))),
    }
}

pub(super) fn strftime(dt: &DateTime<Tz>, format: &str) -> Result<String, ToolError> {
    let items: Vec<Item> = StrftimeItems::new(format).collect();
    if items.iter().any(|i| matches!(i, Item::Error)) {
        return Err(ToolError::invalid(format!(
            "format '{}' has an unknown or incomplete % specifier (strftime: %Y-%m-%d %H:%M:%S, %A, %j, …)",
            crate::text::preview(format, 60)
        )));
    }
    let mut out = String::new();
    write!(out, "{}", dt.format_with_items(items.into_iter())).map_err(|_| {
        ToolError::invalid(format!(
            "format '{}' cannot be applied to this date",
            crate::text::preview(format, 60)
        ))
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    #[test]
    fn epoch_and_well_known_instants() {
        let zero = run_ok("timestamp-converter", json!({"input": "0"}));
        assert_eq!(zero["iso8601"], "1970-01-01T00:00:00Z");
        assert_eq!(zero["dayOfWeek"], "Thursday");
        assert_eq!(zero["rfc2822"], "Thu, 1 Jan 1970 00:00:00 +0000");
        let t = run_ok("timestamp-converter", json!({"input": "1700000000"}));
        assert_eq!(t["iso8601"], "2023-11-14T22:13:20Z");
        assert_eq!(t["inputFormat"], "unix-seconds");
        assert_eq!(t["unixMilliseconds"], 1_700_000_000_000i64);
        assert_eq!(t["dayOfWeek"], "Tuesday");
        assert_eq!(t["dayOfYear"], 318);
        assert_eq!(t["isoWeek"], "2023-W46");
        let ms = run_ok("timestamp-converter", json!({"input": "2000000000000"}));
        assert_eq!(ms["iso8601"], "2033-05-18T03:33:20Z");
        assert_eq!(ms["inputFormat"], "unix-milliseconds");
        let ns = run_ok(
            "timestamp-converter",
            json!({"input": "1700000000123456789"}),
        );
        assert_eq!(ns["iso8601"], "2023-11-14T22:13:20.123456789Z");
        let frac = run_ok("timestamp-converter", json!({"input": "-1.5"}));
        assert_eq!(frac["iso8601"], "1969-12-31T23:59:58.500Z");
        assert_eq!(frac["unixSeconds"], -2);
    }

    #[test]
    fn strings_round_trip_to_unix() {
        for input in [
            "2023-11-14T22:13:20Z",
            "2023-11-14T23:13:20+01:00",
            "Tue, 14 Nov 2023 22:13:20 +0000",
            "2023-11-14 22:13:20",
        ] {
            let d = run_ok("timestamp-converter", json!({"input": input}));
            assert_eq!(d["unixSeconds"], 1_700_000_000, "{input}");
        }
        let d = run_ok(
            "timestamp-converter",
            json!({"input": "2023-11-14T17:13:20", "timezone": "america/new_york"}),
        );
        assert_eq!(d["unixSeconds"], 1_700_000_000);
        assert_eq!(d["inputFormat"], "iso8601-local");
    }

    // US DST 2024: clocks jump 02:00 EST → 03:00 EDT on 10 March, fall back on 3 November.
    #[test]
    fn new_york_dst_transitions() {
        let ny = |input: &str| {
            run_ok(
                "timestamp-converter",
                json!({"input": input, "timezone": "America/New_York"}),
            )
        };
        let before = ny("2024-03-10T06:59:59Z");
        assert_eq!(before["local"], "2024-03-10T01:59:59-05:00");
        assert_eq!(before["abbreviation"], "EST");
        assert_eq!(before["isDst"], false);
        let after = ny("2024-03-10T07:00:00Z");
        assert_eq!(after["local"], "2024-03-10T03:00:00-04:00");
        assert_eq!(after["abbreviation"], "EDT");
        assert_eq!(after["isDst"], true);
        // 01:30 happens twice on 3 November; the first (EDT) is taken.
        assert_eq!(ny("2024-11-03 01:30")["iso8601"], "2024-11-03T05:30:00Z");
        let (code, msg) = run_err(
            "timestamp-converter",
            json!({"input": "2024-03-10 02:30", "timezone": "America/New_York"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("daylight-saving gap"), "{msg}");
    }

    #[test]
    fn leap_years_and_custom_format() {
        let leap = run_ok("timestamp-converter", json!({"input": "2024-12-31"}));
        assert_eq!(leap["dayOfYear"], 366);
        assert_eq!(leap["isLeapYear"], true);
        assert_eq!(leap["isoWeek"], "2025-W01");
        let common = run_ok("timestamp-converter", json!({"input": "2023-12-31"}));
        assert_eq!(common["dayOfYear"], 365);
        let f = run_ok(
            "timestamp-converter",
            json!({"input": "1700000000", "timezone": "Asia/Tokyo", "format": "%Y/%m/%d %H:%M %Z"}),
        );
        assert_eq!(f["output"], "2023/11/15 07:13 JST");
    }

    #[test]
    fn bad_input_zone_and_format() {
        let (code, msg) = run_err("timestamp-converter", json!({"input": "yesterday-ish"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("RFC 2822"), "{msg}");
        let (code, msg) = run_err(
            "timestamp-converter",
            json!({"input": "0", "timezone": "Europe/Pariss"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("did you mean 'Europe/Paris'"), "{msg}");
        let (code, _) = run_err("timestamp-converter", json!({"input": "0", "format": "%Q"}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn iso_8601_basic_and_extended_forms_with_z_and_offsets() {
        let unix = |input: &str| {
            run_ok("timestamp-converter", json!({"input": input}))["unixSeconds"]
                .as_i64()
                .unwrap_or(i64::MIN)
        };
        // 2024-01-01T00:00:00Z is 1704067200; +01:00 is an hour earlier in UTC.
        for (input, expected) in [
            ("20240101T000000Z", 1704067200),
            ("20240101T000000z", 1704067200),
            ("20240101T0000Z", 1704067200),
            ("20240101T000000.250Z", 1704067200),
            ("20240101T000000,250Z", 1704067200),
            ("20240101T000000+0000", 1704067200),
            ("20240101T000000+0100", 1704063600),
            ("20240101T000000-0130", 1704072600),
            ("20240101T000000+01", 1704063600),
            ("20240101T0000+0100", 1704063600),
            ("2024-01-01T00:00:00Z", 1704067200),
            ("2024-01-01T00:00Z", 1704067200),
            ("2024-01-01T00:00:00.5Z", 1704067200),
            ("2024-01-01T00:00:00,5Z", 1704067200),
            ("2024-01-01T00:00:00+01:00", 1704063600),
            ("2024-01-01T00:00:00+0100", 1704063600),
            ("2024-01-01T00:00:00+01", 1704063600),
            ("2024-01-01T00:00+01:00", 1704063600),
            ("2024-01-01T00:00:00-05:30", 1704087000),
        ] {
            assert_eq!(unix(input), expected, "{input}");
        }
    }

    #[test]
    fn excel_serial_objectid_and_dotnet_ticks_match_python_and_sqlite() {
        let read = |input: &str, unit: &str| {
            run_ok("timestamp-converter", json!({"input": input, "unit": unit}))
        };
        // Worked examples: Excel shows 45292.5 as 2024-01-01 12:00; .NET's
        // new DateTime(2024, 1, 1).Ticks is 638396640000000000.
        let excel = read("45292.5", "excel");
        assert_eq!(excel["iso8601"], "2024-01-01T12:00:00Z");
        assert_eq!(excel["inputFormat"], "excel-serial");
        assert_eq!(excel["excelSerial"], 45292.5);
        let ticks = read("638396640000000000", "dotnet-ticks");
        assert_eq!(ticks["iso8601"], "2024-01-01T00:00:00Z");
        assert_eq!(ticks["dotnetTicks"], 638396640000000000i64);
        let oid = read("65920080a1b2c3d4e5f60718", "auto");
        assert_eq!(oid["inputFormat"], "mongodb-objectid");
        assert_eq!(oid["unixSeconds"], 0x65920080);
        // Excel's phantom 1900-02-29 and the day before it.
        assert_eq!(read("59", "excel")["iso8601"], "1900-02-28T00:00:00Z");
        assert_eq!(read("61", "excel")["iso8601"], "1900-03-01T00:00:00Z");
        let (code, msg) = run_err(
            "timestamp-converter",
            json!({"input": "60", "unit": "excel"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("leap-year bug"), "{msg}");
        let (code, _) = run_err(
            "timestamp-converter",
            json!({"input": "xyz", "unit": "objectid"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);

        for (serial, ticks, oid) in [
            ("45292.5", "638396640000000000", "65920080a1b2c3d4e5f60718"),
            ("36526.25", "630822816000000000", "000000000000000000000000"),
            (
                "2958465.75",
                "3155378975999999999",
                "ffffffff0000000000000000",
            ),
        ] {
            let program = format!(
                "from datetime import datetime, timedelta, timezone\n\
                 print((datetime(1899, 12, 30) + timedelta(days={serial})).isoformat(timespec='milliseconds'))\n\
                 print((datetime(1, 1, 1) + timedelta(microseconds={ticks} // 10)).isoformat(timespec='milliseconds'))\n\
                 print(int('{oid}'[:8], 16))"
            );
            let Some(py) = crate::tools::kit::testing::python(&program) else {
                return;
            };
            let mut lines = py.lines();
            let iso = |d: &serde_json::Value| {
                d["iso8601"]
                    .as_str()
                    .unwrap_or_default()
                    .trim_end_matches('Z')
                    .to_string()
            };
            // Both sides to the millisecond (Python's timespec truncates).
            let ms = |s: &str| {
                let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
                format!("{whole}.{frac:0<3.3}")
            };
            assert_eq!(
                ms(&iso(&read(serial, "excel"))),
                lines.next().unwrap_or_default()
            );
            assert_eq!(
                ms(&iso(&read(ticks, "dotnet-ticks"))),
                lines.next().unwrap_or_default()
            );
            assert_eq!(
                read(oid, "objectid")["unixSeconds"].to_string(),
                lines.next().unwrap_or_default()
            );
        }
        // SQLite's date arithmetic agrees on the serial of a date.
        match std::process::Command::new("sqlite3")
            .args([
                ":memory:",
                "select julianday('2024-01-01 12:00') - julianday('1899-12-30');",
            ])
            .output()
        {
            Ok(out) if out.status.success() => {
                let days = String::from_utf8_lossy(&out.stdout).trim().to_string();
                assert_eq!(days, "45292.5");
                let utc = run_ok(
                    "timestamp-converter",
                    json!({"input": "2024-01-01T12:00:00Z"}),
                );
                assert_eq!(utc["excelSerial"].to_string(), days);
            }
            Ok(out) => panic!("sqlite3 failed: {}", String::from_utf8_lossy(&out.stderr)),
            Err(e) => crate::tools::kit::testing::skip(format!("sqlite3 cannot run ({e})")),
        }
    }
}
