//! The plain-English description of a cron schedule ("At 09:00, Monday through Friday").

use super::{Field, Item, Kind};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn nth_word(n: u32) -> &'static str {
    ["first", "second", "third", "fourth", "fifth"]
        .get(n as usize - 1)
        .copied()
        .unwrap_or("last")
}

/// "a", "a and b", "a, b and c".
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn name_of(kind: Kind, v: u32) -> String {
    match kind {
        Kind::Month => MONTHS[(v as usize + 11) % 12].to_string(),
        Kind::Dow => WEEKDAYS[v as usize % 7].to_string(),
        _ => v.to_string(),
    }
}

fn plural(unit: &str, n: u32) -> String {
    match (n, unit.strip_prefix("day ")) {
        (1, _) => unit.to_string(),
        // "day of the week" pluralises its head noun.
        (_, Some(tail)) => format!("{n} days {tail}"),
        _ => format!("{n} {unit}s"),
    }
}

/// One list element in words, for lists that mix values, ranges and steps.
fn item_words(kind: Kind, item: &Item, unit: &str) -> String {
    let n = |v: u32| name_of(kind, v);
    match *item {
        Item::Value(v) => n(v),
        Item::Range(a, b) => format!("{} through {}", n(a), n(b)),
        Item::Step {
            star: true, step, ..
        } => format!("every {}", plural(unit, step)),
        Item::Step {
            start, end, step, ..
        } => format!(
            "every {} from {} through {}",
            plural(unit, step),
            n(start),
            n(end.min(kind.range().1))
        ),
        _ => String::new(),
    }
}

fn list_words(field: &Field, unit: &str) -> String {
    let items: Vec<String> = field
        .items
        .iter()
        .map(|i| item_words(field.kind, i, unit))
        .collect();
    join_and(&items)
}

/// Phrase for a second or minute field: "every minute", "every 15 minutes", "at minute 5", …
fn sub_hour_phrase(field: &Field) -> String {
    let unit = field.kind.name();
    if field.is_any() {
        return format!("every {unit}");
    }
    if let Some(values) = field.values() {
        let values: Vec<String> = values.iter().map(u32::to_string).collect();
        return if values.len() == 1 {
            format!("at {unit} {}", values[0])
        } else {
            format!("at {unit}s {}", join_and(&values))
        };
    }
    match field.items.as_slice() {
        [Item::Range(a, b)] => format!("every {unit} from {a} through {b}"),
        [
            Item::Step {
                star: true, step, ..
            },
        ] => format!("every {}", plural(unit, *step)),
        [item @ Item::Step { .. }] => item_words(field.kind, item, unit),
        _ => format!("at {unit}s {}", list_words(field, unit)),
    }
}

fn hour_phrase(field: &Field) -> String {
    if let Some(values) = field.values() {
        let values: Vec<String> = values.iter().map(u32::to_string).collect();
        return if values.len() == 1 {
            format!("hour {}", values[0])
        } else {
            format!("hours {}", join_and(&values))
        };
    }
    match field.items.as_slice() {
        [Item::Range(a, b)] => format!("every hour from {a} through {b}"),
        [
            Item::Step {
                star: true, step, ..
            },
        ] => format!("every {} hour", ordinal(*step)),
        [
            Item::Step {
                start, end, step, ..
            },
        ] => format!("every {} hour from {start} through {end}", ordinal(*step)),
        _ => format!("hours {}", list_words(field, "hour")),
    }
}

