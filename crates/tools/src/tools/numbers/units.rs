//! Physical and data units: conversion with exact factors (NIST SP 811 Appendix B, SI, IEC 80000-13).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[Tool::new("unit-converter", unit_converter)];

/// How a unit relates to its category's base unit.
#[derive(Clone, Copy)]
enum Scale {
    /// base = value × factor.
    Linear(f64),
    /// base (kelvin) = (value + offset) × factor.
    Affine { offset: f64, factor: f64 },
}

struct Unit {
    symbol: &'static str,
    name: &'static str,
    category: &'static str,
    scale: Scale,
    /// Other spellings, matched like the symbol (exactly first, then ignoring case).
    aliases: &'static [&'static str],
}

const fn u(
    category: &'static str,
    symbol: &'static str,
    name: &'static str,
    factor: f64,
    aliases: &'static [&'static str],
) -> Unit {
    Unit {
        symbol,
        name,
        category,
        scale: Scale::Linear(factor),
        aliases,
    }
}

const CATEGORIES: [(&str, &str); 11] = [
    ("length", "m"),
    ("mass", "kg"),
    ("temperature", "K"),
    ("area", "m²"),
    ("volume", "m³"),
    ("speed", "m/s"),
    ("time", "s"),
    ("data", "B"),
    ("pressure", "Pa"),
    ("energy", "J"),
    ("power", "W"),
];

// Factors are exact by definition where the SI or NIST SP 811 (2008) Appendix B.8 marks them so:
// the international foot (0.3048 m) and pound (0.45359237 kg), the US gallon (231 in³), etc.
const INCH: f64 = 0.0254;
const FOOT: f64 = 0.3048;
const POUND: f64 = 0.45359237;
const GALLON: f64 = 231.0 * INCH * INCH * INCH;
const STANDARD_GRAVITY: f64 = 9.80665;
const CALORIE: f64 = 4.184;
const BTU: f64 = 1055.05585262;

