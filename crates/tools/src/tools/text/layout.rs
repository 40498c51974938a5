//! Text layout: wrapping and unwrapping paragraphs (textwrap), adding and removing line
//! numbers, and rendering CSV/TSV/JSON data as a text table (comfy-table, GFM pipe tables).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks::{self, lines_with_endings};
use crate::tools::kit::tool::Tool;
use crate::tools::text::replace::read_escapes;
use comfy_table::{
    CellAlignment, ContentArrangement, ContentLineStyle, LineStyle, Table, TableStyle,
};
use regex::Regex;
use serde_json::{Value, json};
use std::sync::OnceLock;
use textwrap::core::Word;
use textwrap::core::display_width;
use textwrap::{Options, WordSeparator, WordSplitter, WrapAlgorithm};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("text-wrapper", text_wrapper),
    Tool::new("line-numberer", line_numberer),
    Tool::new("table-formatter", table_formatter),
];

/// A URL or email address, which a line break would turn into two broken links.
fn is_link(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.contains("://")
        || lower.starts_with("www.")
        || lower.starts_with("mailto:")
        || (lower.contains('@') && lower.contains('.'))
}

/// Where a word may break after a hyphen (textwrap's default), except inside a link.
fn split_points_outside_urls(word: &str) -> Vec<usize> {
    if is_link(word) {
        Vec::new()
    } else {
        WordSplitter::HyphenSplitter.split_points(word)
    }
}

/// Words as textwrap's default (Unicode line-break opportunities, so CJK text and "a/b" can
/// break), except that a link between spaces stays one word: UAX #14 allows breaks after the
/// '/' and '-' in a URL.
fn words_keeping_links(line: &str) -> Box<dyn Iterator<Item = Word<'_>> + '_> {
    Box::new(
        WordSeparator::AsciiSpace
            .find_words(line)
            .flat_map(|w| -> Vec<Word<'_>> {
                if is_link(w.word) {
                    return vec![w];
                }
                let mut parts: Vec<Word<'_>> = WordSeparator::UnicodeBreakProperties
                    .find_words(w.word)
                    .collect();
                match parts.last_mut() {
                    Some(last) => last.whitespace = w.whitespace,
                    None => return vec![w],
                }
                parts
            }),
    )
}

/// The line ending the text mostly uses, for joining lines the tool creates.
fn line_ending(text: &str) -> &'static str {
    line_breaks::first_ending(text)
}

