//! CSS colours: parsing (csscolorparser) and conversion to hex, rgb, hsl, hwb, CMYK and CIE Lab/LCH.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use csscolorparser::{Color, NAMED_COLORS};
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[Tool::new("color-converter", color_converter)];

/// Linear sRGB → CIE XYZ (D65), IEC 61966-2-1 as given in CSS Color 4 §18.
const SRGB_TO_XYZ: [[f64; 3]; 3] = [
    [
        0.412_390_799_265_959_34,
        0.357_584_339_383_878,
        0.180_480_788_401_834_3,
    ],
    [
        0.212_639_005_871_510_27,
        0.715_168_678_767_756,
        0.072_192_315_360_733_71,
    ],
    [
        0.019_330_818_715_591_82,
        0.119_194_779_794_625_98,
        0.950_532_152_249_660_7,
    ],
];

/// Bradford chromatic adaptation D65 → D50, CSS Color 4 §18.
const D65_TO_D50: [[f64; 3]; 3] = [
    [
        1.047_929_792_544_996_9,
        0.022_946_870_601_609_652,
        -0.050_192_266_289_205_24,
    ],
    [
        0.029_627_808_770_055_99,
        0.990_434_426_753_879_9,
        -0.017_073_799_063_418_826,
    ],
    [
        -0.009_243_040_646_204_504,
        0.015_055_191_490_298_152,
        0.751_874_281_428_137_1,
    ],
];

fn color_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?.trim();
    let format = args.str("format")?;
    let d50 = args.str("whitePoint")? == "d50";
    let parsed = csscolorparser::parse(input).map_err(|e| {
        ToolError::invalid(format!(
            "'{}' is not a CSS color ({e}); use #rgb, #rrggbb, #rrggbbaa, rgb(), hsl(), hwb(), lab(), lch(), oklch() or a name such as rebeccapurple",
            crate::text::preview(input, 40)
        ))
    })?;
    let in_gamut = [parsed.r, parsed.g, parsed.b]
        .iter()
        .all(|c| (-1e-4..=1.0 + 1e-4).contains(c));
    let c = parsed.clamp();
    let [r, g, b] = [snap(c.r), snap(c.g), snap(c.b)];
    let alpha = snap(c.a);
    let [r8, g8, b8, a8] = c.to_rgba8();

    let (h, s, l) = hsl(r, g, b);
    let white = r.min(g).min(b);
    let black = 1.0 - r.max(g).max(b);
    let k = black;
    let cmy = |x: f64| {
        if k >= 1.0 {
            0.0
        } else {
            (1.0 - x - k) / (1.0 - k)
        }
    };
    let (cc, cm, cy) = (cmy(r), cmy(g), cmy(b));
    let (lab_l, lab_a, lab_b) = lab(r, g, b, d50);
    let chroma = lab_a.hypot(lab_b);
    let hue = if round(chroma, 2) == 0.0 {
        0.0
    } else {
        lab_b.atan2(lab_a).to_degrees().rem_euclid(360.0)
    };

    let opaque = alpha >= 1.0;
    let alpha_suffix = if opaque {
        String::new()
    } else {
        format!(" / {}", fmt(alpha, 3))
    };
    let hex = if opaque {
        format!("#{r8:02x}{g8:02x}{b8:02x}")
    } else {
        format!("#{r8:02x}{g8:02x}{b8:02x}{a8:02x}")
    };
    let pct = |x: f64| format!("{}%", fmt(x * 100.0, 2));
    let name = name(c, [r8, g8, b8, a8], [r, g, b]);
    let mut data = json!({
        "output": "",
        "hex": hex,
        "rgb": format!("rgb({r8} {g8} {b8}{alpha_suffix})"),
        "hsl": format!("hsl({} {} {}{alpha_suffix})", fmt(h, 2), pct(s), pct(l)),
        "hwb": format!("hwb({} {} {}{alpha_suffix})", fmt(h, 2), pct(white), pct(black)),
        "cmyk": format!("cmyk({} {} {} {})", pct(cc), pct(cm), pct(cy), pct(k)),
        "lab": format!("lab({} {} {}{alpha_suffix})", fmt(lab_l, 2), fmt(lab_a, 2), fmt(lab_b, 2)),
        "lch": format!("lch({} {} {}{alpha_suffix})", fmt(lab_l, 2), fmt(chroma, 2), fmt(hue, 2)),
        "name": name,
        "alpha": round(alpha, 3),
        "inGamut": in_gamut,
        "components": {
            "rgb": { "r": r8, "g": g8, "b": b8 },
            "hsl": { "h": round(h, 2), "s": round(s * 100.0, 2), "l": round(l * 100.0, 2) },
            "hwb": { "h": round(h, 2), "w": round(white * 100.0, 2), "b": round(black * 100.0, 2) },
            "cmyk": {
                "c": round(cc * 100.0, 2), "m": round(cm * 100.0, 2),
                "y": round(cy * 100.0, 2), "k": round(k * 100.0, 2)
            },
            "lab": { "l": round(lab_l, 2), "a": round(lab_a, 2), "b": round(lab_b, 2) },
            "lch": { "l": round(lab_l, 2), "c": round(chroma, 2), "h": round(hue, 2) },
        },
        "whitePoint": if d50 { "D50" } else { "D65" },
    });
    data["output"] = data[format].clone();
    if data["output"].is_null() {
        return Err(ToolError::invalid(format!(
            "{hex} has no CSS color name; pick another format"
        )));
    }
    Ok(data)
}

