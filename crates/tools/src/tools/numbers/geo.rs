//! Coordinates on the Earth: great-circle (haversine) and WGS84 geodesic (Karney, via
//! geographiclib-rs) distance, bearings and midpoint, and DD / DMS / DDM conversion.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use geographiclib_rs::{DirectGeodesic, Geodesic, InverseGeodesic};
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[Tool::new("haversine-distance", haversine_distance)];

/// A latitude/longitude pair in decimal degrees.
#[derive(Clone, Copy, Debug)]
struct Point {
    lat: f64,
    lon: f64,
}

/// A coordinate's numbers (value and as written) and its hemisphere letter, if any.
type Group = (Vec<(f64, String)>, Option<char>);

#[derive(Debug)]
enum Token {
    Number(f64, String),
    Hemisphere(char),
}

/// Characters allowed around the numbers: separators and degree/minute/second marks.
fn is_decoration(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            ',' | ';' | '/' | '°' | 'º' | '˚' | '′' | '″' | '\'' | '"' | '’' | '”' | '´' | ':'
        )
}

fn tokenize(text: &str) -> Result<Vec<Token>, ToolError> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i + 1 < chars.len()) {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            let v: f64 = s.parse().map_err(|_| {
                ToolError::invalid(format!("'{s}' in '{}' is not a number", text.trim()))
            })?;
            tokens.push(Token::Number(v, s));
            continue;
        }
        match c.to_ascii_uppercase() {
            h @ ('N' | 'S' | 'E' | 'W') => tokens.push(Token::Hemisphere(h)),
            _ if is_decoration(c) => {}
            _ => {
                return Err(ToolError::invalid(format!(
                    "unexpected '{c}' in coordinates '{}': write decimal degrees (40.4461, -79.9822) or DMS (40°26′46″N 79°58′56″W)",
                    crate::text::preview(text.trim(), 60)
                )));
            }
        }
        i += 1;
    }
    Ok(tokens)
}

/// Degrees [minutes [seconds]] with an optional hemisphere to one signed value.
fn component(
    numbers: &[(f64, String)],
    hemisphere: Option<char>,
    text: &str,
) -> Result<f64, ToolError> {
    let bad = |why: String| {
        ToolError::invalid(format!(
            "coordinate '{}': {why}",
            crate::text::preview(text.trim(), 60)
        ))
    };
    if numbers.is_empty() || numbers.len() > 3 {
        return Err(bad(format!(
            "each of latitude and longitude needs 1 to 3 numbers (degrees, minutes, seconds), found {}",
            numbers.len()
        )));
    }
    let negative = numbers[0].1.starts_with('-');
    let mut value = numbers[0].0.abs();
    for (i, (n, s)) in numbers.iter().enumerate().skip(1) {
        if s.starts_with(['-', '+']) {
            return Err(bad(format!("only the degrees may carry a sign, not '{s}'")));
        }
        if *n >= 60.0 {
            return Err(bad(format!(
                "{} {n} must be below 60",
                if i == 1 { "minutes" } else { "seconds" }
            )));
        }
        if numbers[i - 1].0.fract() != 0.0 {
            return Err(bad(format!(
                "'{}' has a fraction but is followed by smaller units",
                numbers[i - 1].1
            )));
        }
        value += n / 60f64.powi(i as i32);
    }
    if negative && matches!(hemisphere, Some('S' | 'W')) {
        return Err(bad("give either a minus sign or S/W, not both".into()));
    }
    Ok(if negative || matches!(hemisphere, Some('S' | 'W')) {
        -value
    } else {
        value
    })
}