#[rustfmt::skip]
const UNITS: &[Unit] = &[
    // Length (m)
    u("length", "m", "metre", 1.0, &["meter", "meters", "metres", "metre"]),
    u("length", "km", "kilometre", 1e3, &["kilometer", "kilometers", "kilometres"]),
    u("length", "cm", "centimetre", 1e-2, &["centimeter", "centimeters", "centimetres"]),
    u("length", "mm", "millimetre", 1e-3, &["millimeter", "millimeters", "millimetres"]),
    u("length", "µm", "micrometre", 1e-6, &["um", "μm", "micron", "microns", "micrometer", "micrometers"]),
    u("length", "nm", "nanometre", 1e-9, &["nanometer", "nanometers", "nanometres"]),
    u("length", "in", "inch", INCH, &["inch", "inches", "\""]),
    u("length", "ft", "foot", FOOT, &["foot", "feet", "'"]),
    u("length", "yd", "yard", 3.0 * FOOT, &["yard", "yards"]),
    u("length", "mi", "mile", 5280.0 * FOOT, &["mile", "miles"]),
    u("length", "nmi", "nautical mile", 1852.0, &["nautical mile", "nautical miles", "NM"]),
    u("length", "mil", "mil (thou)", INCH / 1000.0, &["thou", "mils"]),
    u("length", "au", "astronomical unit", 149_597_870_700.0, &["AU", "astronomical unit"]),
    u("length", "ly", "light-year", 9_460_730_472_580_800.0, &["light year", "light-year", "light years", "lightyear"]),
    // Mass (kg)
    u("mass", "kg", "kilogram", 1.0, &["kilogram", "kilograms", "kilo", "kilos"]),
    u("mass", "g", "gram", 1e-3, &["gram", "grams", "gramme"]),
    u("mass", "mg", "milligram", 1e-6, &["milligram", "milligrams"]),
    u("mass", "µg", "microgram", 1e-9, &["ug", "μg", "mcg", "microgram", "micrograms"]),
    u("mass", "t", "tonne", 1e3, &["tonne", "tonnes", "metric ton", "metric tons"]),
    u("mass", "lb", "pound", POUND, &["lbs", "pound", "pounds"]),
    u("mass", "oz", "ounce", POUND / 16.0, &["ounce", "ounces"]),
    u("mass", "st", "stone", 14.0 * POUND, &["stone", "stones"]),
    u("mass", "gr", "grain", POUND / 7000.0, &["grain", "grains"]),
    u("mass", "ct", "carat", 2e-4, &["carat", "carats"]),
    u("mass", "ton", "short ton (US)", 2000.0 * POUND, &["short ton", "short tons", "us ton", "tons"]),
    u("mass", "long ton", "long ton (UK)", 2240.0 * POUND, &["long tons", "imperial ton", "uk ton"]),
    // Area (m²)
    u("area", "m²", "square metre", 1.0, &["m2", "m^2", "sq m", "square meter", "square meters", "square metre", "square metres"]),
    u("area", "km²", "square kilometre", 1e6, &["km2", "km^2", "sq km", "square kilometer", "square kilometers"]),
    u("area", "cm²", "square centimetre", 1e-4, &["cm2", "cm^2", "square centimeter", "square centimeters"]),
    u("area", "mm²", "square millimetre", 1e-6, &["mm2", "mm^2", "square millimeter", "square millimeters"]),
    u("area", "ha", "hectare", 1e4, &["hectare", "hectares"]),
    u("area", "a", "are", 100.0, &["are", "ares"]),
    u("area", "in²", "square inch", INCH * INCH, &["in2", "in^2", "sq in", "square inch", "square inches"]),
    u("area", "ft²", "square foot", FOOT * FOOT, &["ft2", "ft^2", "sq ft", "square foot", "square feet"]),
    u("area", "yd²", "square yard", 9.0 * FOOT * FOOT, &["yd2", "yd^2", "sq yd", "square yard", "square yards"]),
    u("area", "ac", "acre", 43_560.0 * FOOT * FOOT, &["acre", "acres"]),
    u("area", "mi²", "square mile", 5280.0 * 5280.0 * FOOT * FOOT, &["mi2", "mi^2", "sq mi", "square mile", "square miles"]),
    // Volume (m³)
    u("volume", "m³", "cubic metre", 1.0, &["m3", "m^3", "cubic meter", "cubic meters", "cubic metre", "cubic metres"]),
    u("volume", "L", "litre", 1e-3, &["l", "liter", "liters", "litre", "litres"]),
    u("volume", "dL", "decilitre", 1e-4, &["dl", "deciliter", "deciliters"]),
    u("volume", "cL", "centilitre", 1e-5, &["cl", "centiliter", "centiliters"]),
    u("volume", "mL", "millilitre", 1e-6, &["ml", "milliliter", "milliliters", "millilitre", "millilitres"]),
    u("volume", "cm³", "cubic centimetre", 1e-6, &["cm3", "cm^3", "cc", "cubic centimeter", "cubic centimeters"]),
    u("volume", "in³", "cubic inch", INCH * INCH * INCH, &["in3", "in^3", "cubic inch", "cubic inches"]),
    u("volume", "ft³", "cubic foot", FOOT * FOOT * FOOT, &["ft3", "ft^3", "cubic foot", "cubic feet"]),
    u("volume", "gal", "US gallon", GALLON, &["gallon", "gallons", "us gal", "us gallon", "us gallons"]),
    u("volume", "qt", "US quart", GALLON / 4.0, &["quart", "quarts", "us quart"]),
    u("volume", "pt", "US pint", GALLON / 8.0, &["pint", "pints", "us pint"]),
    u("volume", "cup", "US cup", GALLON / 16.0, &["cups", "us cup"]),
    u("volume", "fl oz", "US fluid ounce", GALLON / 128.0, &["floz", "fl. oz.", "fluid ounce", "fluid ounces", "us fl oz"]),
    u("volume", "tbsp", "US tablespoon", GALLON / 256.0, &["tablespoon", "tablespoons"]),
    u("volume", "tsp", "US teaspoon", GALLON / 768.0, &["teaspoon", "teaspoons"]),
    u("volume", "imp gal", "imperial gallon", 4.546_09e-3, &["imperial gallon", "imperial gallons", "uk gallon", "uk gal"]),
    u("volume", "imp pt", "imperial pint", 4.546_09e-3 / 8.0, &["imperial pint", "imperial pints", "uk pint"]),
    u("volume", "imp fl oz", "imperial fluid ounce", 4.546_09e-3 / 160.0, &["imperial fluid ounce", "uk fl oz"]),
    // Speed (m/s)
    u("speed", "m/s", "metre per second", 1.0, &["mps", "meters per second", "metres per second"]),
    u("speed", "km/h", "kilometre per hour", 1.0 / 3.6, &["kmh", "kph", "kmph", "km/hr", "kilometers per hour", "kilometres per hour"]),
    u("speed", "mph", "mile per hour", 5280.0 * FOOT / 3600.0, &["mi/h", "miles per hour"]),
    u("speed", "kn", "knot", 1852.0 / 3600.0, &["kt", "kts", "knot", "knots"]),
    u("speed", "ft/s", "foot per second", FOOT, &["fps", "feet per second"]),
    // Time (s)
    u("time", "ns", "nanosecond", 1e-9, &["nanosecond", "nanoseconds"]),
    u("time", "µs", "microsecond", 1e-6, &["us", "μs", "microsecond", "microseconds"]),
    u("time", "ms", "millisecond", 1e-3, &["millisecond", "milliseconds"]),
    u("time", "s", "second", 1.0, &["sec", "secs", "second", "seconds"]),
    u("time", "min", "minute", 60.0, &["mins", "minute", "minutes"]),
    u("time", "h", "hour", 3600.0, &["hr", "hrs", "hour", "hours"]),
    u("time", "d", "day", 86_400.0, &["day", "days"]),
    u("time", "wk", "week", 604_800.0, &["week", "weeks"]),
    u("time", "yr", "Julian year (365.25 d)", 31_557_600.0, &["year", "years", "julian year"]),
    // Data (bytes): SI prefixes are powers of 1000, IEC 80000-13 binary prefixes powers of 1024.
    u("data", "bit", "bit", 0.125, &["bits", "b"]),
    u("data", "B", "byte", 1.0, &["byte", "bytes", "octet", "octets"]),
    u("data", "kbit", "kilobit", 125.0, &["kb", "kilobit", "kilobits"]),
    u("data", "Mbit", "megabit", 125e3, &["Mb", "megabit", "megabits"]),
    u("data", "Gbit", "gigabit", 125e6, &["Gb", "gigabit", "gigabits"]),
    u("data", "kB", "kilobyte", 1e3, &["KB", "kilobyte", "kilobytes"]),
    u("data", "MB", "megabyte", 1e6, &["megabyte", "megabytes"]),
    u("data", "GB", "gigabyte", 1e9, &["gigabyte", "gigabytes"]),
    u("data", "TB", "terabyte", 1e12, &["terabyte", "terabytes"]),
    u("data", "PB", "petabyte", 1e15, &["petabyte", "petabytes"]),
    u("data", "KiB", "kibibyte", 1024.0, &["kibibyte", "kibibytes"]),
    u("data", "MiB", "mebibyte", 1_048_576.0, &["mebibyte", "mebibytes"]),
    u("data", "GiB", "gibibyte", 1_073_741_824.0, &["gibibyte", "gibibytes"]),
    u("data", "TiB", "tebibyte", 1_099_511_627_776.0, &["tebibyte", "tebibytes"]),
    u("data", "PiB", "pebibyte", 1_125_899_906_842_624.0, &["pebibyte", "pebibytes"]),
    u("data", "Kibit", "kibibit", 128.0, &["kibibit", "kibibits"]),
    u("data", "Mibit", "mebibit", 131_072.0, &["mebibit", "mebibits"]),
    // Pressure (Pa)
    u("pressure", "Pa", "pascal", 1.0, &["pascal", "pascals"]),
    u("pressure", "hPa", "hectopascal", 100.0, &["hectopascal", "hectopascals"]),
    u("pressure", "kPa", "kilopascal", 1e3, &["kilopascal", "kilopascals"]),
    u("pressure", "MPa", "megapascal", 1e6, &["megapascal", "megapascals"]),
    u("pressure", "bar", "bar", 1e5, &["bars"]),
    u("pressure", "mbar", "millibar", 100.0, &["millibar", "millibars"]),
    u("pressure", "atm", "standard atmosphere", 101_325.0, &["atmosphere", "atmospheres"]),
    u("pressure", "psi", "pound-force per square inch", POUND * STANDARD_GRAVITY / (INCH * INCH), &["lbf/in2", "lbf/in²"]),
    u("pressure", "Torr", "torr", 101_325.0 / 760.0, &["torr"]),
    u("pressure", "mmHg", "millimetre of mercury", 133.322_387_415, &["mm hg", "millimeters of mercury"]),
    u("pressure", "inHg", "inch of mercury (0 °C)", 3386.389, &["in hg", "inches of mercury"]),
    // Energy (J)
    u("energy", "J", "joule", 1.0, &["joule", "joules"]),
    u("energy", "kJ", "kilojoule", 1e3, &["kilojoule", "kilojoules"]),
    u("energy", "MJ", "megajoule", 1e6, &["megajoule", "megajoules"]),
    u("energy", "cal", "calorie (thermochemical)", CALORIE, &["calorie", "calories"]),
    u("energy", "kcal", "kilocalorie", 1e3 * CALORIE, &["kilocalorie", "kilocalories", "Cal"]),
    u("energy", "Wh", "watt-hour", 3600.0, &["watt hour", "watt-hour", "watt hours"]),
    u("energy", "kWh", "kilowatt-hour", 3.6e6, &["kilowatt hour", "kilowatt-hour", "kilowatt hours"]),
    u("energy", "eV", "electronvolt", 1.602_176_634e-19, &["electronvolt", "electronvolts", "electron volt"]),
    u("energy", "BTU", "British thermal unit (IT)", BTU, &["btu", "british thermal unit"]),
    u("energy", "erg", "erg", 1e-7, &["ergs"]),
    u("energy", "ft·lbf", "foot-pound force", FOOT * POUND * STANDARD_GRAVITY, &["ft-lbf", "ft lbf", "ft*lbf", "foot-pound", "foot pound"]),
    // Power (W)
    u("power", "W", "watt", 1.0, &["watt", "watts"]),
    u("power", "kW", "kilowatt", 1e3, &["kilowatt", "kilowatts"]),
    u("power", "MW", "megawatt", 1e6, &["megawatt", "megawatts"]),
    u("power", "hp", "horsepower (mechanical)", 550.0 * FOOT * POUND * STANDARD_GRAVITY, &["horsepower", "bhp"]),
    u("power", "PS", "metric horsepower", 75.0 * STANDARD_GRAVITY, &["metric horsepower", "cv"]),
    u("power", "BTU/h", "BTU per hour", BTU / 3600.0, &["btu/h", "btu/hr"]),
    // Temperature (K)
    Unit {
        symbol: "K",
        name: "kelvin",
        category: "temperature",
        scale: Scale::Linear(1.0),
        aliases: &["kelvin", "kelvins"],
    },
    Unit {
        symbol: "°C",
        name: "degree Celsius",
        category: "temperature",
        scale: Scale::Affine {
            offset: 273.15,
            factor: 1.0,
        },
        aliases: &[
            "C",
            "degC",
            "celsius",
            "centigrade",
            "degrees celsius",
            "deg c",
        ],
    },
    Unit {
        symbol: "°F",
        name: "degree Fahrenheit",
        category: "temperature",
        scale: Scale::Affine {
            offset: 459.67,
            factor: 5.0 / 9.0,
        },
        aliases: &["F", "degF", "fahrenheit", "degrees fahrenheit", "deg f"],
    },
    Unit {
        symbol: "°R",
        name: "degree Rankine",
        category: "temperature",
        scale: Scale::Affine {
            offset: 0.0,
            factor: 5.0 / 9.0,
        },
        aliases: &["R", "degR", "rankine", "degrees rankine"],
    },
];

