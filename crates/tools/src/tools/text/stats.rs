//! Text statistics: Unicode-aware counts (UAX #29 graphemes, words, sentences), word frequency
//! and reading/speaking time estimates.

use crate::ctp::ToolOutcome;
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use unicode_segmentation::UnicodeSegmentation;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("text-statistics", text_statistics)];

/// Average silent reading rate for English non-fiction: Brysbaert, M. (2019), "How many words do
/// we read per minute? A review and meta-analysis of reading rate", Journal of Memory and
/// Language 109, 104047 (238 words per minute).
const READING_WPM: f64 = 238.0;
/// Typical conversational/presentation speaking rate (~150 words per minute), the figure used by
/// the National Center for Voice and Speech.
const SPEAKING_WPM: f64 = 150.0;

fn text_statistics(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let top_n = args.usize("topN")?;

    let words: Vec<&str> = input.unicode_words().collect();
    let word_lengths: Vec<usize> = words.iter().map(|w| w.graphemes(true).count()).collect();
    let longest = words
        .iter()
        .zip(&word_lengths)
        // max_by_key returns the last maximum; reversing keeps the first one instead.
        .rev()
        .max_by_key(|(_, len)| **len)
        .map_or("", |(w, _)| *w);
    let total_len: usize = word_lengths.iter().sum();
    let average = if words.is_empty() {
        0.0
    } else {
        round2(total_len as f64 / words.len() as f64)
    };

    let mut freq: HashMap<String, usize> = HashMap::new();
    for w in &words {
        *freq.entry(w.to_lowercase()).or_default() += 1;
    }
    let unique = freq.len();
    let mut top: Vec<(String, usize)> = freq.into_iter().collect();
    top.sort_by(|(wa, ca), (wb, cb)| cb.cmp(ca).then_with(|| wa.cmp(wb)));
    top.truncate(top_n);

    let characters = input.graphemes(true).count();
    let whitespace = input.chars().filter(|c| c.is_whitespace()).count();
    // unicode-segmentation 1.13 overflows on empty input, which has no sentences anyway.
    let prose = sentence_text(input);
    let sentences = if prose.is_empty() {
        0
    } else {
        prose
            .unicode_sentences()
            .filter(|s| s.chars().any(char::is_alphanumeric))
            .count()
    };
    let paragraphs = count_paragraphs(input);
    let seconds = |wpm: f64| (words.len() as f64 * 60.0 / wpm).round() as u64;
    let unique_graphemes: HashSet<&str> = input.graphemes(true).collect();

    Ok(json!({
        "characters": characters,
        "charactersNoSpaces": input.graphemes(true).filter(|g| !g.chars().all(char::is_whitespace)).count(),
        "codePoints": input.chars().count(),
        "bytes": input.len(),
        "words": words.len(),
        "uniqueWords": unique,
        "lines": line_breaks::lines(input).count(),
        "sentences": sentences,
        "paragraphs": paragraphs,
        "whitespace": whitespace,
        "uniqueCharacters": unique_graphemes.len(),
        "averageWordLength": average,
        "longestWord": longest,
        "readingTimeSeconds": seconds(READING_WPM),
        "speakingTimeSeconds": seconds(SPEAKING_WPM),
        "topWords": top.into_iter().map(|(word, count)| json!({"word": word, "count": count})).collect::<Vec<_>>(),
    }))
}

/// The text as sentence segmentation should see it. UAX #29 ends a sentence at every CR, LF,
/// NEL and LINE SEPARATOR (rule SB4, "Sep | CR | LF ÷"), so one sentence wrapped over three
/// lines counted as three. A line break is not a terminator: inside a paragraph it becomes a
/// space. A blank line still ends a sentence that has no terminator (a heading, a list item),
/// so paragraphs are joined by a PARAGRAPH SEPARATOR, which SB4 breaks after.
fn sentence_text(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    // A line break since the last text, and whether a blank line came with it.
    let mut broke = false;
    let mut blank = false;
    for (line, ending) in line_breaks::lines_with_endings(input) {
        if line.trim().is_empty() {
            blank |= broke;
            continue;
        }
        if broke {
            out.push(if blank { '\u{2029}' } else { ' ' });
        }
        out.extend(line.chars().map(|c| {
            if matches!(c, '\u{85}' | '\u{2028}') {
                ' '
            } else {
                c
            }
        }));
        broke = !ending.is_empty();
        blank = false;
    }
    out
}