/// Paragraphs: runs of non-blank lines, separated by one or more blank lines.
fn paragraphs(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut current = Vec::new();
    for line in line_breaks::lines(text) {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn text_wrapper(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let eol = line_ending(input);
    let lines: Vec<String> = if args.str("mode")? == "unwrap" {
        let joined: Vec<String> = paragraphs(input)
            .iter()
            .map(|p| p.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "))
            .collect();
        joined
            .join(&format!("{eol}{eol}"))
            .split(eol)
            .map(String::from)
            .collect()
    } else {
        let width = args.usize("width")?;
        let algorithm = if args.str("algorithm")? == "optimal" {
            WrapAlgorithm::new_optimal_fit()
        } else {
            WrapAlgorithm::FirstFit
        };
        let options = Options::new(width)
            .break_words(args.flag("breakWords"))
            .initial_indent(args.opt_str("initialIndent").unwrap_or_default())
            .subsequent_indent(args.opt_str("subsequentIndent").unwrap_or_default())
            .wrap_algorithm(algorithm)
            .word_separator(WordSeparator::Custom(words_keeping_links))
            .word_splitter(WordSplitter::Custom(split_points_outside_urls));
        let wrap = |text: &str| -> Vec<String> {
            textwrap::wrap(text, &options)
                .into_iter()
                .map(|l| l.into_owned())
                .collect()
        };
        if args.flag("reflow") {
            let mut out = Vec::new();
            for (i, paragraph) in paragraphs(input).iter().enumerate() {
                if i > 0 {
                    out.push(String::new());
                }
                out.extend(wrap(&paragraph.join(" ")));
            }
            out
        } else {
            line_breaks::lines(input)
                .flat_map(|line| {
                    if line.trim().is_empty() {
                        vec![String::new()]
                    } else {
                        wrap(line)
                    }
                })
                .collect()
        }
    };
    let mut output = lines.join(eol);
    if input.ends_with('\n') && !output.is_empty() {
        output.push_str(eol);
    }
    let longest = lines.iter().map(|l| display_width(l)).max().unwrap_or(0);
    Ok(json!({ "output": output, "lines": lines.len(), "longestLine": longest }))
}

/// A leading line number as `cat -n`, `nl` and editors write it: optional indent, digits, then
/// a tab, or an optional '.', ':', ')', ']' or '|' (optionally after a space) and a space.
/// "10:30" or "1.5" are not numbers followed by a separator, so they stay.
const LINE_NUMBER: &str = r"^[ \t]*\d+(?:\t|[ ]?[.:)\]|]?(?:[ ]|$))";

fn line_numberer(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "remove" {
        static RE: OnceLock<Option<Regex>> = OnceLock::new();
        let re = RE
            .get_or_init(|| Regex::new(LINE_NUMBER).ok())
            .as_ref()
            .ok_or_else(|| ToolError::execution("internal line-number pattern does not compile"))?;
        let mut changed = 0;
        let mut output = String::with_capacity(input.len());
        for (line, ending) in lines_with_endings(input) {
            match re.find(line) {
                Some(m) => {
                    changed += 1;
                    output.push_str(&line[m.end()..]);
                }
                None => output.push_str(line),
            }
            output.push_str(ending);
        }
        return Ok(json!({ "output": output, "linesChanged": changed }));
    }

    let mut number = args.i64("start")?;
    let increment = args.i64("increment")?;
    let width = args.usize("width")?;
    let padding = args.str("padding")?;
    let separator = read_escapes(args.str("separator")?, true);
    let skip_blank = args.flag("skipBlank");
    let mut numbered = 0;
    let mut last = None;
    let mut output = String::with_capacity(input.len() + input.len() / 4);
    for (line, ending) in lines_with_endings(input) {
        if skip_blank && line.is_empty() {
            output.push_str(ending);
            continue;
        }
        let label = match padding {
            "zero" => format!("{number:0width$}"),
            "left" => format!("{number:<width$}"),
            "none" => number.to_string(),
            _ => format!("{number:>width$}"),
        };
        output.push_str(&label);
        output.push_str(&separator);
        output.push_str(line);
        output.push_str(ending);
        numbered += 1;
        last = Some(number);
        number = number.checked_add(increment).ok_or_else(|| {
            ToolError::invalid(
                "line numbers overflow a 64-bit integer; use a smaller start or increment",
            )
        })?;
    }
    Ok(json!({ "output": output, "linesNumbered": numbered, "lastNumber": last }))
}

/// The table's cells, first row included, every row padded to the same width.
struct Grid {
    header: Option<Vec<String>>,
    rows: Vec<Vec<String>>,
    format: &'static str,
}

fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn parse_json_table(input: &str, header: bool) -> Result<Grid, ToolError> {
    let value = crate::tools::json::parse_value(input)?;
    let items = match value {
        Value::Array(items) => items,
        object @ Value::Object(_) => vec![object],
        other => {
            return Err(ToolError::invalid(format!(
                "JSON input must be an array of objects or of arrays, not a {}",
                match other {
                    Value::String(_) => "string",
                    Value::Number(_) => "number",
                    Value::Bool(_) => "boolean",
                    _ => "null",
                }
            )));
        }
    };
    if items.iter().all(Value::is_object) && !items.is_empty() {
        let mut keys: indexmap::IndexSet<String> = indexmap::IndexSet::new();
        for item in &items {
            for key in item.as_object().into_iter().flat_map(|o| o.keys()) {
                if !keys.contains(key) {
                    keys.insert(key.clone());
                }
            }
        }
        if items.len().saturating_mul(keys.len()) > MAX_CELLS {
            return Err(too_many_cells());
        }
        let keys: Vec<String> = keys.into_iter().collect();
        let rows = items
            .iter()
            .map(|item| {
                keys.iter()
                    .map(|k| item.get(k).map(cell_text).unwrap_or_default())
                    .collect()
            })
            .collect();
        return Ok(Grid {
            header: header.then_some(keys),
            rows,
            format: "json",
        });
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut count = 0usize;
    for (i, item) in items.iter().enumerate() {
        count += item.as_array().map_or(1, Vec::len);
        if count > MAX_CELLS {
            return Err(too_many_cells());
        }
        match item {
            Value::Array(cells) => rows.push(cells.iter().map(cell_text).collect()),
            Value::Object(_) => {
                return Err(ToolError::invalid(format!(
                    "JSON item {i} is an object but others are not; use an array of objects or an array of arrays"
                )));
            }
            scalar => rows.push(vec![cell_text(scalar)]),
        }
    }
    Ok(split_header(rows, header, "json"))
}

fn split_header(mut rows: Vec<Vec<String>>, header: bool, format: &'static str) -> Grid {
    let header = (header && !rows.is_empty()).then(|| rows.remove(0));
    Grid {
        header,
        rows,
        format,
    }
}

fn parse_delimited(
    input: &str,
    delimiter: u8,
    header: bool,
    format: &'static str,
) -> Result<Grid, ToolError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(input.as_bytes());
    let mut rows = Vec::new();
    let mut cells = 0usize;
    for record in reader.records() {
        let record = record.map_err(|e| {
            let at = e
                .position()
                .map(|p| format!(" at line {}", p.line()))
                .unwrap_or_default();
            ToolError::invalid(format!("input is not valid {format}{at}: {e}"))
        })?;
        cells += record.len();
        if cells > MAX_CELLS {
            return Err(too_many_cells());
        }
        rows.push(record.iter().map(String::from).collect());
    }
    Ok(split_header(rows, header, format))
}

/// Cells a table may have: comfy-table keeps a few hundred bytes for each, and a text table
/// this large is past reading anyway.
const MAX_CELLS: usize = 1_000_000;

fn too_many_cells() -> ToolError {
    crate::tools::kit::budget::too_many_of(
        MAX_CELLS,
        "the table",
        "cells (rows × columns, short rows padded)",
        "format a part of it",
    )
}

fn parse_table(input: &str, format: &str, header: bool) -> Result<Grid, ToolError> {
    let first_line = input.trim_start().lines().next().unwrap_or_default();
    match format {
        "json" => parse_json_table(input, header),
        "csv" => parse_delimited(input, b',', header, "csv"),
        "tsv" => parse_delimited(input, b'\t', header, "tsv"),
        _ if input.trim_start().starts_with(['[', '{']) => parse_json_table(input, header),
        _ if first_line.contains('\t') => parse_delimited(input, b'\t', header, "tsv"),
        _ if first_line.matches(';').count() > first_line.matches(',').count() => {
            parse_delimited(input, b';', header, "csv")
        }
        _ => parse_delimited(input, b',', header, "csv"),
    }
}

fn is_number(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty() && s.parse::<f64>().is_ok_and(f64::is_finite)
}

const ASCII: TableStyle = TableStyle::new()
    .top_border(LineStyle::new('+', '-', '+', '+'))
    .header_lines(ContentLineStyle::new('|', '|', '|'))
    .header_separator(LineStyle::new('+', '-', '+', '+'))
    .content_lines(ContentLineStyle::new('|', '|', '|'))
    .bottom_border(LineStyle::new('+', '-', '+', '+'));

const UNICODE: TableStyle = TableStyle::new()
    .top_border(LineStyle::new('┌', '─', '┬', '┐'))
    .header_lines(ContentLineStyle::new('│', '│', '│'))
    .header_separator(LineStyle::new('├', '─', '┼', '┤'))
    .content_lines(ContentLineStyle::new('│', '│', '│'))
    .bottom_border(LineStyle::new('└', '─', '┴', '┘'));

#[derive(Clone, Copy, PartialEq)]
enum Align {
    Auto,
    Left,
    Right,
    Center,
}

fn table_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if input.trim().is_empty() {
        return Err(ToolError::invalid(
            "input is empty; give CSV, TSV or JSON rows",
        ));
    }
    let mut grid = parse_table(input, args.str("format")?, args.flag("header"))?;
    let columns = grid
        .rows
        .iter()
        .chain(grid.header.iter())
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    // Short rows are padded to the widest: a ragged input can square its cell count.
    let lines = grid.rows.len() + usize::from(grid.header.is_some());
    if lines.saturating_mul(columns) > MAX_CELLS {
        return Err(too_many_cells());
    }
    // Every line is as wide as the widest cell of each column, so one long cell repeats its
    // width on every line.
    let mut widths = vec![0usize; columns];
    for row in grid.rows.iter().chain(grid.header.iter()) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let width: usize = widths.iter().map(|w| w + 3).sum::<usize>() + 2;
    if lines.saturating_mul(width) > crate::tools::kit::budget::output_ceiling() {
        return Err(crate::tools::kit::budget::output_too_large(
            "the table",
            "each column is as wide as its widest cell on every line: shorten the longest cells",
        ));
    }
    for row in grid.rows.iter_mut().chain(grid.header.iter_mut()) {
        row.resize(columns, String::new());
    }
    let align = match args.str("align")? {
        "left" => Align::Left,
        "right" => Align::Right,
        "center" => Align::Center,
        _ => Align::Auto,
    };
    let aligns: Vec<Align> = (0..columns)
        .map(|c| match align {
            Align::Auto
                if grid.rows.iter().any(|r| !r[c].trim().is_empty())
                    && grid
                        .rows
                        .iter()
                        .all(|r| r[c].trim().is_empty() || is_number(&r[c])) =>
            {
                Align::Right
            }
            other => other,
        })
        .collect();
    let style = args.str("style")?;
    let output = if style == "markdown" {
        markdown_table(&grid, &aligns)
    } else {
        boxed_table(&grid, &aligns, style)
    };
    Ok(json!({
        "output": output,
        "rows": grid.rows.len(),
        "columns": columns,
        "format": grid.format,
    }))
}

fn boxed_table(grid: &Grid, aligns: &[Align], style: &str) -> String {
    let mut table = Table::new();
    table
        .set_content_arrangement(ContentArrangement::Disabled)
        .force_no_tty();
    match style {
        "unicode" => table.load_style(UNICODE),
        "plain" => table.load_style(TableStyle::new()),
        _ => table.load_style(ASCII),
    };
    if let Some(header) = &grid.header {
        table.set_header(header.clone());
    }
    for row in &grid.rows {
        table.add_row(row.clone());
    }
    for (i, align) in aligns.iter().enumerate() {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(match align {
                Align::Right => CellAlignment::Right,
                Align::Center => CellAlignment::Center,
                _ => CellAlignment::Left,
            });
            if style == "plain" {
                // Two spaces between columns, none before the first.
                column.set_padding((0, 2));
            }
        }
    }
    table.trim_fmt()
}

/// A GitHub-flavoured Markdown pipe table, padded so the source reads as a table too.
fn markdown_table(grid: &Grid, aligns: &[Align]) -> String {
    let escape = |s: &str| {
        s.replace('|', "\\|")
            .replace("\r\n", "<br>")
            .replace('\n', "<br>")
    };
    // GFM requires a header row; without one it is left empty.
    let header: Vec<String> = match &grid.header {
        Some(h) => h.iter().map(|c| escape(c)).collect(),
        None => vec![String::new(); aligns.len()],
    };
    let rows: Vec<Vec<String>> = grid
        .rows
        .iter()
        .map(|r| r.iter().map(|c| escape(c)).collect())
        .collect();
    let widths: Vec<usize> = (0..aligns.len())
        .map(|c| {
            rows.iter()
                .map(|r| display_width(&r[c]))
                .chain([display_width(&header[c]), 3])
                .max()
                .unwrap_or(3)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .zip(aligns)
            .map(|((cell, &w), &a)| {
                let gap = w.saturating_sub(display_width(cell));
                match a {
                    Align::Right => format!("{}{cell}", " ".repeat(gap)),
                    Align::Center => {
                        format!("{}{cell}{}", " ".repeat(gap / 2), " ".repeat(gap - gap / 2))
                    }
                    _ => format!("{cell}{}", " ".repeat(gap)),
                }
            })
            .collect();
        format!("| {} |", padded.join(" | "))
    };
    let rule: Vec<String> = widths
        .iter()
        .zip(aligns)
        .map(|(&w, a)| match a {
            Align::Left => format!(":{}", "-".repeat(w - 1)),
            Align::Right => format!("{}:", "-".repeat(w - 1)),
            Align::Center => format!(":{}:", "-".repeat(w - 2)),
            Align::Auto => "-".repeat(w),
        })
        .collect();
    let mut out = vec![line(&header), format!("| {} |", rule.join(" | "))];
    out.extend(rows.iter().map(|r| line(r)));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err, run_ok};
    use serde_json::json;

    // Expected lines from Python's textwrap.wrap (greedy, like textwrap's FirstFit).
    #[test]
    fn wraps_greedily_like_python_textwrap() {
        let data = run_ok(
            "text-wrapper",
            json!({"input": "The quick brown fox jumps over the lazy dog", "width": 10}),
        );
        assert_eq!(
            data["output"],
            "The quick\nbrown fox\njumps over\nthe lazy\ndog"
        );
        assert_eq!(data["lines"], 5);
        assert_eq!(data["longestLine"], 10);
        assert_eq!(
            output_with("text-wrapper", "Supercalifragilistic", json!({"width": 5})),
            "Super\ncalif\nragil\nistic"
        );
        assert_eq!(
            output_with(
                "text-wrapper",
                "Supercalifragilistic is long",
                json!({"width": 5, "breakWords": false})
            ),
            "Supercalifragilistic\nis\nlong"
        );
    }

    #[test]
    fn urls_are_never_split_at_hyphens() {
        let text = "see https://my-long-site.example.com/some-path-here or mail first-last@my-site.org for more well-known things";
        assert_eq!(
            output_with(
                "text-wrapper",
                text,
                json!({"width": 20, "breakWords": false})
            ),
            "see\nhttps://my-long-site.example.com/some-path-here\nor mail\nfirst-last@my-site.org\nfor more well-known\nthings"
        );
        // Ordinary hyphenated words still break after a hyphen when they must.
        assert_eq!(
            output_with(
                "text-wrapper",
                "a state-of-the-art idea",
                json!({"width": 12, "breakWords": false})
            ),
            "a state-of-\nthe-art idea"
        );
    }

    #[test]
    fn wraps_with_indents_and_reflows_paragraphs() {
        assert_eq!(
            output_with(
                "text-wrapper",
                "Lorem ipsum dolor sit amet, consectetur adipiscing elit",
                json!({"width": 20, "initialIndent": "* ", "subsequentIndent": "  "})
            ),
            "* Lorem ipsum dolor\n  sit amet,\n  consectetur\n  adipiscing elit"
        );
        // Hard-wrapped paragraphs are joined and rewrapped; the blank line between them stays.
        assert_eq!(
            output_with(
                "text-wrapper",
                "one two\nthree four\n\nfive six\nseven\n",
                json!({"width": 14, "reflow": true})
            ),
            "one two three\nfour\n\nfive six seven\n"
        );
        // CJK characters are two columns wide (UAX #11).
        assert_eq!(
            output_with("text-wrapper", "日本語 のテキスト", json!({"width": 8})),
            "日本語\nのテキス\nト"
        );
    }

    #[test]
    fn unwraps_hard_wrapped_text() {
        assert_eq!(
            output_with(
                "text-wrapper",
                "This is a\nhard-wrapped\n  paragraph.\n\n\nSecond one\nhere.",
                json!({"mode": "unwrap"})
            ),
            "This is a hard-wrapped paragraph.\n\nSecond one here."
        );
    }

    #[test]
    fn wrapper_rejects_zero_width() {
        let (code, _) = run_err("text-wrapper", json!({"input": "a b", "width": 0}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }

    // Defaults reproduce `printf 'a\n\nb\n' | cat -n` byte for byte.
    #[test]
    fn numbers_lines_like_cat_n() {
        assert_eq!(
            output_with("line-numberer", "a\n\nb\n", json!({})),
            "     1\ta\n     2\t\n     3\tb\n"
        );
        // `nl -b t` skips empty lines (nl pads them with spaces; here they stay empty).
        let data = run_ok(
            "line-numberer",
            json!({"input": "a\n\nb\nc\n", "skipBlank": true}),
        );
        assert_eq!(data["output"], "     1\ta\n\n     2\tb\n     3\tc\n");
        assert_eq!(data["linesNumbered"], 3);
        assert_eq!(data["lastNumber"], 3);
    }

    // `printf 'a\nb\n' | nl -n rz -w 3 -s '. '` prints "001. a\n002. b\n".
    #[test]
    fn numbers_with_zero_padding_start_and_step() {
        assert_eq!(
            output_with(
                "line-numberer",
                "a\nb\n",
                json!({"padding": "zero", "width": 3, "separator": ". "})
            ),
            "001. a\n002. b\n"
        );
        assert_eq!(
            output_with(
                "line-numberer",
                "x\r\ny\r\nz",
                json!({"start": 10, "increment": 10, "padding": "none", "separator": ": "})
            ),
            "10: x\r\n20: y\r\n30: z"
        );
        assert_eq!(
            output_with(
                "line-numberer",
                "a\nb",
                json!({"padding": "left", "width": 3, "separator": "\\t"})
            ),
            "1  \ta\n2  \tb"
        );
    }

    #[test]
    fn removes_line_numbers() {
        let data = run_ok(
            "line-numberer",
            json!({"input": "     1\tfn main() {\n     2\t    x();\n     3\t}\n", "mode": "remove"}),
        );
        assert_eq!(data["output"], "fn main() {\n    x();\n}\n");
        assert_eq!(data["linesChanged"], 3);
        assert_eq!(
            output_with(
                "line-numberer",
                "1. one\n2) two\n3: three\n10 | ten\n10:30 meeting\n1.5 GB",
                json!({"mode": "remove"})
            ),
            "one\ntwo\nthree\nten\n10:30 meeting\n1.5 GB"
        );
    }

    #[test]
    fn numberer_rejects_bad_padding() {
        let (code, msg) = run_err("line-numberer", json!({"input": "a", "padding": "dots"}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("zero"), "{msg}");
    }

    #[test]
    fn table_ascii_from_csv_numbers_right_aligned() {
        let data = run_ok(
            "table-formatter",
            json!({"input": "id,name,score\n1,Alice,93.5\n22,Bob,8\n"}),
        );
        assert_eq!(
            data["output"],
            "+----+-------+-------+\n\
             | id | name  | score |\n\
             +----+-------+-------+\n\
             |  1 | Alice |  93.5 |\n\
             | 22 | Bob   |     8 |\n\
             +----+-------+-------+"
        );
        assert_eq!(data["rows"], 2);
        assert_eq!(data["columns"], 3);
        assert_eq!(data["format"], "csv");
    }

    // GitHub Flavored Markdown spec §4.10 (tables): delimiter row with ':' for alignment.
    #[test]
    fn table_markdown_from_json_objects() {
        let data = run_ok(
            "table-formatter",
            json!({
                "input": r#"[{"name":"a|b","qty":3},{"name":"c","qty":12,"note":null}]"#,
                "style": "markdown"
            }),
        );
        assert_eq!(
            data["output"],
            "| name | qty | note |\n\
             | ---- | --: | ---- |\n\
             | a\\|b |   3 |      |\n\
             | c    |  12 |      |"
        );
        assert_eq!(data["format"], "json");
        assert_eq!(
            output_with(
                "table-formatter",
                "[[\"x\",\"y\"],[1,2]]",
                json!({"style": "markdown", "align": "center"})
            ),
            "|  x  |  y  |\n| :-: | :-: |\n|  1  |  2  |"
        );
    }

    #[test]
    fn table_unicode_and_plain_styles_from_tsv() {
        let input = "host\tport\nlocalhost\t8080\n";
        assert_eq!(
            output_with("table-formatter", input, json!({"style": "unicode"})),
            "┌───────────┬──────┐\n\
             │ host      │ port │\n\
             ├───────────┼──────┤\n\
             │ localhost │ 8080 │\n\
             └───────────┴──────┘"
        );
        assert_eq!(
            output_with("table-formatter", input, json!({"style": "plain"})),
            "host       port\nlocalhost  8080"
        );
        assert_eq!(
            output_with("table-formatter", "a;b\n1;2", json!({"header": false})),
            "+---+---+\n| a | b |\n| 1 | 2 |\n+---+---+"
        );
    }

    #[test]
    fn table_reports_bad_json_and_empty_input() {
        let (code, msg) = run_err("table-formatter", json!({"input": "[{\"a\": 1,}]"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("line 1, column 10"), "{msg}");
        let (code, _) = run_err("table-formatter", json!({"input": "  "}));
        assert_eq!(code, ErrorCode::InvalidInput);
        let (code, msg) = run_err("table-formatter", json!({"input": "42", "format": "json"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not a number"), "{msg}");
    }
}