/// csscolorparser stores f32; a channel within rounding of an 8-bit value is taken as exactly
/// that value so #663399 yields hsl(270 50% 40%) rather than 269.99999.
fn snap(x: f32) -> f64 {
    let x = f64::from(x);
    let n = (x * 255.0).round();
    if (x * 255.0 - n).abs() < 1e-3 {
        n / 255.0
    } else {
        x
    }
}

fn round(x: f64, decimals: i32) -> f64 {
    let p = 10f64.powi(decimals);
    let r = (x * p).round() / p;
    if r == 0.0 { 0.0 } else { r }
}

/// A rounded number without trailing zeros: 270, 33.33, -47.7.
fn fmt(x: f64, decimals: i32) -> String {
    let s = format!("{:.*}", decimals as usize, round(x, decimals));
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" { "0".into() } else { s }
}

fn hsl(r: f64, g: f64, b: f64) -> (f64, f64, f64) {
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let l = (max + min) / 2.0;
    let d = max - min;
    if d == 0.0 {
        return (0.0, 0.0, l);
    }
    let s = d / (1.0 - (2.0 * l - 1.0).abs());
    let h = if max == r {
        ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        (b - r) / d + 2.0
    } else {
        (r - g) / d + 4.0
    };
    (h * 60.0, s, l)
}

/// CIE L*a*b* (CIE 15:2004) from gamma-encoded sRGB, relative to D65, or to D50 after Bradford
/// adaptation as CSS `lab()` uses.
fn lab(r: f64, g: f64, b: f64, d50: bool) -> (f64, f64, f64) {
    let linear = |c: f64| {
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let rgb = [linear(r), linear(g), linear(b)];
    let mul = |m: &[[f64; 3]; 3], v: [f64; 3]| {
        [0, 1, 2].map(|i| m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2])
    };
    let mut xyz = mul(&SRGB_TO_XYZ, rgb);
    // Reference whites from the chromaticities in CSS Color 4.
    let white = if d50 {
        xyz = mul(&D65_TO_D50, xyz);
        [0.3457 / 0.3585, 1.0, (1.0 - 0.3457 - 0.3585) / 0.3585]
    } else {
        [0.3127 / 0.3290, 1.0, (1.0 - 0.3127 - 0.3290) / 0.3290]
    };
    const EPSILON: f64 = 216.0 / 24389.0;
    const KAPPA: f64 = 24389.0 / 27.0;
    let f = |t: f64| {
        if t > EPSILON {
            t.cbrt()
        } else {
            (KAPPA * t + 16.0) / 116.0
        }
    };
    let [fx, fy, fz] = [0, 1, 2].map(|i| f(xyz[i] / white[i]));
    (116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz))
}

