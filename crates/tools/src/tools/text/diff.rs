//! Text diff (similar): unified diff text plus structured changes, by lines, words or characters.

use crate::ctp::ToolOutcome;
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use serde_json::{Value, json};
use similar::udiff::UnifiedHunkHeader;
use similar::{Algorithm, DiffOp};
use std::fmt::Write as _;
use std::time::Duration;
use unicode_segmentation::UnicodeSegmentation;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("text-diff", text_diff)];

/// Past this, Myers gives up on a minimal diff and returns a correct but coarser one.
const DIFF_TIMEOUT: Duration = Duration::from_secs(5);

fn text_diff(args: &Args) -> ToolOutcome {
    let original = args.str("original")?;
    let modified = args.str("modified")?;
    let granularity = args.str("granularity")?;
    let context = args.usize("contextLines")?;
    let ignore_ws = args.flag("ignoreWhitespace");
    let ignore_case = args.flag("ignoreCase");

    let old = tokens(original, granularity);
    let new = tokens(modified, granularity);
    // Compare normalised keys but report the original text.
    let key = |t: &&str| -> String {
        let t = if ignore_ws {
            if granularity == "lines" {
                t.split_whitespace().collect::<Vec<_>>().join(" ")
            } else if t.chars().all(char::is_whitespace) {
                " ".to_string()
            } else {
                t.to_string()
            }
        } else {
            t.to_string()
        };
        if ignore_case { t.to_lowercase() } else { t }
    };
    let deadline = std::time::Instant::now() + DIFF_TIMEOUT;
    let ops = similar::capture_diff_slices_by_key_deadline(
        Algorithm::Myers,
        &old,
        &new,
        key,
        Some(deadline),
    );

    // Whitespace between words is a token too, but not a word to count.
    let counts = |toks: &[&str]| {
        toks.iter()
            .filter(|t| granularity != "words" || !t.chars().all(char::is_whitespace))
            .count()
    };
    let (mut insertions, mut deletions, mut unchanged) = (0, 0, 0);
    let mut changes: Vec<Value> = Vec::new();
    let mut push = |tag: &str, toks: &[&str]| {
        if !toks.is_empty() {
            changes.push(json!({ "tag": tag, "text": toks.concat() }));
        }
    };
    for op in &ops {
        let o = &old[op.old_range()];
        let n = &new[op.new_range()];
        match op {
            DiffOp::Equal { .. } => {
                unchanged += counts(o);
                push("equal", o);
            }
            DiffOp::Delete { .. } => {
                deletions += counts(o);
                push("delete", o);
            }
            DiffOp::Insert { .. } => {
                insertions += counts(n);
                push("insert", n);
            }
            DiffOp::Replace { .. } => {
                deletions += counts(o);
                insertions += counts(n);
                push("delete", o);
                push("insert", n);
            }
        }
    }
    let identical = ops.iter().all(|op| matches!(op, DiffOp::Equal { .. }));
    let ratio = similar::diff_ratio(&ops, old.len(), new.len()) as f64;
    let output = if identical {
        String::new()
    } else {
        unified(&old, &new, ops, context, granularity == "lines")
    };
    Ok(json!({
        "output": output,
        "identical": identical,
        "insertions": insertions,
        "deletions": deletions,
        "unchanged": unchanged,
        "similarity": (ratio * 10000.0).round() / 10000.0,
        "changes": changes,
    }))
}

/// Lines keep their line endings; words are UAX #29 word-boundary pieces (words, punctuation,
/// whitespace runs); chars are grapheme clusters.
fn tokens<'a>(s: &'a str, granularity: &str) -> Vec<&'a str> {
    match granularity {
        "words" => s.split_word_bounds().collect(),
        "chars" => s.graphemes(true).collect(),
        _ => s.split_inclusive('\n').collect(),
    }
}

