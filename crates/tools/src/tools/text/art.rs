//! Text as pictures: FIGlet/TOIlet banner lettering, and emoji lookup by name or shortcode.

use crate::ctp::{ErrorCode, ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use figlet_rs::{FIGlet, Toilet};
use serde_json::{Value, json};
use std::collections::HashMap;
use unicode_segmentation::UnicodeSegmentation;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("ascii-art-generator", ascii_art_generator),
    Tool::new("emoji-lookup", emoji_lookup),
];

/// A bundled font of either kind; both render through the same FIGlet layout rules.
enum Font {
    Figlet(FIGlet),
    Toilet(Toilet),
}

impl Font {
    fn load(name: &str) -> Result<Font, String> {
        Ok(match name {
            "small" => Font::Figlet(FIGlet::small()?),
            "big" => Font::Figlet(FIGlet::big()?),
            "slant" => Font::Figlet(FIGlet::slant()?),
            "smblock" => Font::Toilet(Toilet::smblock()?),
            "mono9" => Font::Toilet(Toilet::mono9()?),
            "mono12" => Font::Toilet(Toilet::mono12()?),
            "future" => Font::Toilet(Toilet::future()?),
            "wideterm" => Font::Toilet(Toilet::wideterm()?),
            _ => Font::Figlet(FIGlet::standard()?),
        })
    }

    fn glyphs(&self) -> &HashMap<u32, figlet_rs::FIGcharacter> {
        match self {
            Font::Figlet(f) => &f.fonts,
            Font::Toilet(f) => &f.fonts,
        }
    }

    /// The rows of `text` rendered, trailing blanks trimmed; empty when nothing is renderable.
    fn rows(&self, text: &str) -> Vec<String> {
        let figure = match self {
            Font::Figlet(f) => f.convert(text),
            Font::Toilet(f) => f.convert(text),
        };
        figure
            .map(|f| f.to_string())
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect()
    }
}

fn rows_width(rows: &[String]) -> usize {
    rows.iter().map(|r| r.chars().count()).max().unwrap_or(0)
}

/// Renders one input line, breaking it at spaces (or inside a word too wide on its own) so
/// no row exceeds `width` characters, as figlet does with `-w`.
fn render_wrapped(font: &Font, line: &str, width: usize) -> Vec<Vec<String>> {
    let whole = font.rows(line);
    if width == 0 || rows_width(&whole) <= width {
        return vec![whole];
    }
    let fits = |s: &str| rows_width(&font.rows(s)) <= width;
    let mut figures = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, figures: &mut Vec<Vec<String>>| {
        if !current.is_empty() {
            figures.push(font.rows(current));
            current.clear();
        }
    };
    for word in line.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if current.is_empty() {
            word.to_string()
        } else {
            format!("{current} {word}")
        };
        if fits(&candidate) {
            current = candidate;
            continue;
        }
        flush(&mut current, &mut figures);
        for ch in word.chars() {
            current.push(ch);
            if !fits(&current) && current.chars().count() > 1 {
                current.pop();
                flush(&mut current, &mut figures);
                current.push(ch);
            }
        }
    }
    flush(&mut current, &mut figures);
    figures
}

fn ascii_art_generator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let font_name = args.str("font")?;
    let width = args.usize("width")?;
    let font = Font::load(font_name).map_err(|e| {
        ToolError::execution(format!("bundled font '{font_name}' failed to load: {e}"))
    })?;

    let mut unsupported: Vec<String> = Vec::new();
    for c in input.chars() {
        if c != '\n' && c != '\r' && !font.glyphs().contains_key(&(c as u32)) {
            let shown = c.to_string();
            if !unsupported.contains(&shown) {
                unsupported.push(shown);
            }
        }
    }
    let mut rows: Vec<String> = Vec::new();
    for line in input.lines() {
        for figure in render_wrapped(&font, line, width) {
            rows.extend(figure);
        }
    }
    if rows.iter().all(|r| r.is_empty()) {
        return Err(ToolError::invalid(format!(
            "none of the input's characters exist in the '{font_name}' font (it covers printable ASCII{}); unsupported: {}",
            if matches!(font, Font::Figlet(_)) {
                " and some Latin-1 letters"
            } else {
                ""
            },
            unsupported.join(" ")
        )));
    }
    Ok(json!({
        "output": rows.join("\n"),
        "font": font_name,
        "rows": rows.len(),
        "width": rows_width(&rows),
        "unsupported": unsupported,
    }))
}