fn unit_converter(args: &Args) -> ToolOutcome {
    let category = args.str("category")?;
    let digits = args.usize("significantDigits")?;
    let category = (category != "auto").then_some(category);
    let Some(from) = args
        .opt_str("from")
        .map(str::trim)
        .filter(|s| !s.is_empty())
    else {
        return Ok(list_units(category));
    };
    let value = args.f64("value")?;
    let from = find_unit(from, category)?;
    let to = match args.opt_str("to").map(str::trim).filter(|s| !s.is_empty()) {
        Some(to) => {
            find_unit(to, Some(from.category)).map_err(|e| incompatible(e, from, to, category))?
        }
        None => return all_conversions(value, from, digits),
    };
    let result = convert(value, from, to, digits)?;
    let factor = match (from.scale, to.scale) {
        (Scale::Linear(a), Scale::Linear(b)) => json!(round_sig(a / b, digits)),
        _ => Value::Null,
    };
    Ok(json!({
        "output": format!("{} {}", number(result), to.symbol),
        "value": result,
        "from": describe(from),
        "to": describe(to),
        "category": from.category,
        "factor": factor,
    }))
}

/// The error for a `to` unit that exists only in another category names both categories.
fn incompatible(err: ToolError, from: &Unit, to: &str, category: Option<&str>) -> ToolError {
    match find_unit(to, category) {
        Ok(other) => ToolError::invalid(format!(
            "cannot convert {} ({}) to {} ({}): they measure different quantities",
            from.name, from.category, other.name, other.category
        )),
        Err(_) => err,
    }
}