fn parse_point(text: &str, what: &str) -> Result<Point, ToolError> {
    let tokens = tokenize(text)?;
    let has_letters = tokens.iter().any(|t| matches!(t, Token::Hemisphere(_)));
    // Groups of numbers, each with the hemisphere letter written before or after it.
    let mut groups: Vec<Group> = Vec::new();
    if has_letters {
        let prefix = matches!(tokens.first(), Some(Token::Hemisphere(_)));
        let mut current = Vec::new();
        let mut pending = None;
        for t in tokens {
            match t {
                Token::Number(v, s) => current.push((v, s)),
                Token::Hemisphere(h) if prefix => {
                    if pending.is_some() || !current.is_empty() {
                        groups.push((std::mem::take(&mut current), pending));
                    }
                    pending = Some(h);
                }
                Token::Hemisphere(h) => groups.push((std::mem::take(&mut current), Some(h))),
            }
        }
        if prefix {
            groups.push((current, pending));
        } else if !current.is_empty() {
            groups.push((current, None));
        }
    } else {
        let numbers: Vec<(f64, String)> = tokens
            .into_iter()
            .filter_map(|t| match t {
                Token::Number(v, s) => Some((v, s)),
                Token::Hemisphere(_) => None,
            })
            .collect();
        let split = if let Some((a, _)) = text.split_once([',', ';', '/']) {
            tokenize(a)?.len()
        } else if matches!(numbers.len(), 2 | 4 | 6) {
            numbers.len() / 2
        } else {
            0
        };
        if split == 0 || split >= numbers.len() {
            return Err(ToolError::invalid(format!(
                "{what} '{}' needs a latitude and a longitude (e.g. 40.4461, -79.9822 or 40 26 46 N 79 58 56 W)",
                crate::text::preview(text.trim(), 60)
            )));
        }
        let second = numbers[split..].to_vec();
        let mut first = numbers;
        first.truncate(split);
        groups.push((first, None));
        groups.push((second, None));
    }
    if groups.len() != 2 {
        return Err(ToolError::invalid(format!(
            "{what} '{}' should hold exactly two coordinates (latitude and longitude), found {}",
            crate::text::preview(text.trim(), 60),
            groups.len()
        )));
    }
    let a = component(&groups[0].0, groups[0].1, text)?;
    let b = component(&groups[1].0, groups[1].1, text)?;
    let (lat, lon) = match (groups[0].1, groups[1].1) {
        (Some('E' | 'W'), Some('N' | 'S')) => (b, a),
        (Some(x), Some(y)) if "NS".contains(x) == "NS".contains(y) => {
            return Err(ToolError::invalid(format!(
                "{what} '{}' has hemispheres {x} and {y}; one must be N/S and the other E/W",
                crate::text::preview(text.trim(), 60)
            )));
        }
        _ => (a, b),
    };
    if !(-90.0..=90.0).contains(&lat) {
        return Err(ToolError::invalid(format!(
            "{what}: latitude {lat} is out of range; it must be between -90 and 90"
        )));
    }
    if !(-180.0..=180.0).contains(&lon) {
        return Err(ToolError::invalid(format!(
            "{what}: longitude {lon} is out of range; it must be between -180 and 180"
        )));
    }
    Ok(Point { lat, lon })
}

/// Kilometres per unit.
fn unit_km(unit: &str) -> f64 {
    match unit {
        "m" => 0.001,
        "mi" => 1.609_344,
        "nmi" => 1.852,
        "ft" => 0.000_304_8,
        _ => 1.0,
    }
}

fn normalize_bearing(deg: f64) -> f64 {
    let b = deg.rem_euclid(360.0);
    if b >= 360.0 { 0.0 } else { b }
}

fn compass(deg: f64) -> &'static str {
    const POINTS: [&str; 16] = [
        "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW",
        "NW", "NNW",
    ];
    POINTS[((deg / 22.5).round() as usize) % 16]
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// Great-circle distance (km), initial and final bearing and midpoint on a sphere of radius `r`.
fn haversine(p: Point, q: Point, r: f64) -> (f64, f64, f64, Point) {
    let (φ1, φ2) = (p.lat.to_radians(), q.lat.to_radians());
    let (λ1, λ2) = (p.lon.to_radians(), q.lon.to_radians());
    let (dφ, dλ) = (φ2 - φ1, λ2 - λ1);
    let a = (dφ / 2.0).sin().powi(2) + φ1.cos() * φ2.cos() * (dλ / 2.0).sin().powi(2);
    let c = 2.0 * a.sqrt().atan2((1.0 - a).sqrt());
    let bearing = |φa: f64, φb: f64, dl: f64| {
        (dl.sin() * φb.cos())
            .atan2(φa.cos() * φb.sin() - φa.sin() * φb.cos() * dl.cos())
            .to_degrees()
    };
    let initial = normalize_bearing(bearing(φ1, φ2, dλ));
    let final_ = normalize_bearing(bearing(φ2, φ1, -dλ) + 180.0);
    let bx = φ2.cos() * dλ.cos();
    let by = φ2.cos() * dλ.sin();
    let φm = (φ1.sin() + φ2.sin()).atan2(((φ1.cos() + bx).powi(2) + by * by).sqrt());
    let λm = λ1 + by.atan2(φ1.cos() + bx);
    let mid = Point {
        lat: φm.to_degrees(),
        lon: (λm.to_degrees() + 540.0).rem_euclid(360.0) - 180.0,
    };
    (r * c, initial, final_, mid)
}