/// GNU-style unified diff. Each token gets one line; in line mode a last line without a newline
/// is marked "\ No newline at end of file" as diff(1) and git do.
fn unified(old: &[&str], new: &[&str], ops: Vec<DiffOp>, context: usize, lines: bool) -> String {
    let mut out = String::from("--- original\n+++ modified\n");
    for hunk in similar::group_diff_ops(ops, context) {
        let _ = writeln!(out, "{}", UnifiedHunkHeader::new(&hunk));
        for op in &hunk {
            let mut emit = |sign: char, toks: &[&str]| {
                for t in toks {
                    out.push(sign);
                    out.push_str(t);
                    if !lines {
                        out.push('\n');
                    } else if !t.ends_with('\n') {
                        out.push_str("\n\\ No newline at end of file\n");
                    }
                }
            };
            match op {
                DiffOp::Equal { .. } => emit(' ', &old[op.old_range()]),
                _ => {
                    emit('-', &old[op.old_range()]);
                    emit('+', &new[op.new_range()]);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // Same result as `diff -u` (GNU diffutils) with the labels original/modified.
    #[test]
    fn unified_line_diff() {
        let d = run_ok(
            "text-diff",
            json!({"original": "a\nb\nc\nd\n", "modified": "a\nB\nc\nd\ne\n"}),
        );
        assert_eq!(
            d["output"],
            "--- original\n+++ modified\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e\n"
        );
        assert_eq!(d["insertions"], 2);
        assert_eq!(d["deletions"], 1);
        assert_eq!(d["unchanged"], 3);
        assert_eq!(d["identical"], false);
        assert_eq!(
            d["changes"],
            json!([
                {"tag": "equal", "text": "a\n"},
                {"tag": "delete", "text": "b\n"},
                {"tag": "insert", "text": "B\n"},
                {"tag": "equal", "text": "c\nd\n"},
                {"tag": "insert", "text": "e\n"}
            ])
        );
        // similar's ratio: 2 * matches / total = 2*3 / 9.
        assert_eq!(d["similarity"], 0.6667);
    }

    #[test]
    fn context_lines_and_missing_newline() {
        let original = "1\n2\n3\n4\n5\n6\n7\n8\n9";
        let d = run_ok(
            "text-diff",
            json!({"original": original, "modified": "1\n2\n3\n4\n5\n6\n7\n8\nnine", "contextLines": 1}),
        );
        assert_eq!(
            d["output"],
            "--- original\n+++ modified\n@@ -8,2 +8,2 @@\n 8\n-9\n\\ No newline at end of file\n+nine\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn identical_and_ignore_options() {
        let d = run_ok(
            "text-diff",
            json!({"original": "same\n", "modified": "same\n"}),
        );
        assert_eq!(d["output"], "");
        assert_eq!(d["identical"], true);
        assert_eq!(d["similarity"], 1.0);
        let ws = run_ok(
            "text-diff",
            json!({"original": "a  b\nC\n", "modified": " a b \nc\n", "ignoreWhitespace": true, "ignoreCase": true}),
        );
        assert_eq!(ws["identical"], true);
        let empty = run_ok("text-diff", json!({"original": "", "modified": ""}));
        assert_eq!(empty["identical"], true);
    }

    #[test]
    fn word_and_char_granularity() {
        let d = run_ok(
            "text-diff",
            json!({"original": "the quick fox", "modified": "the slow fox", "granularity": "words"}),
        );
        assert_eq!(
            d["changes"],
            json!([
                {"tag": "equal", "text": "the "},
                {"tag": "delete", "text": "quick"},
                {"tag": "insert", "text": "slow"},
                {"tag": "equal", "text": " fox"}
            ])
        );
        assert_eq!(d["unchanged"], 2);
        // kitten → sitting: Levenshtein's classic example (3 edits).
        let c = run_ok(
            "text-diff",
            json!({"original": "kitten", "modified": "sitting", "granularity": "chars"}),
        );
        assert_eq!(c["deletions"], 2);
        assert_eq!(c["insertions"], 3);
        assert_eq!(c["unchanged"], 4);
    }

    #[test]
    fn rejects_bad_granularity() {
        let (code, msg) = run_err(
            "text-diff",
            json!({"original": "a", "modified": "b", "granularity": "bytes"}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("lines"), "{msg}");
    }
}