/// The CSS name of an opaque colour whose 8-bit value matches exactly (the alphabetically first
/// when several share it, such as aqua/cyan), or "transparent".
fn name(c: Color, rgba8: [u8; 4], snapped: [f64; 3]) -> Value {
    let exact = [c.r, c.g, c.b]
        .iter()
        .zip(snapped)
        .all(|(x, s)| ((f64::from(*x) * 255.0).round() - s * 255.0).abs() < 1e-9);
    if rgba8 == [0, 0, 0, 0] {
        return json!("transparent");
    }
    if rgba8[3] != 255 || !exact {
        return Value::Null;
    }
    NAMED_COLORS
        .entries()
        .filter(|(_, v)| v[..] == rgba8[..3])
        .map(|(k, _)| k.as_str())
        .min()
        .map_or(Value::Null, |n| json!(n))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // CSS Color 4 §6.1 (named colors): rebeccapurple is #663399.
    #[test]
    fn rebeccapurple_in_every_notation() {
        for input in [
            "rebeccapurple",
            "#663399",
            "#639",
            "rgb(102 51 153)",
            "rgb(102, 51, 153)",
            "hsl(270 50% 40%)",
            "hsl(270deg, 50%, 40%)",
        ] {
            let data = run_ok("color-converter", json!({"input": input}));
            assert_eq!(data["hex"], "#663399", "{input}");
            assert_eq!(data["rgb"], "rgb(102 51 153)", "{input}");
            assert_eq!(data["hsl"], "hsl(270 50% 40%)", "{input}");
            assert_eq!(data["hwb"], "hwb(270 20% 40%)", "{input}");
            assert_eq!(data["name"], "rebeccapurple", "{input}");
        }
        let data = run_ok("color-converter", json!({"input": "#663399"}));
        assert_eq!(data["cmyk"], "cmyk(33.33% 66.67% 0% 40%)");
    }

    // CIE Lab of the sRGB primaries and white/black (Lindbloom's calculator, D65 reference).
    #[test]
    fn lab_values_d65() {
        let white = run_ok("color-converter", json!({"input": "white"}));
        assert_eq!(
            white["components"]["lab"],
            json!({"l": 100.0, "a": 0.0, "b": 0.0})
        );
        assert_eq!(white["lch"], "lch(100 0 0)");
        let black = run_ok("color-converter", json!({"input": "#000"}));
        assert_eq!(black["lab"], "lab(0 0 0)");
        assert_eq!(black["cmyk"], "cmyk(0% 0% 0% 100%)");
        let red = run_ok(
            "color-converter",
            json!({"input": "#ff0000", "format": "lab"}),
        );
        assert_eq!(red["output"], "lab(53.24 80.09 67.2)");
        assert_eq!(red["components"]["lch"]["h"], 40.0);
    }

    // CSS Color 4 §9 sample: sRGB red is lab(54.29% 80.8 69.89) in the D50-based lab().
    #[test]
    fn lab_d50_matches_css_lab() {
        let red = run_ok(
            "color-converter",
            json!({"input": "red", "whitePoint": "d50"}),
        );
        let lab = &red["components"]["lab"];
        assert!((lab["l"].as_f64().unwrap() - 54.29).abs() < 0.02, "{lab}");
        assert!((lab["a"].as_f64().unwrap() - 80.8).abs() < 0.05, "{lab}");
        assert!((lab["b"].as_f64().unwrap() - 69.89).abs() < 0.05, "{lab}");
        // And a CSS lab() input is read back to the same sRGB colour.
        let back = run_ok(
            "color-converter",
            json!({"input": "lab(54.29% 80.8 69.89)"}),
        );
        assert_eq!(back["hex"], "#ff0000");
    }

    #[test]
    fn alpha_is_kept() {
        let data = run_ok("color-converter", json!({"input": "rgba(255, 0, 0, 0.5)"}));
        assert_eq!(data["hex"], "#ff000080");
        assert_eq!(data["rgb"], "rgb(255 0 0 / 0.5)");
        assert_eq!(data["hsl"], "hsl(0 100% 50% / 0.5)");
        assert_eq!(data["alpha"], 0.5);
        assert_eq!(data["name"], serde_json::Value::Null);
        let t = run_ok("color-converter", json!({"input": "transparent"}));
        assert_eq!(t["name"], "transparent");
        assert_eq!(t["hex"], "#00000000");
    }

    #[test]
    fn names_only_when_exact() {
        let data = run_ok(
            "color-converter",
            json!({"input": "#00ffff", "format": "name"}),
        );
        assert_eq!(data["output"], "aqua");
        let (code, msg) = run_err(
            "color-converter",
            json!({"input": "#123456", "format": "name"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("no CSS color name"), "{msg}");
    }

    #[test]
    fn rejects_non_colors() {
        let (code, msg) = run_err("color-converter", json!({"input": "#12345g"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not a CSS color"), "{msg}");
        let (code, _) = run_err("color-converter", json!({"input": "notacolor"}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }
}