fn describe(unit: &Unit) -> Value {
    json!({ "symbol": unit.symbol, "name": unit.name })
}

fn all_conversions(value: f64, from: &Unit, digits: usize) -> ToolOutcome {
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    for to in UNITS.iter().filter(|u| u.category == from.category) {
        let v = convert(value, from, to, digits)?;
        lines.push(format!("{} {}", number(v), to.symbol));
        rows.push(json!({ "symbol": to.symbol, "name": to.name, "value": v }));
    }
    Ok(json!({
        "output": lines.join("\n"),
        "from": describe(from),
        "category": from.category,
        "conversions": rows,
    }))
}

fn list_units(category: Option<&str>) -> Value {
    let mut categories = serde_json::Map::new();
    let mut lines = Vec::new();
    for (name, base) in CATEGORIES {
        if category.is_some_and(|c| c != name) {
            continue;
        }
        let units: Vec<&Unit> = UNITS.iter().filter(|u| u.category == name).collect();
        lines.push(format!(
            "{name} (base {base}): {}",
            units
                .iter()
                .map(|u| u.symbol)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        categories.insert(
            name.to_string(),
            Value::Array(units.into_iter().map(describe).collect()),
        );
    }
    json!({ "output": lines.join("\n"), "categories": categories })
}

/// Converts through the base unit and rounds to `digits` significant digits. An affine step
/// (temperatures) subtracts offsets, so its rounding is relative to the largest term rather
/// than to the result: 491.67 °R is 0 °C, not 5.7e-14.
fn convert(value: f64, from: &Unit, to: &Unit, digits: usize) -> Result<f64, ToolError> {
    let base = match from.scale {
        Scale::Linear(f) => value * f,
        Scale::Affine { offset, factor } => (value + offset) * factor,
    };
    if from.category == "temperature" && base < -1e-9 {
        return Err(ToolError::invalid(format!(
            "{value} {} is below absolute zero (0 K)",
            from.symbol
        )));
    }
    let (out, magnitude) = match to.scale {
        Scale::Linear(f) => (base / f, 0.0),
        Scale::Affine { offset, factor } => (base / factor - offset, offset.abs()),
    };
    let magnitude = match from.scale {
        Scale::Affine { offset, .. } => magnitude.max(value.abs()).max(offset.abs()),
        Scale::Linear(_) => magnitude,
    };
    if !out.is_finite() {
        return Err(ToolError::invalid(format!(
            "{value} {} is too large to convert to {}",
            from.symbol, to.symbol
        )));
    }
    let rounded = if magnitude > 0.0 {
        round_relative(out, magnitude.max(out.abs()), digits)
    } else {
        round_sig(out, digits)
    };
    // -0 would print as "-0".
    Ok(if rounded == 0.0 { 0.0 } else { rounded })
}

/// Rounds `x` to the decimal place of the `digits`-th significant digit of `magnitude`.
fn round_relative(x: f64, magnitude: f64, digits: usize) -> f64 {
    let exponent = magnitude.log10().floor() as i32 - (digits.clamp(1, 17) as i32 - 1);
    if exponent >= 0 {
        return round_sig(x, digits);
    }
    format!("{:.*}", exponent.unsigned_abs() as usize, x)
        .parse()
        .unwrap_or(x)
}

/// Matches a unit by symbol or alias: exactly first (so `mb` ≠ `MB`), then ignoring case, with
/// an error listing the candidates when ignoring case leaves several.
fn find_unit(text: &str, category: Option<&str>) -> Result<&'static Unit, ToolError> {
    let text = text.trim();
    let normalised = text
        .replace("^2", "²")
        .replace("^3", "³")
        .replace("deg ", "°");
    let in_scope = |u: &&Unit| category.is_none_or(|c| u.category == c);
    let names = |u: &Unit| {
        std::iter::once(u.symbol)
            .chain(u.aliases.iter().copied())
            .collect::<Vec<_>>()
    };
    let exact: Vec<&Unit> = UNITS
        .iter()
        .filter(in_scope)
        .filter(|u| names(u).iter().any(|n| *n == text || *n == normalised))
        .collect();
    if let Some(unit) = exact.first() {
        return Ok(unit);
    }
    let folded: Vec<&Unit> = UNITS
        .iter()
        .filter(in_scope)
        .filter(|u| {
            names(u)
                .iter()
                .any(|n| n.eq_ignore_ascii_case(text) || n.eq_ignore_ascii_case(&normalised))
        })
        .collect();
    match folded.as_slice() {
        [one] => Ok(one),
        [] => {
            let all: Vec<&str> = UNITS.iter().filter(in_scope).flat_map(names).collect();
            let hint = crate::suggest::did_you_mean(text, all.iter().copied())
                .map(|s| format!("; did you mean '{s}'?"))
                .unwrap_or_default();
            let scope = category.map(|c| format!(" {c}")).unwrap_or_default();
            Err(ToolError::invalid(format!(
                "unknown{scope} unit '{}'{hint} (leave 'from' empty to list the units)",
                crate::text::preview(text, 40)
            )))
        }
        many => Err(ToolError::invalid(format!(
            "unit '{text}' is ambiguous: {} (units are case-sensitive: B is a byte, b a bit)",
            many.iter()
                .map(|u| format!("{} ({})", u.symbol, u.name))
                .collect::<Vec<_>>()
                .join(" or ")
        ))),
    }
}

/// Rounds to `digits` significant digits, which hides binary floating-point noise
/// (0.30000000000000004) without losing exact decimal results.
pub(super) fn round_sig(x: f64, digits: usize) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let digits = digits.clamp(1, 17);
    format!("{:.*e}", digits - 1, x).parse().unwrap_or(x)
}

