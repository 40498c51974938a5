//! QR code generation (ISO/IEC 18004) rendered as SVG or terminal text.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use qrcode::render::{svg, unicode};
use qrcode::types::QrError;
use qrcode::{EcLevel, QrCode, Version};
use serde_json::json;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("qr-code-generator", qr_code)];

fn qr_code(args: &Args) -> ToolOutcome {
    let text = args.str("text")?;
    let level_name = args.str("errorCorrection")?;
    let level = match level_name {
        "L" => EcLevel::L,
        "Q" => EcLevel::Q,
        "H" => EcLevel::H,
        _ => EcLevel::M,
    };
    let format = args.str("format")?;
    let quiet_zone = args.flag("quietZone");
    let code = QrCode::with_error_correction_level(text.as_bytes(), level).map_err(|e| match e {
        QrError::DataTooLong => ToolError::invalid(format!(
            "text is too long for a QR code at error correction {level_name}: {} bytes, while version 40 holds at most {} bytes of arbitrary text (up to 2953 at level L)",
            text.len(),
            max_bytes(level)
        )),
        other => ToolError::invalid(format!("cannot encode the text as a QR code: {other}")),
    })?;
    let output = match format {
        "svg" => {
            let dark = colour(args, "darkColor")?;
            let light = colour(args, "lightColor")?;
            let module = u32::try_from(args.usize("moduleSize")?).unwrap_or(u32::MAX);
            code.render::<svg::Color>()
                .quiet_zone(quiet_zone)
                .module_dimensions(module, module)
                .dark_color(svg::Color(dark))
                .light_color(svg::Color(light))
                .build()
        }
        "ascii" => code
            .render::<char>()
            .quiet_zone(quiet_zone)
            // Two characters per module keep the code roughly square in a monospaced font.
            .module_dimensions(2, 1)
            .dark_color('#')
            .light_color(' ')
            .build(),
        _ => {
            let mut renderer = code.render::<unicode::Dense1x2>();
            renderer.quiet_zone(quiet_zone);
            // Terminals are usually light-on-dark: drawing light modules as blocks makes the code
            // come out dark-on-light on screen, which is what scanners expect.
            if args.flag("invert") {
                renderer
                    .dark_color(unicode::Dense1x2::Light)
                    .light_color(unicode::Dense1x2::Dark);
            }
            renderer.build()
        }
    };
    let version = match code.version() {
        Version::Normal(v) | Version::Micro(v) => v,
    };
    Ok(json!({
        "output": output,
        "format": format,
        "version": version,
        "size": code.width(),
        "errorCorrection": level_name,
    }))
}

/// Byte-mode capacity of version 40 at each level (ISO/IEC 18004 table 7).
fn max_bytes(level: EcLevel) -> u32 {
    match level {
        EcLevel::L => 2953,
        EcLevel::M => 2331,
        EcLevel::Q => 1663,
        EcLevel::H => 1273,
    }
}

/// A CSS hex colour (#rgb, #rgba, #rrggbb or #rrggbbaa), as SVG fill accepts.
fn colour<'a>(args: &Args<'a>, name: &str) -> Result<&'a str, ToolError> {
    let value = args.str(name)?.trim();
    let hex = value.strip_prefix('#').unwrap_or("");
    if matches!(hex.len(), 3 | 4 | 6 | 8) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        Ok(value)
    } else {
        Err(ToolError::invalid(format!(
            "{name} '{}' is not a hex colour such as #000000 or #fff",
            crate::text::preview(value, 40)
        )))
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // ISO/IEC 18004 Annex I: "01234567" at level M is a version 1 symbol, 21×21 modules.
    #[test]
    fn annex_i_example_is_version_1() {
        let data = run_ok("qr-code-generator", json!({"text": "01234567"}));
        assert_eq!(data["version"], 1);
        assert_eq!(data["size"], 21);
        assert_eq!(data["errorCorrection"], "M");
        // Half blocks: (21 + 2×4 quiet zone) = 29 rows → 15 lines.
        assert_eq!(data["output"].as_str().unwrap().lines().count(), 15);
        let bare = run_ok(
            "qr-code-generator",
            json!({"text": "01234567", "quietZone": false}),
        );
        assert_eq!(bare["output"].as_str().unwrap().lines().count(), 11);
    }

    #[test]
    fn capacity_decides_the_version() {
        // Version 1-L holds 17 bytes; at H, 1 holds 7, 2 holds 14, 3 holds 24 (ISO/IEC 18004 table 7).
        let l = run_ok(
            "qr-code-generator",
            json!({"text": "https://a.b/cdefg", "errorCorrection": "L"}),
        );
        assert_eq!(
            (l["version"].as_i64(), l["size"].as_i64()),
            (Some(1), Some(21))
        );
        let h = run_ok(
            "qr-code-generator",
            json!({"text": "https://a.b/cdefg", "errorCorrection": "H"}),
        );
        assert_eq!(
            (h["version"].as_i64(), h["size"].as_i64()),
            (Some(3), Some(29))
        );
    }

    #[test]
    fn svg_parses_with_the_right_viewbox() {
        let data = run_ok(
            "qr-code-generator",
            json!({"text": "01234567", "format": "svg", "moduleSize": 10, "darkColor": "#112233"}),
        );
        let svg = data["output"].as_str().unwrap();
        let mut reader = quick_xml::Reader::from_str(svg);
        let mut view_box = None;
        loop {
            match reader.read_event().expect("well-formed SVG") {
                quick_xml::events::Event::Eof => break,
                quick_xml::events::Event::Start(e) if e.name().as_ref() == "svg" => {
                    let attr = e.try_get_attribute("viewBox").unwrap().unwrap();
                    view_box = Some(attr.value.to_string());
                }
                _ => {}
            }
        }
        // (21 + 8) modules × 10 px.
        assert_eq!(view_box.as_deref(), Some("0 0 290 290"));
        assert!(svg.contains("fill=\"#112233\""));
    }

    #[test]
    fn ascii_uses_hash_and_space() {
        let data = run_ok(
            "qr-code-generator",
            json!({"text": "01234567", "format": "ascii", "quietZone": false}),
        );
        let text = data["output"].as_str().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 21);
        // Finder pattern: seven dark modules, two characters each.
        assert!(lines[0].starts_with(&"#".repeat(14)));
        assert!(text.chars().all(|c| c == '#' || c == ' ' || c == '\n'));
    }

    #[test]
    fn too_long_and_bad_colour_are_invalid_input() {
        let (code, msg) = run_err(
            "qr-code-generator",
            json!({"text": "x".repeat(3000), "errorCorrection": "L"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("too long"), "{msg}");
        let (code, msg) = run_err(
            "qr-code-generator",
            json!({"text": "hi", "format": "svg", "darkColor": "black"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("darkColor"), "{msg}");
    }
}