fn point_json(p: Point) -> Value {
    json!({ "lat": round(p.lat, 6), "lon": round(p.lon, 6) })
}

fn haversine_distance(args: &Args) -> ToolOutcome {
    let from = parse_point(args.str("from")?, "from")?;
    if args.str("mode")? == "convert" {
        return Ok(convert(from));
    }
    let to_text = args
        .opt_str("to")
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ToolError::invalid("mode 'distance' needs a 'to' coordinate"))?;
    let to = parse_point(to_text, "to")?;
    let unit = args.str("unit")?;
    let radius = args.f64("radius")?;
    if !(radius.is_finite() && radius > 0.0) {
        return Err(ToolError::invalid(
            "radius must be a positive number of kilometres",
        ));
    }
    let per = unit_km(unit);
    let (km, initial, final_, mid) = haversine(from, to, radius);
    let g = Geodesic::wgs84();
    let (s12, azi1, azi2, _a12): (f64, f64, f64, f64) =
        g.inverse(from.lat, from.lon, to.lat, to.lon);
    let (mlat, mlon, _): (f64, f64, f64) = g.direct(from.lat, from.lon, azi1, s12 / 2.0);
    let geodesic = s12 / 1000.0 / per;
    let spherical = km / per;
    Ok(json!({
        "output": format!("{} {unit}", round(spherical, 3)),
        "unit": unit,
        "haversine": {
            "distance": spherical,
            "radiusKm": radius,
            "initialBearing": round(initial, 6),
            "finalBearing": round(final_, 6),
            "initialCompass": compass(initial),
            "midpoint": point_json(mid),
        },
        "geodesic": {
            "distance": geodesic,
            "ellipsoid": "WGS84",
            "initialBearing": round(normalize_bearing(azi1), 6),
            "finalBearing": round(normalize_bearing(azi2), 6),
            "initialCompass": compass(normalize_bearing(azi1)),
            "midpoint": point_json(Point { lat: mlat, lon: mlon }),
        },
        "differencePercent": if geodesic > 0.0 { round((spherical - geodesic) / geodesic * 100.0, 4) } else { 0.0 },
        "from": point_json(from),
        "to": point_json(to),
    }))
}

