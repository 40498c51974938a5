//! SVG placeholder images: a filled rectangle with centred text, as SVG source and data URIs.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use quick_xml::escape::escape;
use serde_json::json;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("svg-placeholder-generator", svg_placeholder)];

/// What must be escaped for an SVG inside a `data:` URI in a CSS `url("…")` or an HTML
/// attribute: controls, space, quotes, and the characters with a meaning in URIs or CSS.
const DATA_URI: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'\'')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

fn svg_placeholder(args: &Args) -> ToolOutcome {
    let width = args.usize("width")?;
    let height = args.usize("height")?;
    let background = colour(args, "backgroundColor")?;
    let foreground = colour(args, "textColor")?;
    let text = match args.opt_str("text") {
        _ if !args.flag("showText") => String::new(),
        Some(t) => t.to_string(),
        None => format!("{width}\u{d7}{height}"),
    };
    // XML 1.0 §2.2 admits no C0 control other than tab, newline and carriage return.
    if let Some(c) = text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(ToolError::invalid(format!(
            "text contains the control character U+{:04X}, which SVG (XML) cannot carry",
            c as u32
        )));
    }
    let font_size = match args.usize("fontSize")? {
        0 => auto_font_size(width, height, &text),
        n => n,
    };
    let family = args.str("fontFamily")?.trim();
    let text_element = if text.is_empty() {
        String::new()
    } else {
        format!(
            "\n  <text x=\"50%\" y=\"50%\" fill=\"{foreground}\" font-family=\"{}\" font-size=\"{font_size}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text>",
            escape(family),
            escape(text.as_str())
        )
    };
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">\n  <rect width=\"100%\" height=\"100%\" fill=\"{background}\"/>{text_element}\n</svg>"
    );
    Ok(json!({
        "output": svg,
        "dataUri": format!("data:image/svg+xml;base64,{}", STANDARD.encode(&svg)),
        "dataUriUtf8": format!(
            "data:image/svg+xml;charset=utf-8,{}",
            utf8_percent_encode(&svg, DATA_URI)
        ),
        "width": width,
        "height": height,
        "fontSize": font_size,
    }))
}

/// The largest whole size at which the text spans at most 80% of the width (assuming an
/// average glyph width of 0.6 em) and a quarter of the height.
fn auto_font_size(width: usize, height: usize, text: &str) -> usize {
    let chars = text.chars().count().max(1) as f64;
    let by_width = 0.8 * width as f64 / (0.6 * chars);
    let by_height = height as f64 / 4.0;
    (by_width.min(by_height).floor() as usize).max(1)
}

/// A CSS colour (name, #hex, rgb(), hsl(), …) written as hex, which every SVG renderer accepts;
/// an alpha below 1 becomes #rrggbbaa.
fn colour(args: &Args, name: &str) -> Result<String, ToolError> {
    let given = args.str(name)?.trim();
    let colour = csscolorparser::parse(given).map_err(|e| {
        ToolError::invalid(format!(
            "{name} '{}' is not a CSS colour such as #cccccc, #ccc, gray or rgb(204, 204, 204): {e}",
            crate::text::preview(given, 40)
        ))
    })?;
    Ok(colour.to_css_hex().to_string())
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use quick_xml::Reader;
    use quick_xml::events::Event;
    use serde_json::json;

    #[test]
    fn exact_svg_for_defaults() {
        let data = run_ok(
            "svg-placeholder-generator",
            json!({"width": 300, "height": 150}),
        );
        assert_eq!(
            data["output"],
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"150\" viewBox=\"0 0 300 150\">\n  <rect width=\"100%\" height=\"100%\" fill=\"#cccccc\"/>\n  <text x=\"50%\" y=\"50%\" fill=\"#333333\" font-family=\"sans-serif\" font-size=\"37\" text-anchor=\"middle\" dominant-baseline=\"central\">300×150</text>\n</svg>"
        );
        assert_eq!(data["fontSize"], 37);
    }

    #[test]
    fn escapes_text_and_parses_as_xml() {
        let data = run_ok(
            "svg-placeholder-generator",
            json!({"width": 200, "height": 100, "text": "<Tom & \"Jerry\">", "fontSize": 12, "fontFamily": "Georgia, 'Times New Roman'"}),
        );
        let svg = data["output"].as_str().unwrap();
        assert!(
            svg.contains(">&lt;Tom &amp; &quot;Jerry&quot;&gt;</text>"),
            "{svg}"
        );
        assert!(
            svg.contains("font-family=\"Georgia, &apos;Times New Roman&apos;\""),
            "{svg}"
        );
        let mut reader = Reader::from_str(svg);
        reader.config_mut().check_end_names = true;
        let mut elements = Vec::new();
        loop {
            match reader.read_event().expect("well-formed SVG") {
                Event::Start(e) | Event::Empty(e) => elements.push(e.name().as_ref().to_string()),
                Event::Eof => break,
                _ => {}
            }
        }
        assert_eq!(elements, ["svg", "rect", "text"]);
    }

    #[test]
    fn colours_are_normalised_and_data_uris_decode() {
        let data = run_ok(
            "svg-placeholder-generator",
            json!({"width": 10, "height": 10, "backgroundColor": "rebeccapurple", "textColor": "rgb(255 255 255 / 50%)", "showText": false}),
        );
        let svg = data["output"].as_str().unwrap();
        assert_eq!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\" viewBox=\"0 0 10 10\">\n  <rect width=\"100%\" height=\"100%\" fill=\"#663399\"/>\n</svg>"
        );
        use base64::Engine;
        let b64 = data["dataUri"]
            .as_str()
            .unwrap()
            .strip_prefix("data:image/svg+xml;base64,")
            .unwrap();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        assert_eq!(decoded, svg.as_bytes());
        let utf8 = data["dataUriUtf8"]
            .as_str()
            .unwrap()
            .strip_prefix("data:image/svg+xml;charset=utf-8,")
            .unwrap();
        assert!(
            utf8.starts_with("%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22"),
            "{utf8}"
        );
        assert_eq!(
            percent_encoding::percent_decode_str(utf8)
                .decode_utf8()
                .unwrap(),
            svg
        );
        let translucent = run_ok(
            "svg-placeholder-generator",
            json!({"width": 10, "height": 10, "textColor": "rgb(255 255 255 / 50%)"}),
        );
        assert!(
            translucent["output"]
                .as_str()
                .unwrap()
                .contains("fill=\"#ffffff80\"")
        );
    }

    #[test]
    fn rejects_bad_colours_and_sizes() {
        let (code, msg) = run_err(
            "svg-placeholder-generator",
            json!({"width": 10, "height": 10, "backgroundColor": "not-a-colour"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("backgroundColor"), "{msg}");
        let (code, _) = run_err(
            "svg-placeholder-generator",
            json!({"width": 0, "height": 10}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }
}
