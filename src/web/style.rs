//! The embed's style parameters (CTP §10: `theme`, `accent`, `bg`, `text`, `font`,
//! `fontSize`, `radius`, `shadow`, `density`), checked so that a query string can only ever
//! set a colour, a font list or a number, never inject markup or CSS.

use super::esc;
use std::collections::HashMap;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Style {
    pub theme: Option<&'static str>,
    pub accent: Option<String>,
    pub bg: Option<String>,
    pub text: Option<String>,
    pub font: Option<String>,
    pub font_size: Option<u32>,
    pub radius: Option<u32>,
    pub shadow: Option<&'static str>,
    pub density: Option<&'static str>,
    /// The host page's origin, to which the embed posts its messages and whose messages it
    /// accepts (`origin=`).
    pub origin: Option<String>,
}

fn pick(value: &str, allowed: &[&'static str]) -> Option<&'static str> {
    allowed
        .iter()
        .copied()
        .find(|a| a.eq_ignore_ascii_case(value))
}

/// A CSS colour: `#rgb`–`#rrggbbaa`, a name, or `rgb()/hsl()/oklch()…` with plain arguments.
pub(crate) fn colour(v: &str) -> Option<String> {
    let v = v.trim();
    let ok = !v.is_empty()
        && v.len() <= 64
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"#(),.% /-".contains(&b))
        && (v.starts_with('#') || v.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()));
    // Only colour functions: `url(…)`, `image(…)` and friends would fetch something.
    let function_ok = v
        .split_once('(')
        .is_none_or(|(f, _)| COLOUR_FUNCTIONS.contains(&f.trim().to_ascii_lowercase().as_str()));
    (ok && function_ok && v.matches('(').count() <= 1).then(|| v.to_string())
}

const COLOUR_FUNCTIONS: &[&str] = &[
    "rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch", "oklab", "oklch", "color",
];

/// A font-family list: names, quotes, commas, spaces and hyphens.
pub(crate) fn font(v: &str) -> Option<String> {
    let v = v.trim();
    let ok = !v.is_empty()
        && v.len() <= 200
        && v.chars()
            .all(|c| c.is_alphanumeric() || " ,-_'\"".contains(c));
    ok.then(|| v.to_string())
}

fn number(v: &str, lo: u32, hi: u32) -> Option<u32> {
    let x: f64 = v.trim().trim_end_matches("px").parse().ok()?;
    (x.is_finite() && x >= f64::from(lo) && x <= f64::from(hi)).then(|| x.round() as u32)
}

/// An origin a page can have: `scheme://host[:port]`, nothing more.
pub(crate) fn origin(v: &str) -> Option<String> {
    let url = url::Url::parse(v).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let o = url.origin().ascii_serialization();
    (o == v.trim_end_matches('/')).then_some(o)
}

impl Style {
    /// From query parameters; values that fail their check are dropped (the page falls back
    /// to its defaults rather than refusing to show).
    pub(crate) fn from_query(q: &HashMap<String, String>) -> Style {
        let get = |k: &str| q.get(k).map(String::as_str);
        Style {
            theme: get("theme").and_then(|v| pick(v, &["light", "dark", "auto"])),
            accent: get("accent").and_then(colour),
            bg: get("bg").and_then(colour),
            text: get("text").and_then(colour),
            font: get("font").and_then(font),
            font_size: get("fontSize").and_then(|v| number(v, 8, 32)),
            radius: get("radius").and_then(|v| number(v, 0, 32)),
            shadow: get("shadow").and_then(|v| pick(v, &["none", "subtle", "medium", "large"])),
            density: get("density").and_then(|v| pick(v, &["compact", "normal", "comfortable"])),
            origin: get("origin").and_then(origin),
        }
    }

    /// The attributes on `<html>` that carry the style to page.css (theme, shadow, density)
    /// and to form.js (the values it sets as CSS variables).
    pub(crate) fn attributes(&self) -> String {
        let mut out = format!(" data-theme=\"{}\"", self.theme.unwrap_or("auto"));
        let mut add = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                out.push_str(&format!(" data-{k}=\"{}\"", esc(&v)));
            }
        };
        add("accent", self.accent.clone());
        add("bg", self.bg.clone());
        add("text", self.text.clone());
        add("font", self.font.clone());
        add("font-size", self.font_size.map(|x| x.to_string()));
        add("radius", self.radius.map(|x| x.to_string()));
        add("shadow", self.shadow.map(str::to_string));
        add("density", self.density.map(str::to_string));
        add("parent-origin", self.origin.clone());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn good_values_pass_and_injections_are_dropped() {
        let s = Style::from_query(&q(&[
            ("theme", "DARK"),
            ("accent", "#0d6efd"),
            ("bg", "rgb(17, 24, 39)"),
            ("text", "red;}body{x"),
            ("font", "Inter, \"Segoe UI\", sans-serif"),
            ("fontSize", "15px"),
            ("radius", "99"),
            ("shadow", "medium"),
            ("density", "tight"),
            ("origin", "http://127.0.0.1:8000"),
        ]));
        assert_eq!(s.theme, Some("dark"));
        assert_eq!(s.accent.as_deref(), Some("#0d6efd"));
        assert_eq!(s.bg.as_deref(), Some("rgb(17, 24, 39)"));
        assert_eq!(s.text, None);
        assert_eq!(s.font.as_deref(), Some("Inter, \"Segoe UI\", sans-serif"));
        assert_eq!(s.font_size, Some(15));
        assert_eq!(s.radius, None);
        assert_eq!(s.shadow, Some("medium"));
        assert_eq!(s.density, None);
        assert_eq!(s.origin.as_deref(), Some("http://127.0.0.1:8000"));
        assert_eq!(
            s.attributes(),
            " data-theme=\"dark\" data-accent=\"#0d6efd\" data-bg=\"rgb(17, 24, 39)\" data-font=\"Inter, &quot;Segoe UI&quot;, sans-serif\" data-font-size=\"15\" data-shadow=\"medium\" data-parent-origin=\"http://127.0.0.1:8000\""
        );
    }

    #[test]
    fn origins_are_bare_http_origins() {
        assert_eq!(
            origin("https://a.example"),
            Some("https://a.example".into())
        );
        assert_eq!(origin("https://a.example/path"), None);
        assert_eq!(origin("javascript:alert(1)"), None);
        assert_eq!(origin("null"), None);
        assert_eq!(colour("url(x)"), None);
        assert_eq!(font("x;y"), None);
    }
}
