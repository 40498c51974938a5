//! Text clean-up: stripping terminal escape sequences (strip-ansi-escapes), removing or
//! tidying whitespace, Unicode normalisation (UAX #15) and removing diacritics.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use regex::Regex;
use serde_json::json;
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::OnceLock;
use unicode_normalization::UnicodeNormalization;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("ansi-stripper", ansi_stripper),
    Tool::new("whitespace-remover", whitespace_remover),
    Tool::new("unicode-normalizer", unicode_normalizer),
    Tool::new("diacritics-remover", diacritics_remover),
];

pub(super) use crate::tools::kit::line_breaks::lines_with_endings;

/// A regex compiled once per process from a constant pattern.
fn cached(cell: &'static OnceLock<Regex>, pattern: &str) -> Result<&'static Regex, ToolError> {
    if let Some(re) = cell.get() {
        return Ok(re);
    }
    let re = Regex::new(pattern)
        .map_err(|e| ToolError::execution(format!("internal pattern does not compile: {e}")))?;
    Ok(cell.get_or_init(|| re))
}

/// One match per escape sequence, for counting: CSI (ESC [ … final byte), OSC (ESC ] … BEL or
/// ESC \), DCS/SOS/PM/APC strings (ESC P/X/^/_ … ESC \) and two-byte ESC sequences (ECMA-48).
const ESCAPE_SEQUENCE: &str = r"(?s)\x1b\[[0-?]*[ -/]*[@-~]|\x1b\].*?(?:\x07|\x1b\\|$)|\x1b[PX^_].*?(?:\x1b\\|$)|\x1b[ -/]*[0-~]";

/// The ways an ESC character is commonly written out when a log was escaped once more.
const WRITTEN_ESC: &str = r"\\x1[bB]|\\033|\\u001[bB]|\\u\{1[bB]\}|\\e|\^\[";

fn ansi_stripper(args: &Args) -> ToolOutcome {
    static SEQUENCE: OnceLock<Regex> = OnceLock::new();
    static WRITTEN: OnceLock<Regex> = OnceLock::new();
    let raw = args.str("input")?;
    let input = if args.flag("writtenEscapes") {
        cached(&WRITTEN, WRITTEN_ESC)?.replace_all(raw, "\x1b")
    } else {
        raw.into()
    };
    let sequences = cached(&SEQUENCE, ESCAPE_SEQUENCE)?
        .find_iter(&input)
        .count();
    let output = strip_keeping_layout(&input)?;
    Ok(json!({
        "output": output,
        "sequencesRemoved": sequences,
        "bytesRemoved": raw.len().saturating_sub(output.len()),
    }))
}

/// A `Write` sink shared between the stripper and this module, so tabs and carriage returns
/// can be put back between the stripped pieces.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// strip-ansi-escapes drops every C0 control but the line feed, tabs and carriage returns
/// included; those are layout, not escapes, so they are written straight to the output
/// while a single parser (keeping its state across pieces) strips everything else.
fn strip_keeping_layout(input: &str) -> Result<String, ToolError> {
    let sink = Shared::default();
    let mut writer = strip_ansi_escapes::Writer::new(sink.clone());
    let io = |e: std::io::Error| ToolError::execution(format!("stripping failed: {e}"));
    for piece in input.split_inclusive(['\t', '\r']) {
        let (text, kept) = match piece.char_indices().next_back() {
            Some((i, c @ ('\t' | '\r'))) => (&piece[..i], Some(c as u8)),
            _ => (piece, None),
        };
        writer.write_all(text.as_bytes()).map_err(io)?;
        writer.flush().map_err(io)?;
        if let Some(byte) = kept {
            sink.0.borrow_mut().push(byte);
        }
    }
    drop(writer);
    let bytes = sink.0.take();
    String::from_utf8(bytes)
        .map_err(|e| ToolError::execution(format!("stripped text is not UTF-8: {e}")))
}

/// Unicode spaces that look like a plain space (no-break, en/em, thin, ideographic, …).
fn is_wide_space(c: char) -> bool {
    matches!(
        c,
        '\u{A0}' | '\u{1680}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// Invisible characters that only separate or mark text: zero-width space, word joiner,
/// byte-order mark, Mongolian vowel separator. ZWJ/ZWNJ stay: emoji and scripts need them.
fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}')
}

fn whitespace_remover(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let drop_char = |c: char| {
        (c == '\0' && args.flag("removeNullBytes"))
            || (c == ' ' && args.flag("removeSpaces"))
            || (c == '\t' && args.flag("removeTabs"))
            || ((c == '\x0C' || c == '\x0B') && args.flag("removeFormFeeds"))
            || (c == '.' && args.flag("removeFullStops"))
            || (is_zero_width(c) && args.flag("unicodeSpaces"))
    };
    let cleaned: String = input
        .chars()
        .filter(|&c| !drop_char(c))
        .map(|c| {
            if is_wide_space(c) && args.flag("unicodeSpaces") {
                ' '
            } else {
                c
            }
        })
        .collect();

    let (trim, collapse) = (args.flag("trimLines"), args.flag("collapseSpaces"));
    let mut lines_removed = 0;
    let mut out = String::with_capacity(cleaned.len());
    for (line, ending) in lines_with_endings(&cleaned) {
        let mut text = if collapse {
            collapse_runs(line)
        } else {
            line.to_string()
        };
        if trim {
            text = text.trim().to_string();
        }
        if args.flag("removeBlankLines") && text.trim().is_empty() {
            lines_removed += 1;
            continue;
        }
        out.push_str(&text);
        out.push_str(ending);
    }
    if args.flag("removeLineBreaks") {
        out.retain(|c| c != '\n' && c != '\r');
    }
    let removed = input.chars().count().saturating_sub(out.chars().count());
    Ok(json!({
        "output": out,
        "charactersRemoved": removed,
        "blankLinesRemoved": lines_removed,
    }))
}

/// Collapses each run of horizontal whitespace to one plain space.
fn collapse_runs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_run = false;
    for c in line.chars() {
        if c.is_whitespace() && c != '\r' {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

fn code_points(text: &str) -> Vec<String> {
    text.chars()
        .map(|c| format!("U+{:04X}", c as u32))
        .collect()
}

fn unicode_normalizer(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let form = args.str("form")?;
    let output: String = match form {
        "NFD" => input.nfd().collect(),
        "NFKC" => input.nfkc().collect(),
        "NFKD" => input.nfkd().collect(),
        _ => input.nfc().collect(),
    };
    let mut data = json!({
        "output": output,
        "form": form,
        "changed": output != input,
        "codePointsBefore": input.chars().count(),
        "codePointsAfter": output.chars().count(),
        "bytesBefore": input.len(),
        "bytesAfter": output.len(),
    });
    if args.flag("listCodePoints") {
        data["inputCodePoints"] = json!(code_points(input));
        data["outputCodePoints"] = json!(code_points(&output));
    }
    Ok(data)
}

/// Combining marks of the blocks that hold accents for Latin, Greek and Cyrillic letters.
/// Other scripts' marks (Indic vowel signs, Hebrew points, Arabic harakat) are part of
/// spelling there, so they stay.
fn is_diacritic(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}')
}

/// Latin letters outside ASCII: the ones with no decomposition (ø, ß, Ł, æ, đ) are
/// transliterated when asked, other scripts are left for tools that romanise on purpose.
fn is_latin_letter(c: char) -> bool {
    c.is_alphabetic()
        && matches!(c,
            '\u{00C0}'..='\u{024F}'
            | '\u{1E00}'..='\u{1EFF}'
            | '\u{2C60}'..='\u{2C7F}'
            | '\u{A720}'..='\u{A7FF}'
            | '\u{AB30}'..='\u{AB6F}'
            | '\u{FB00}'..='\u{FB06}')
}

fn diacritics_remover(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let transliterate = args.flag("transliterate");
    let mut marks = 0;
    let mut base = ' ';
    let stripped: String = input
        .nfd()
        .filter(|&c| {
            if !is_diacritic(c) {
                base = c;
                return true;
            }
            // Cyrillic й and ё are letters of their own, not accented и and е.
            if matches!(base, '\u{0400}'..='\u{052F}') {
                return true;
            }
            marks += 1;
            false
        })
        .collect();
    // Recompose, so what NFD split but had no accent removed (Hangul syllables, marks of
    // other scripts) comes back as it was.
    let recomposed: String = stripped.nfc().collect();
    let mut transliterated = 0;
    let output = if transliterate {
        let mut out = String::with_capacity(recomposed.len());
        for c in recomposed.chars() {
            match deunicode::deunicode_char(c).filter(|_| is_latin_letter(c)) {
                Some(ascii) => {
                    transliterated += 1;
                    out.push_str(ascii);
                }
                None => out.push(c),
            }
        }
        out
    } else {
        recomposed
    };
    Ok(json!({
        "output": output,
        "marksRemoved": marks,
        "lettersTransliterated": transliterated,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err, run_ok};
    use serde_json::json;

    #[test]
    fn ansi_strips_sgr_colours_and_cursor_moves() {
        let data = run_ok(
            "ansi-stripper",
            json!({"input": "\u{1b}[31mred\u{1b}[0m and \u{1b}[1;32mbold green\u{1b}[m"}),
        );
        assert_eq!(data["output"], "red and bold green");
        assert_eq!(data["sequencesRemoved"], 4);
        assert_eq!(data["bytesRemoved"], 5 + 4 + 7 + 3);
        // Cursor up, erase line (CSI A, CSI 2K) from a progress bar; tabs and CRLF stay.
        assert_eq!(
            output_with("ansi-stripper", "a\tb\u{1b}[1A\u{1b}[2K\r\nc", json!({})),
            "a\tb\r\nc"
        );
    }

    // OSC 8 hyperlink and OSC 0 window title, as terminals document them
    // (gist.github.com/egmontkob/eb114294efbcd5adb1944c9f3cb5feda).
    #[test]
    fn ansi_strips_osc_hyperlinks_and_titles() {
        let link = "\u{1b}]8;;https://example.com\u{1b}\\This is a link\u{1b}]8;;\u{1b}\\";
        let data = run_ok("ansi-stripper", json!({ "input": link }));
        assert_eq!(data["output"], "This is a link");
        assert_eq!(data["sequencesRemoved"], 2);
        let data = run_ok(
            "ansi-stripper",
            json!({"input": "\u{1b}]0;title\u{7}prompt$ "}),
        );
        assert_eq!(data["output"], "prompt$ ");
        assert_eq!(data["sequencesRemoved"], 1);
    }

    #[test]
    fn ansi_reads_written_out_escapes_on_request() {
        let written = r"\x1b[31mERROR\u001b[0m: \033[1mdisk full\e[0m";
        assert_eq!(
            output_with("ansi-stripper", written, json!({})),
            written,
            "literal backslashes are text unless asked"
        );
        assert_eq!(
            output_with("ansi-stripper", written, json!({"writtenEscapes": true})),
            "ERROR: disk full"
        );
    }

    #[test]
    fn ansi_keeps_plain_text_and_rejects_bad_flag() {
        let data = run_ok("ansi-stripper", json!({"input": "héllo\n世界\n"}));
        assert_eq!(data["output"], "héllo\n世界\n");
        assert_eq!(data["sequencesRemoved"], 0);
        let (code, _) = run_err(
            "ansi-stripper",
            json!({"input": "x", "writtenEscapes": "maybe"}),
        );
        assert_eq!(code, ErrorCode::TypeError);
    }

    #[test]
    fn whitespace_defaults_trim_and_collapse() {
        let data = run_ok(
            "whitespace-remover",
            json!({"input": "  hello    world \t\n\tfoo  bar  \r\n"}),
        );
        assert_eq!(data["output"], "hello world\nfoo bar\r\n");
        assert_eq!(data["charactersRemoved"], 11);
    }

    // The options of CyberChef's "Remove whitespace" and "Remove null bytes" operations.
    #[test]
    fn whitespace_cyberchef_style_removals() {
        let all = json!({"removeSpaces": true, "removeTabs": true, "removeLineBreaks": true,
            "removeFormFeeds": true, "removeFullStops": true});
        assert_eq!(
            output_with(
                "whitespace-remover",
                "Hello, World.\n\tHow\x0Care you?\r\n",
                all
            ),
            "Hello,WorldHowareyou?"
        );
        assert_eq!(
            output_with(
                "whitespace-remover",
                "a\0b\0c",
                json!({"removeNullBytes": true})
            ),
            "abc"
        );
    }

    #[test]
    fn whitespace_blank_lines_and_unicode_spaces() {
        let data = run_ok(
            "whitespace-remover",
            json!({"input": "one\n\n   \ntwo\n", "removeBlankLines": true}),
        );
        assert_eq!(data["output"], "one\ntwo\n");
        assert_eq!(data["blankLinesRemoved"], 2);
        // NO-BREAK SPACE and NARROW NBSP become spaces; ZERO WIDTH SPACE and BOM vanish.
        assert_eq!(
            output_with(
                "whitespace-remover",
                "\u{FEFF}10\u{A0}000\u{202F}€ zero\u{200B}width",
                json!({"unicodeSpaces": true})
            ),
            "10 000 € zerowidth"
        );
        assert_eq!(
            output_with(
                "whitespace-remover",
                "keep  as is ",
                json!({"trimLines": false, "collapseSpaces": false})
            ),
            "keep  as is "
        );
    }

    #[test]
    fn whitespace_rejects_wrong_type() {
        let (code, _) = run_err("whitespace-remover", json!({"input": 5}));
        assert_eq!(code, ErrorCode::TypeError);
    }

    // UAX #15 (Unicode Normalization Forms) examples.
    #[test]
    fn normalizer_uax15_examples() {
        let data = run_ok("unicode-normalizer", json!({"input": "e\u{301}"}));
        assert_eq!(data["output"], "\u{E9}");
        assert_eq!(data["changed"], true);
        assert_eq!(data["codePointsBefore"], 2);
        assert_eq!(data["codePointsAfter"], 1);
        assert_eq!(
            output_with("unicode-normalizer", "\u{212B}", json!({})),
            "\u{C5}"
        );
        assert_eq!(
            output_with("unicode-normalizer", "\u{FB01}", json!({"form": "NFKC"})),
            "fi"
        );
        assert_eq!(
            output_with("unicode-normalizer", "\u{FB01}", json!({"form": "NFC"})),
            "\u{FB01}"
        );
        assert_eq!(
            output_with("unicode-normalizer", "\u{2460}", json!({"form": "NFKC"})),
            "1"
        );
    }

    #[test]
    fn normalizer_decomposes_and_lists_code_points() {
        let data = run_ok(
            "unicode-normalizer",
            json!({"input": "\u{E9}\u{1E9B}\u{323}", "form": "NFD", "listCodePoints": true}),
        );
        // UAX #15 figure 6: ẛ̣ (U+1E9B U+0323) NFD → U+017F U+0323 U+0307.
        assert_eq!(
            data["outputCodePoints"],
            json!(["U+0065", "U+0301", "U+017F", "U+0323", "U+0307"])
        );
        assert_eq!(
            data["inputCodePoints"],
            json!(["U+00E9", "U+1E9B", "U+0323"])
        );
        assert_eq!(
            output_with(
                "unicode-normalizer",
                "\u{1E9B}\u{323}",
                json!({"form": "NFKD"})
            ),
            "s\u{323}\u{307}"
        );
        let same = run_ok("unicode-normalizer", json!({"input": "plain"}));
        assert_eq!(same["changed"], false);
    }

    #[test]
    fn normalizer_rejects_unknown_form() {
        let (code, msg) = run_err("unicode-normalizer", json!({"input": "x", "form": "NFX"}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("NFKC"), "{msg}");
    }

    #[test]
    fn diacritics_removed_like_cyberchef() {
        let data = run_ok("diacritics-remover", json!({"input": "Crème Brûlée"}));
        assert_eq!(data["output"], "Creme Brulee");
        assert_eq!(data["marksRemoved"], 3);
        assert_eq!(
            output_with(
                "diacritics-remover",
                "São Paulo, Ångström, Ελλάδα",
                json!({})
            ),
            "Sao Paulo, Angstrom, Ελλαδα"
        );
        // Already decomposed input and Vietnamese stacked marks.
        assert_eq!(
            output_with(
                "diacritics-remover",
                "Tie\u{302}\u{301}ng Vie\u{323}\u{302}t",
                json!({})
            ),
            "Tieng Viet"
        );
    }

    #[test]
    fn diacritics_transliterate_letters_without_decomposition() {
        assert_eq!(output_with("diacritics-remover", "Łódź", json!({})), "Łodz");
        let data = run_ok(
            "diacritics-remover",
            json!({"input": "Łódź, Øresund, Straße, Æsir", "transliterate": true}),
        );
        assert_eq!(data["output"], "Lodz, Oresund, Strasse, AEsir");
        assert_eq!(data["lettersTransliterated"], 4);
        // Other scripts are not romanised, and Hangul survives the NFD round trip.
        assert_eq!(
            output_with(
                "diacritics-remover",
                "日本 한국 Москва",
                json!({"transliterate": true})
            ),
            "日本 한국 Москва"
        );
        assert_eq!(
            output_with("diacritics-remover", "Йошкар-Ола, ёлка, café", json!({})),
            "Йошкар-Ола, ёлка, cafe"
        );
    }

    #[test]
    fn diacritics_requires_input() {
        let (code, _) = run_err("diacritics-remover", json!({}));
        assert_eq!(code, ErrorCode::MissingRequired);
    }
}