/// Trims a fixed-point number's trailing zeros ("46.00" → "46").
fn trim(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn dms(value: f64, positive: char, negative: char) -> String {
    let hemi = if value < 0.0 { negative } else { positive };
    // Round at the smallest unit first so 59.999″ carries into the minutes.
    let total = (value.abs() * 360_000.0).round() as u64; // hundredths of a second
    let (d, rest) = (total / 360_000, total % 360_000);
    let (m, cs) = (rest / 6000, rest % 6000);
    let s = trim(format!("{}.{:02}", cs / 100, cs % 100));
    format!("{d}°{m}′{s}″{hemi}")
}

fn ddm(value: f64, positive: char, negative: char) -> String {
    let hemi = if value < 0.0 { negative } else { positive };
    let total = (value.abs() * 60_000.0).round() as u64; // thousandths of a minute
    let (d, rest) = (total / 60_000, total % 60_000);
    let m = trim(format!("{}.{:03}", rest / 1000, rest % 1000));
    format!("{d}°{m}′{hemi}")
}

fn convert(p: Point) -> Value {
    let dd = format!("{}, {}", round(p.lat, 6), round(p.lon, 6));
    let dms_text = format!("{} {}", dms(p.lat, 'N', 'S'), dms(p.lon, 'E', 'W'));
    let ddm_text = format!("{} {}", ddm(p.lat, 'N', 'S'), ddm(p.lon, 'E', 'W'));
    json!({
        "output": dms_text,
        "decimal": dd,
        "dms": dms_text,
        "ddm": ddm_text,
        "lat": round(p.lat, 8),
        "lon": round(p.lon, 8),
    })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn close(v: &serde_json::Value, expected: f64, tol: f64) {
        let x = v.as_f64().expect("number");
        assert!((x - expected).abs() <= tol, "{x} vs {expected}");
    }

    #[test]
    fn rosetta_code_haversine_bna_lax() {
        // Rosetta Code "Haversine formula": R = 6372.8 km gives 2887.2599506071106 km.
        let d = run_ok(
            "haversine-distance",
            json!({"from": "36.12, -86.67", "to": "33.94, -118.40", "radius": 6372.8}),
        );
        close(&d["haversine"]["distance"], 2_887.259_950_607_1, 1e-9);
        assert_eq!(d["output"], "2887.26 km");
    }

    #[test]
    fn geographiclib_geodsolve_vectors() {
        // GeographicLib test GeodSolve0: JFK to CDG.
        let d = run_ok(
            "haversine-distance",
            json!({"from": "40.6 -73.8", "to": "49.01666667, 2.55", "unit": "m"}),
        );
        close(&d["geodesic"]["distance"], 5_853_226.0, 0.5);
        close(&d["geodesic"]["initialBearing"], 53.47022, 0.5e-5);
        close(&d["geodesic"]["finalBearing"], 111.59367, 0.5e-5);
        // GeodSolve76: Wellington to Salamanca, given in DMS (a classic Vincenty failure).
        let d = run_ok(
            "haversine-distance",
            json!({"from": "41°19′S 174°49′E", "to": "40°58′N, 5°30′W", "unit": "m"}),
        );
        close(&d["geodesic"]["distance"], 19_960_543.857_179, 1e-5);
        close(&d["geodesic"]["initialBearing"], 160.391376, 1e-6);
    }

    #[test]
    fn units_bearings_and_midpoint() {
        // JFK to LHR.
        let d = run_ok(
            "haversine-distance",
            json!({"from": "40.6413,-73.7781", "to": "51.4700,-0.4543", "unit": "nmi"}),
        );
        let km = run_ok(
            "haversine-distance",
            json!({"from": "40.6413,-73.7781", "to": "51.4700,-0.4543"}),
        );
        let ratio = km["geodesic"]["distance"].as_f64().unwrap()
            / d["geodesic"]["distance"].as_f64().unwrap();
        assert!((ratio - 1.852).abs() < 1e-12);
        assert_eq!(d["haversine"]["initialCompass"], "NE");
        // Along the equator: due east, midpoint halfway.
        let d = run_ok("haversine-distance", json!({"from": "0, 0", "to": "0, 90"}));
        close(&d["haversine"]["initialBearing"], 90.0, 1e-9);
        close(&d["haversine"]["midpoint"]["lon"], 45.0, 1e-9);
        close(
            &d["haversine"]["distance"],
            6371.0088 * std::f64::consts::FRAC_PI_2,
            1e-9,
        );
        close(
            &d["geodesic"]["distance"],
            6378.137 * std::f64::consts::FRAC_PI_2,
            1e-6,
        );
    }

    #[test]
    fn coordinate_format_conversion() {
        // Pittsburgh, as Wikipedia gives it.
        let d = run_ok(
            "haversine-distance",
            json!({"mode": "convert", "from": "40°26′46″N 79°58′56″W"}),
        );
        assert_eq!(d["decimal"], "40.446111, -79.982222");
        assert_eq!(d["dms"], "40°26′46″N 79°58′56″W");
        assert_eq!(d["ddm"], "40°26.767′N 79°58.933′W");
        let d = run_ok(
            "haversine-distance",
            json!({"mode": "convert", "from": "40 26 46 N, 79 58 56 W"}),
        );
        assert_eq!(d["dms"], "40°26′46″N 79°58′56″W");
        let d = run_ok(
            "haversine-distance",
            json!({"mode": "convert", "from": "N 51 28.2 W 0 27.258"}),
        );
        assert_eq!(d["decimal"], "51.47, -0.4543");
        let d = run_ok(
            "haversine-distance",
            json!({"mode": "convert", "from": "-33.8568, 151.2153"}),
        );
        assert_eq!(d["dms"], "33°51′24.48″S 151°12′55.08″E");
    }

    #[test]
    fn out_of_range_and_malformed() {
        let (code, msg) = run_err("haversine-distance", json!({"from": "91, 0", "to": "0, 0"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("latitude 91 is out of range"), "{msg}");
        let (_, msg) = run_err(
            "haversine-distance",
            json!({"from": "10, 190", "to": "0, 0"}),
        );
        assert!(msg.contains("longitude 190"), "{msg}");
        let (_, msg) = run_err(
            "haversine-distance",
            json!({"from": "40°75′N 79°W", "to": "0, 0"}),
        );
        assert!(msg.contains("minutes 75 must be below 60"), "{msg}");
        let (_, msg) = run_err("haversine-distance", json!({"from": "Paris", "to": "0, 0"}));
        assert!(msg.contains("unexpected 'P'"), "{msg}");
        let (_, msg) = run_err("haversine-distance", json!({"from": "1, 2"}));
        assert!(msg.contains("needs a 'to'"), "{msg}");
    }
}