/// A number as people write it: no exponent for ordinary magnitudes, no trailing ".0".
pub(super) fn number(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1e21 || x.abs() < 1e-6) {
        return format!("{x:e}");
    }
    let s = format!("{x}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn convert(value: f64, from: &str, to: &str) -> f64 {
        let data = run_ok(
            "unit-converter",
            json!({"value": value, "from": from, "to": to}),
        );
        data["value"].as_f64().unwrap()
    }

    // NIST SP 811 Appendix B.8 exact factors.
    #[test]
    fn exact_nist_factors() {
        assert_eq!(convert(1.0, "mi", "m"), 1609.344);
        assert_eq!(convert(1.0, "in", "cm"), 2.54);
        assert_eq!(convert(1.0, "lb", "kg"), 0.45359237);
        assert_eq!(convert(1.0, "gal", "L"), 3.785411784);
        assert_eq!(convert(1.0, "atm", "Pa"), 101325.0);
        assert_eq!(convert(1.0, "kWh", "MJ"), 3.6);
        assert_eq!(convert(1.0, "acre", "m2"), 4046.8564224);
        assert_eq!(convert(1.0, "knot", "km/h"), 1.852);
        assert_eq!(convert(1.0, "psi", "Pa"), 6894.75729316836);
    }

    #[test]
    fn temperatures() {
        assert_eq!(convert(100.0, "°C", "°F"), 212.0);
        assert_eq!(convert(-40.0, "F", "C"), -40.0);
        assert_eq!(convert(0.0, "celsius", "K"), 273.15);
        assert_eq!(convert(491.67, "°R", "°C"), 0.0);
        let data = run_ok(
            "unit-converter",
            json!({"value": 37, "from": "C", "to": "F"}),
        );
        assert_eq!(data["output"], "98.6 °F");
        assert_eq!(data["factor"], serde_json::Value::Null);
    }

    // IEC 80000-13: kilo = 1000, kibi = 1024.
    #[test]
    fn data_sizes_distinguish_si_and_iec() {
        assert_eq!(convert(1.0, "KiB", "B"), 1024.0);
        assert_eq!(convert(1.0, "kB", "B"), 1000.0);
        assert_eq!(convert(1.0, "GiB", "MB"), 1073.741824);
        assert_eq!(convert(1.0, "B", "bit"), 8.0);
        assert_eq!(convert(100.0, "Mbit", "MB"), 12.5);
        let (code, msg) = run_err(
            "unit-converter",
            json!({"value": 1, "from": "mb", "to": "B"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("ambiguous"), "{msg}");
    }

    #[test]
    fn all_units_of_a_category_and_listing() {
        let data = run_ok("unit-converter", json!({"value": 1, "from": "h"}));
        let rows = data["conversions"].as_array().unwrap();
        assert!(rows.contains(&json!({"symbol": "min", "name": "minute", "value": 60.0})));
        assert!(rows.contains(&json!({"symbol": "s", "name": "second", "value": 3600.0})));
        let list = run_ok("unit-converter", json!({"category": "data"}));
        assert_eq!(list["categories"].as_object().unwrap().len(), 1);
        assert!(list["output"].as_str().unwrap().contains("KiB"));
    }

    #[test]
    fn conversion_errors() {
        let (code, msg) = run_err(
            "unit-converter",
            json!({"value": 1, "from": "mile", "to": "kg"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("mile (length) to kilogram (mass)"), "{msg}");
        let (code, msg) = run_err(
            "unit-converter",
            json!({"value": 1, "from": "furlongz", "to": "m"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("unknown unit 'furlongz'"), "{msg}");
        let (code, msg) = run_err(
            "unit-converter",
            json!({"value": -300, "from": "C", "to": "K"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("absolute zero"), "{msg}");
    }
}