/// The CLDR group names and the option values that select them.
const GROUPS: [(emojis::Group, &str, &str); 9] = [
    (
        emojis::Group::SmileysAndEmotion,
        "smileys-emotion",
        "Smileys & Emotion",
    ),
    (emojis::Group::PeopleAndBody, "people-body", "People & Body"),
    (
        emojis::Group::AnimalsAndNature,
        "animals-nature",
        "Animals & Nature",
    ),
    (emojis::Group::FoodAndDrink, "food-drink", "Food & Drink"),
    (
        emojis::Group::TravelAndPlaces,
        "travel-places",
        "Travel & Places",
    ),
    (emojis::Group::Activities, "activities", "Activities"),
    (emojis::Group::Objects, "objects", "Objects"),
    (emojis::Group::Symbols, "symbols", "Symbols"),
    (emojis::Group::Flags, "flags", "Flags"),
];

fn emoji_info(e: &emojis::Emoji) -> Value {
    let group = GROUPS
        .iter()
        .find(|(g, _, _)| *g == e.group())
        .map_or("", |(_, _, name)| name);
    let version = e.emoji_version();
    json!({
        "emoji": e.as_str(),
        "name": e.name(),
        "group": group,
        "shortcodes": e.shortcodes().collect::<Vec<_>>(),
        "codePoints": e.as_str().chars().map(|c| format!("U+{:04X}", c as u32)).collect::<Vec<_>>(),
        "emojiVersion": format!("{}.{}", version.major(), version.minor()),
        "hasSkinTones": e.skin_tones().is_some(),
    })
}

/// Lowercase alphanumeric words of a name or shortcode.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// How well `e` matches the query terms: 0 exact name or shortcode, 1 every term a whole word,
/// 2 every term a word prefix; None when some term matches no word.
fn rank(e: &emojis::Emoji, query: &str, terms: &[String]) -> Option<u8> {
    let joined = terms.join("_");
    if e.name().eq_ignore_ascii_case(query) || e.shortcodes().any(|s| s == joined) {
        return Some(0);
    }
    let mut vocab = words(e.name());
    for s in e.shortcodes() {
        vocab.extend(words(s));
    }
    if terms.iter().all(|t| vocab.contains(t)) {
        Some(1)
    } else if terms
        .iter()
        .all(|t| vocab.iter().any(|w| w.starts_with(t.as_str())))
    {
        Some(2)
    } else {
        None
    }
}