/// Paragraphs are runs of non-blank lines separated by blank (whitespace-only) lines.
fn count_paragraphs(text: &str) -> usize {
    let mut count = 0;
    let mut in_paragraph = false;
    for line in line_breaks::lines(text) {
        let blank = line.trim().is_empty();
        if !blank && !in_paragraph {
            count += 1;
        }
        in_paragraph = !blank;
    }
    count
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn stats(input: &str) -> serde_json::Value {
        run_ok("text-statistics", json!({"input": input}))
    }

    #[test]
    fn empty_input_is_all_zero() {
        let d = stats("");
        for key in [
            "characters",
            "codePoints",
            "bytes",
            "words",
            "lines",
            "sentences",
            "paragraphs",
            "whitespace",
            "uniqueWords",
            "readingTimeSeconds",
        ] {
            assert_eq!(d[key], 0, "{key}");
        }
        assert_eq!(d["averageWordLength"], 0.0);
        assert_eq!(d["longestWord"], "");
        assert_eq!(d["topWords"], json!([]));
    }

    // UAX #29 examples: "can't" is one word; "e" + U+0301 is one grapheme but two code points.
    #[test]
    fn unicode_counts() {
        let d = stats("The quick (\"brown\") fox can't jump 32.3 feet, right? Cafe\u{301} 👨‍👩‍👧.");
        assert_eq!(d["words"], 10);
        assert_eq!(d["sentences"], 2);
        let cafe = stats("Cafe\u{301}");
        assert_eq!(cafe["characters"], 4);
        assert_eq!(cafe["codePoints"], 5);
        assert_eq!(cafe["bytes"], 6);
        let family = stats("👨‍👩‍👧");
        assert_eq!(family["characters"], 1);
        assert_eq!(family["codePoints"], 5);
        assert_eq!(family["bytes"], 18);
    }

    #[test]
    fn lines_paragraphs_and_frequency() {
        let d = stats("the cat and the hat.\nThe end\n\n\nA new paragraph here.\n");
        assert_eq!(d["lines"], 5);
        assert_eq!(d["paragraphs"], 2);
        assert_eq!(d["words"], 11);
        assert_eq!(d["uniqueWords"], 9);
        assert_eq!(d["longestWord"], "paragraph");
        assert_eq!(d["topWords"][0], json!({"word": "the", "count": 3}));
        // Ties are alphabetical: "a", "and", "cat" ...
        assert_eq!(d["topWords"][1], json!({"word": "a", "count": 1}));
        assert_eq!(d["topWords"][2], json!({"word": "and", "count": 1}));
        let top2 = run_ok("text-statistics", json!({"input": "b a b", "topN": 1}));
        assert_eq!(top2["topWords"], json!([{"word": "b", "count": 2}]));
    }

    // 238 words at 238 wpm (Brysbaert 2019) is 60 s; at 150 wpm it is 95.2 s.
    #[test]
    fn reading_and_speaking_time() {
        let text = vec!["word"; 238].join(" ");
        let d = stats(&text);
        assert_eq!(d["readingTimeSeconds"], 60);
        assert_eq!(d["speakingTimeSeconds"], 95);
        assert_eq!(d["averageWordLength"], 4.0);
        assert_eq!(d["whitespace"], 237);
    }

    #[test]
    fn a_line_break_does_not_end_a_sentence() {
        // One sentence wrapped over three lines, with each kind of line break.
        for br in ["\n", "\r", "\r\n", "\u{85}", "\u{2028}"] {
            let text = format!("The quick brown{br}fox jumps over{br}the lazy dog.{br}");
            assert_eq!(stats(&text)["sentences"], 1, "{br:?}");
        }
        let d = stats("It was wrapped\nhere. And the next one\r\nends here! Last?");
        assert_eq!(d["sentences"], 3);
        // A blank line (even one holding spaces) ends a paragraph, and with it a sentence that
        // has no terminator, such as a heading; U+2029 PARAGRAPH SEPARATOR does the same.
        assert_eq!(
            stats("Introduction\n\nThe text starts\nhere.")["sentences"],
            2
        );
        assert_eq!(stats("Item one\r\n \t\r\nItem two")["sentences"], 2);
        assert_eq!(stats("Title\u{2029}Body text.")["sentences"], 2);
    }

    #[test]
    fn rejects_negative_top_n() {
        let (code, _) = run_err("text-statistics", json!({"input": "a", "topN": -1}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }
}