fn clock(h: u32, m: u32, s: u32) -> String {
    if s == 0 {
        format!("{h:02}:{m:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

fn time_phrase(second: Option<&Field>, minute: &Field, hour: &Field) -> String {
    let sec_value = match second {
        None => Some(0),
        Some(f) => f.single(),
    };
    if let (Some(s), Some(m), Some(hours)) = (sec_value, minute.single(), hour.values()) {
        let times: Vec<String> = hours.iter().map(|h| clock(*h, m, s)).collect();
        return format!("At {}", join_and(&times));
    }
    if sec_value == Some(0) && minute.single() == Some(0) && hour.is_any() {
        return "Every hour".into();
    }
    let mut parts = Vec::new();
    if let Some(sf) = second.filter(|_| sec_value != Some(0)) {
        parts.push(sub_hour_phrase(sf));
    }
    // A seconds phrase already implies "every minute".
    if !minute.is_any() || parts.is_empty() {
        parts.push(sub_hour_phrase(minute));
    }
    let mut text = parts.join(", ");
    if !hour.is_any() {
        text = format!("{text} past {}", hour_phrase(hour));
    }
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

fn dom_phrase(field: &Field) -> String {
    if let Some(values) = field.values() {
        let values: Vec<String> = values.iter().map(u32::to_string).collect();
        return if values.len() == 1 {
            format!("on day {} of the month", values[0])
        } else {
            format!("on days {} of the month", join_and(&values))
        };
    }
    match field.items.as_slice() {
        [Item::Last] => "on the last day of the month".into(),
        [Item::LastWeekday] => "on the last weekday of the month".into(),
        [Item::NearestWeekday(d)] => format!("on the weekday nearest day {d} of the month"),
        [Item::Range(a, b)] => format!("between day {a} and {b} of the month"),
        [
            Item::Step {
                star: true, step, ..
            },
        ] => format!("every {}", plural("day", *step)),
        [
            Item::Step {
                start, end, step, ..
            },
        ] => format!(
            "every {}, between day {start} and {end} of the month",
            plural("day", *step)
        ),
        items => {
            let words: Vec<String> = items
                .iter()
                .map(|i| match *i {
                    Item::Last => "the last day".into(),
                    Item::LastWeekday => "the last weekday".into(),
                    Item::NearestWeekday(d) => format!("the weekday nearest day {d}"),
                    other => item_words(Kind::Dom, &other, "day"),
                })
                .collect();
            format!("on days {} of the month", join_and(&words))
        }
    }
}

fn dow_phrase(field: &Field, also_dom: bool) -> String {
    let only = if also_dom { "or on" } else { "only on" };
    let lead = if also_dom { "or " } else { "" };
    if let Some(values) = field.values() {
        let names: Vec<String> = values.iter().map(|v| name_of(Kind::Dow, *v)).collect();
        return format!("{only} {}", join_and(&names));
    }
    match field.items.as_slice() {
        [Item::Range(a, b)] => format!(
            "{lead}{} through {}",
            name_of(Kind::Dow, *a),
            name_of(Kind::Dow, *b)
        ),
        [Item::LastDow(d)] => format!("{lead}on the last {} of the month", name_of(Kind::Dow, *d)),
        [
            Item::Step {
                star: true, step, ..
            },
        ] => format!("{lead}on every {} day of the week", ordinal(*step)),
        [Item::NthDow(d, n)] => format!(
            "{lead}on the {} {} of the month",
            nth_word(*n),
            name_of(Kind::Dow, *d)
        ),
        items => {
            let words: Vec<String> = items
                .iter()
                .map(|i| match *i {
                    Item::LastDow(d) => format!("the last {}", name_of(Kind::Dow, d)),
                    Item::NthDow(d, n) => {
                        format!("the {} {}", nth_word(n), name_of(Kind::Dow, d))
                    }
                    other => item_words(Kind::Dow, &other, "day of the week"),
                })
                .collect();
            format!("{only} {}", join_and(&words))
        }
    }
}

fn month_phrase(field: &Field) -> String {
    if let Some(values) = field.values() {
        let names: Vec<String> = values.iter().map(|v| name_of(Kind::Month, *v)).collect();
        return format!("only in {}", join_and(&names));
    }
    match field.items.as_slice() {
        [Item::Range(a, b)] => format!(
            "{} through {}",
            name_of(Kind::Month, *a),
            name_of(Kind::Month, *b)
        ),
        [
            Item::Step {
                star: true, step, ..
            },
        ] => format!("every {}", plural("month", *step)),
        _ => format!("only in {}", list_words(field, "month")),
    }
}

pub(super) fn describe(fields: &[Field]) -> String {
    let (second, rest) = if fields.len() == 6 {
        (Some(&fields[0]), &fields[1..])
    } else {
        (None, fields)
    };
    let [minute, hour, dom, month, dow] = rest else {
        return String::new();
    };
    let mut clauses = vec![time_phrase(second, minute, hour)];
    if !dom.is_any() {
        clauses.push(dom_phrase(dom));
    }
    if !dow.is_any() {
        clauses.push(dow_phrase(dow, !dom.is_any()));
    }
    if !month.is_any() {
        clauses.push(month_phrase(month));
    }
    clauses.join(", ")
}