fn emoji_lookup(args: &Args) -> ToolOutcome {
    let query = args.str("query")?.trim();
    let limit = args.usize("limit")?;
    let group = args.str("group")?;
    if query.is_empty() {
        return Err(ToolError::invalid(
            "the query is empty; give an emoji, a :shortcode: or words from its name",
        ));
    }
    let in_group = |e: &emojis::Emoji| {
        group == "all"
            || GROUPS
                .iter()
                .any(|(g, v, _)| *v == group && *g == e.group())
    };

    // Glyphs: the emoji itself, or several pasted together.
    let glyphs: Option<Vec<&emojis::Emoji>> = emojis::get(query).map(|e| vec![e]).or_else(|| {
        query
            .graphemes(true)
            .filter(|g| !g.trim().is_empty())
            .map(emojis::get)
            .collect()
    });
    let (found, total, matched) = if let Some(list) = glyphs.filter(|l| !l.is_empty()) {
        let n = list.len();
        (list, n, "glyph")
    } else if let Some(code) = query.strip_prefix(':').and_then(|q| q.strip_suffix(':')) {
        let e = emojis::get_by_shortcode(code).ok_or_else(|| {
            ToolError::new(
                ErrorCode::NotFound,
                format!("no emoji has the shortcode :{code}: (GitHub gemoji shortcodes); search by name without the colons"),
            )
        })?;
        (vec![e], 1, "shortcode")
    } else {
        let terms = words(query);
        if terms.is_empty() {
            return Err(ToolError::invalid(format!(
                "'{query}' has no letters or digits to search for and is not an emoji; give words of an emoji's name or a :shortcode:"
            )));
        }
        let mut hits: Vec<(u8, usize, &emojis::Emoji)> = emojis::iter()
            .enumerate()
            .filter(|(_, e)| in_group(e))
            .filter_map(|(i, e)| rank(e, query, &terms).map(|r| (r, i, e)))
            .collect();
        hits.sort_by_key(|(r, i, _)| (*r, *i));
        let total = hits.len();
        (
            hits.into_iter().map(|(_, _, e)| e).collect(),
            total,
            "search",
        )
    };

    let results: Vec<Value> = found.iter().take(limit).map(|e| emoji_info(e)).collect();
    let output = found
        .iter()
        .take(limit)
        .map(|e| {
            let codes: Vec<String> = e.shortcodes().map(|s| format!(":{s}:")).collect();
            format!("{} {} {}", e.as_str(), e.name(), codes.join(" "))
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    Ok(json!({
        "output": output,
        "match": matched,
        "count": total,
        "results": results,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // `figlet -f standard Hi` (FIGlet 2.2.5), trailing spaces trimmed.
    const FIGLET_HI: &str = " _   _ _\n| | | (_)\n| |_| | |\n|  _  | |\n|_| |_|_|\n";

    #[test]
    fn ascii_art_matches_figlet_standard_font() {
        let data = run_ok("ascii-art-generator", json!({"input": "Hi"}));
        assert_eq!(data["output"], FIGLET_HI);
        assert_eq!(data["rows"], 6);
        assert_eq!(data["width"], 9);
        assert_eq!(data["unsupported"], json!([]));
    }

    #[test]
    fn ascii_art_other_fonts() {
        // `figlet -f small Test` and `figlet -f slant Hi`, trailing spaces trimmed.
        let small = run_ok(
            "ascii-art-generator",
            json!({"input": "Test", "font": "small"}),
        );
        assert_eq!(
            small["output"],
            " _____       _\n|_   _|__ __| |_\n  | |/ -_|_-<  _|\n  |_|\\___/__/\\__|\n"
        );
        let slant = run_ok(
            "ascii-art-generator",
            json!({"input": "Hi", "font": "slant"}),
        );
        assert_eq!(slant["output"], SLANT_HI);
    }

    const SLANT_HI: &str = "    __  ___\n   / / / (_)\n  / /_/ / /\n / __  / /\n/_/ /_/_/\n";

    #[test]
    fn ascii_art_wraps_to_width_and_reports_unsupported() {
        let data = run_ok(
            "ascii-art-generator",
            json!({"input": "Hi Hi\u{2603}", "width": 12}),
        );
        // Two figures of six rows each, the snowman skipped.
        assert_eq!(data["rows"], 12);
        assert_eq!(data["output"], format!("{FIGLET_HI}\n{FIGLET_HI}"));
        assert_eq!(data["unsupported"], json!(["\u{2603}"]));
        let lines = run_ok(
            "ascii-art-generator",
            json!({"input": "Hi\nHi", "width": 0}),
        );
        assert_eq!(lines["rows"], 12);
    }

    #[test]
    fn ascii_art_rejects_unrenderable_input() {
        let (code, msg) = run_err("ascii-art-generator", json!({"input": "\u{2603}\u{2603}"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("unsupported: \u{2603}"), "{msg}");
    }

    // Emoji data from Unicode CLDR and GitHub gemoji (":+1:"/":thumbsup:" is U+1F44D).
    #[test]
    fn emoji_by_shortcode() {
        let data = run_ok("emoji-lookup", json!({"query": ":thumbsup:"}));
        assert_eq!(data["output"], "👍 thumbs up :+1: :thumbsup:");
        let e = &data["results"][0];
        assert_eq!(e["emoji"], "👍");
        assert_eq!(e["codePoints"], json!(["U+1F44D"]));
        assert_eq!(e["group"], "People & Body");
        assert_eq!(e["hasSkinTones"], true);
        assert_eq!(data["match"], "shortcode");
    }

    #[test]
    fn emoji_search_by_name_and_shortcode_words() {
        let data = run_ok("emoji-lookup", json!({"query": "smile"}));
        assert_eq!(data["results"][0]["emoji"], "😄");
        assert_eq!(
            data["results"][0]["name"],
            "grinning face with smiling eyes"
        );
        assert_eq!(data["match"], "search");
        let rocket = run_ok("emoji-lookup", json!({"query": "rocket", "limit": 1}));
        assert_eq!(rocket["results"][0]["emoji"], "🚀");
        assert_eq!(rocket["results"].as_array().map(Vec::len), Some(1));
        let flags = run_ok(
            "emoji-lookup",
            json!({"query": "flag germany", "group": "flags"}),
        );
        assert_eq!(flags["results"][0]["emoji"], "🇩🇪");
    }

    #[test]
    fn emoji_glyph_lookup() {
        let data = run_ok("emoji-lookup", json!({"query": "😀🇫🇷"}));
        assert_eq!(data["match"], "glyph");
        assert_eq!(data["results"][0]["name"], "grinning face");
        assert_eq!(data["results"][1]["name"], "flag: France");
        assert_eq!(
            data["results"][1]["codePoints"],
            json!(["U+1F1EB", "U+1F1F7"])
        );
        assert_eq!(data["results"][0]["emojiVersion"], "1.0");
    }

    #[test]
    fn emoji_unknown_shortcode_is_not_found() {
        let (code, msg) = run_err("emoji-lookup", json!({"query": ":no_such_emoji:"}));
        assert_eq!(code, ErrorCode::NotFound);
        assert!(msg.contains(":no_such_emoji:"), "{msg}");
        let (code, msg) = run_err("emoji-lookup", json!({"query": "!!!"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("no letters"), "{msg}");
        let empty = run_ok("emoji-lookup", json!({"query": "zzzzqqq"}));
        assert_eq!(empty["count"], 0);
    }
}
