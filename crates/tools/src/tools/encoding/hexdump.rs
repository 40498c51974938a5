//! Hex dumps: rendering bytes in the `hexdump -C` and `xxd` layouts, and parsing such dumps
//! (or any offset-plus-hex listing) back into bytes.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::encoding::encoders::{bytes_output, input_bytes};
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use serde_json::json;
use std::fmt::Write as _;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("hexdump-viewer", hexdump_viewer)];

fn hexdump_viewer(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "parse" {
        let (bytes, start) = parse_dump(input)?;
        let count = bytes.len();
        let (output, encoding) = bytes_output(bytes, args.str("outputFormat")?);
        return Ok(json!({
            "output": output,
            "mode": "parse",
            "outputEncoding": encoding,
            "byteCount": count,
            "startOffset": start,
        }));
    }
    let bytes = input_bytes("input", input, args.str("inputFormat")?)?;
    let layout = args.str("layout")?;
    let width = args.usize("width")?;
    let upper = args.flag("uppercase");
    let output = if layout == "xxd" {
        xxd(&bytes, width, args.usize("groupSize")?, upper)
    } else {
        canonical(&bytes, width, upper, args.flag("squeeze"))
    };
    Ok(json!({ "output": output, "mode": "dump", "layout": layout, "byteCount": bytes.len() }))
}

fn hex_byte(out: &mut String, b: u8, upper: bool) {
    let _ = if upper {
        write!(out, "{b:02X}")
    } else {
        write!(out, "{b:02x}")
    };
}

fn printable(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                char::from(b)
            } else {
                '.'
            }
        })
        .collect()
}

/// `hexdump -C`: 8-digit offset, bytes in groups of eight, `|ASCII|`, identical lines after
/// the first collapsed into `*`, and the total length on the last line.
fn canonical(bytes: &[u8], width: usize, upper: bool, squeeze: bool) -> String {
    let area = width * 3 + width.div_ceil(8).saturating_sub(1);
    let mut out = String::new();
    let mut previous: Option<&[u8]> = None;
    let mut starred = false;
    for (i, line) in bytes.chunks(width).enumerate() {
        if squeeze && line.len() == width && previous == Some(line) {
            if !starred {
                out.push_str("*\n");
                starred = true;
            }
            continue;
        }
        previous = Some(line);
        starred = false;
        let mut hex = String::with_capacity(area);
        for (j, &b) in line.iter().enumerate() {
            if j > 0 && j % 8 == 0 {
                hex.push(' ');
            }
            hex_byte(&mut hex, b, upper);
            hex.push(' ');
        }
        let _ = writeln!(out, "{:08x}  {hex:<area$} |{}|", i * width, printable(line));
    }
    if !bytes.is_empty() {
        let _ = writeln!(out, "{:08x}", bytes.len());
    }
    out
}

/// `xxd`: `offset: ` then the bytes in groups of `group` bytes, padded, two spaces, ASCII.
fn xxd(bytes: &[u8], width: usize, group: usize, upper: bool) -> String {
    let group = group.max(1);
    let area = width * 2 + width.div_ceil(group).saturating_sub(1);
    let mut out = String::new();
    for (i, line) in bytes.chunks(width).enumerate() {
        let mut hex = String::with_capacity(area);
        for (j, &b) in line.iter().enumerate() {
            if j > 0 && j % group == 0 {
                hex.push(' ');
            }
            hex_byte(&mut hex, b, upper);
        }
        let _ = writeln!(out, "{:08x}: {hex:<area$}  {}", i * width, printable(line));
    }
    out
}

/// Parses `hexdump -C`, `xxd` and plain `offset hex…` dumps. Returns the bytes and the first
/// line's offset. A `*` line repeats the line before it up to the next offset, as hexdump
/// squeezes repeats.
fn parse_dump(input: &str) -> Result<(Vec<u8>, u64), ToolError> {
    let mut out: Vec<u8> = Vec::new();
    let mut start: Option<u64> = None;
    let mut previous: Vec<u8> = Vec::new();
    let mut squeezed_at: Option<usize> = None;
    for (n, raw) in line_breaks::lines(input).enumerate() {
        let number = n + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if line == "*" {
            squeezed_at = Some(number);
            continue;
        }
        let token = line.split_whitespace().next().unwrap_or_default();
        let (offset_text, xxd_style) = match token.strip_suffix(':') {
            Some(t) => (t, true),
            None => (token, false),
        };
        let offset = u64::from_str_radix(offset_text, 16).map_err(|_| {
            ToolError::invalid(format!(
                "line {number}: expected a hex offset such as 00000010 at the start, found '{token}'"
            ))
        })?;
        let base = *start.get_or_insert(offset);
        let position = base + out.len() as u64;
        if offset != position {
            let repeat = squeezed_at.is_some() && offset > position && !previous.is_empty();
            let gap = offset.saturating_sub(position);
            if !repeat || gap % previous.len() as u64 != 0 {
                return Err(ToolError::invalid(format!(
                    "line {number}: offset 0x{offset:x} does not continue from the line before (expected 0x{position:x}){}",
                    if squeezed_at.is_some() {
                        ", and the '*' repeat does not fill the gap in whole lines"
                    } else {
                        ""
                    }
                )));
            }
            while (base + out.len() as u64) < offset {
                out.extend_from_slice(&previous);
            }
        }
        squeezed_at = None;
        let bytes = parse_hex_area(&line[token.len()..], xxd_style, number)?;
        if !bytes.is_empty() {
            out.extend_from_slice(&bytes);
            previous = bytes;
        }
    }
    if let Some(number) = squeezed_at {
        return Err(ToolError::invalid(format!(
            "line {number}: '*' (repeated lines) is not followed by an offset saying where the repeat ends"
        )));
    }
    Ok((out, start.unwrap_or(0)))
}

/// The bytes of one line after its offset, read by the layout of the dump it comes from; the
/// ASCII column may hold any character (`|`, spaces, letters that look like hex), so it is
/// found by where it sits, never by what it contains:
/// - xxd (`offset:`): groups of hex digits separated by single spaces, padded, then two spaces
///   and the ASCII column.
/// - hexdump -C and od -t x1z: byte tokens, then the column opened by `|` (`>`) and closed by
///   `|` (`<`) at the end of the line.
/// - other listings: hex tokens up to the first that is not hex, or up to an ASCII column that
///   follows a gap of two or more spaces and renders the bytes before it.
fn parse_hex_area(rest: &str, xxd_style: bool, number: usize) -> Result<Vec<u8>, ToolError> {
    if xxd_style {
        let body = rest.strip_prefix(' ').unwrap_or(rest);
        let area = body.split("  ").next().unwrap_or_default();
        return hex_tokens(area, number);
    }
    if let Some(open) = delimited_column(rest) {
        return hex_tokens(&rest[..open], number);
    }
    let mut bytes = Vec::new();
    // After each hex token: how many bytes have been read, and where the token ends.
    let mut ends = Vec::new();
    for (start, token) in tokens(rest) {
        if !is_hex(token) {
            break;
        }
        bytes.extend(hex_token(token, number)?);
        ends.push((bytes.len(), start + token.len()));
    }
    let column = ends
        .iter()
        .rev()
        .find(|&&(count, end)| renders_as_column(&bytes[..count], &rest[end..]));
    if let Some(&(count, _)) = column {
        bytes.truncate(count);
    }
    Ok(bytes)
}

/// Where the `|ASCII|` (hexdump -C) or `>ASCII<` (od -t x1z) column opens, if the line has
/// one: the first `|` or `>` that starts a word, closed by its partner at the end of the line.
/// Hex digits never contain either character, so the first opener is the column's.
fn delimited_column(rest: &str) -> Option<usize> {
    let end = rest.trim_end();
    tokens(rest).find_map(|(start, token)| {
        let close = match token.chars().next()? {
            '|' => '|',
            '>' => '<',
            _ => return None,
        };
        (end.len() > start + 1 && end.ends_with(close)).then_some(start)
    })
}

/// Whether `after` (the text after a line's hex tokens) is an undelimited ASCII column for
/// `bytes`: two or more spaces, then each byte as its character, or `.` when not printable.
/// Trailing spaces of the column may have been trimmed away.
fn renders_as_column(bytes: &[u8], after: &str) -> bool {
    let rendered = printable(bytes);
    let want = rendered.trim_end();
    let after = after.trim_end();
    if want.is_empty() || !after.ends_with(want) {
        return false;
    }
    let gap = &after[..after.len() - want.len()];
    gap.len() >= 2 && gap.bytes().all(|b| b == b' ' || b == b'\t')
}

/// The words of `text` with their byte offsets.
fn tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split(|c: char| c.is_ascii_whitespace())
        .scan(0, |at, word| {
            let start = *at;
            *at += word.len() + 1;
            Some((start, word))
        })
        .filter(|(_, word)| !word.is_empty())
}

fn is_hex(token: &str) -> bool {
    token.len().is_multiple_of(2) && token.bytes().all(|b| b.is_ascii_hexdigit())
}

fn hex_token(token: &str, number: usize) -> Result<Vec<u8>, ToolError> {
    hex::decode(token)
        .map_err(|e| ToolError::invalid(format!("line {number}: '{token}' is not hex: {e}")))
}

/// Every word of a hex area whose end is known: each must be whole hex bytes.
fn hex_tokens(area: &str, number: usize) -> Result<Vec<u8>, ToolError> {
    let mut bytes = Vec::new();
    for (_, token) in tokens(area) {
        if !is_hex(token) {
            return Err(ToolError::invalid(format!(
                "line {number}: '{token}' is not a group of hex bytes"
            )));
        }
        bytes.extend(hex_token(token, number)?);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err, run_ok};
    use serde_json::json;

    const TEXT: &str = "Hello, World!\nThis is a hexdump test.\n";

    // `printf 'Hello, World!\nThis is a hexdump test.\n' | hexdump -C` (util-linux).
    const HEXDUMP_C: &str = "\
00000000  48 65 6c 6c 6f 2c 20 57  6f 72 6c 64 21 0a 54 68  |Hello, World!.Th|
00000010  69 73 20 69 73 20 61 20  68 65 78 64 75 6d 70 20  |is is a hexdump |
00000020  74 65 73 74 2e 0a                                 |test..|
00000026
";

    // The same bytes through `xxd` (vim 9).
    const XXD: &str = "\
00000000: 4865 6c6c 6f2c 2057 6f72 6c64 210a 5468  Hello, World!.Th
00000010: 6973 2069 7320 6120 6865 7864 756d 7020  is is a hexdump 
00000020: 7465 7374 2e0a                           test..
";

    #[test]
    fn dumps_like_hexdump_c_and_xxd() {
        assert_eq!(output_with("hexdump-viewer", TEXT, json!({})), HEXDUMP_C);
        assert_eq!(
            output_with("hexdump-viewer", TEXT, json!({"layout": "xxd"})),
            XXD
        );
        // `xxd -u` uppercases the hex digits.
        let upper = output_with(
            "hexdump-viewer",
            TEXT,
            json!({"layout": "xxd", "uppercase": true}),
        );
        assert!(upper.starts_with("00000000: 4865 6C6C 6F2C 2057 6F72 6C64 210A 5468  Hello"));
    }

    #[test]
    fn dumps_other_widths_and_groups() {
        // `printf 'Hi\xff\x00\x7f\x80' | xxd -c 8` and `printf 'abc' | xxd -c 8 -g 1`.
        assert_eq!(
            output_with(
                "hexdump-viewer",
                "SGn/AH+A",
                json!({"layout": "xxd", "width": 8, "inputFormat": "base64"})
            ),
            "00000000: 4869 ff00 7f80       Hi....\n"
        );
        assert_eq!(
            output_with(
                "hexdump-viewer",
                "abc",
                json!({"layout": "xxd", "width": 8, "groupSize": 1})
            ),
            "00000000: 61 62 63                 abc\n"
        );
    }

    #[test]
    fn squeezes_repeated_lines_like_hexdump() {
        // `printf 'A%.0s' {1..48}; printf B` piped to `hexdump -C`.
        let input = format!("{}B", "A".repeat(48));
        let expected = "\
00000000  41 41 41 41 41 41 41 41  41 41 41 41 41 41 41 41  |AAAAAAAAAAAAAAAA|
*
00000030  42                                                |B|
00000031
";
        assert_eq!(output_with("hexdump-viewer", &input, json!({})), expected);
        assert_eq!(
            output_with("hexdump-viewer", expected, json!({"mode": "parse"})),
            input
        );
        // `head -c 64 /dev/zero | hexdump -C`: the squeeze runs to the final offset.
        let zeros = "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n00000040\n";
        let data = run_ok(
            "hexdump-viewer",
            json!({"input": zeros, "mode": "parse", "outputFormat": "hex"}),
        );
        assert_eq!(data["output"], "00".repeat(64));
    }

    #[test]
    fn parses_dumps_back_to_bytes() {
        assert_eq!(
            output_with("hexdump-viewer", HEXDUMP_C, json!({"mode": "parse"})),
            TEXT
        );
        assert_eq!(
            output_with("hexdump-viewer", XXD, json!({"mode": "parse"})),
            TEXT
        );
        // `od -A x -t x1z` style: offset, bytes, then >ASCII<.
        let od = "000000 48 65 6c 6c 6f 0a                                >Hello.<\n000006\n";
        assert_eq!(
            output_with("hexdump-viewer", od, json!({"mode": "parse"})),
            "Hello\n"
        );
        let binary = run_ok(
            "hexdump-viewer",
            json!({"input": "00000000: 4869 ff00 7f80       Hi....", "mode": "parse"}),
        );
        assert_eq!(binary["output"], "SGn/AH+A");
        assert_eq!(binary["outputEncoding"], "base64");
    }

    #[test]
    fn parses_ascii_columns_holding_bars_spaces_and_hex_letters() {
        // `printf 'a|b' | xxd` (vim 9.1): the ASCII column is not part of the hex area,
        // whatever it holds.
        let xxd = "00000000: 617c 62                                  a|b\n";
        assert_eq!(
            output_with("hexdump-viewer", xxd, json!({"mode": "parse"})),
            "a|b"
        );
        // `printf 'a|b' | hexdump -C` (util-linux 2.39).
        let canonical =
            "00000000  61 7c 62                                          |a|b|\n00000003\n";
        assert_eq!(
            output_with("hexdump-viewer", canonical, json!({"mode": "parse"})),
            "a|b"
        );
        // `printf 'a>b<' | od -A x -t x1z` (coreutils 9.4).
        let od = "000000 61 3e 62 3c                                      >a>b<<\n000004\n";
        assert_eq!(
            output_with("hexdump-viewer", od, json!({"mode": "parse"})),
            "a>b<"
        );
        // `printf 'ab cd' | xxd` and `printf 'ab cd 01' | xxd -g1`: columns of hex letters
        // and spaces.
        let xxd = "00000000: 6162 2063 64                             ab cd\n";
        assert_eq!(
            output_with("hexdump-viewer", xxd, json!({"mode": "parse"})),
            "ab cd"
        );
        let xxd = "00000000: 61 62 20 63 64 20 30 31                          ab cd 01\n";
        assert_eq!(
            output_with("hexdump-viewer", xxd, json!({"mode": "parse"})),
            "ab cd 01"
        );
        // `printf '| ab |' | hexdump -C`: the column opens and closes with a bar of its own.
        let canonical =
            "00000000  7c 20 61 62 20 7c                                 || ab ||\n00000006\n";
        assert_eq!(
            output_with("hexdump-viewer", canonical, json!({"mode": "parse"})),
            "| ab |"
        );
        // A listing whose ASCII column has no delimiters: the column that renders the bytes
        // before it is not read as more bytes, and a plain hex listing is read to its end.
        let plain = "0000   61 62 20 63 0a   ab c.\n0005\n";
        assert_eq!(
            output_with("hexdump-viewer", plain, json!({"mode": "parse"})),
            "ab c\n"
        );
        let data = run_ok(
            "hexdump-viewer",
            json!({"input": "0000 34 35 45 ab\n", "mode": "parse", "outputFormat": "hex"}),
        );
        assert_eq!(data["output"], "343545ab");
    }

    #[test]
    fn parse_errors_name_the_line() {
        let (code, msg) = run_err(
            "hexdump-viewer",
            json!({"input": "00000000  48 65 6x  |He.|", "mode": "parse"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("line 1: '6x'"), "{msg}");
        let (_, msg) = run_err(
            "hexdump-viewer",
            json!({"input": "00000000: 4865  He\n00000010: 6c6c  ll", "mode": "parse"}),
        );
        assert!(
            msg.contains("line 2: offset 0x10") && msg.contains("expected 0x2"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "hexdump-viewer",
            json!({"input": "hello world", "mode": "parse"}),
        );
        assert!(msg.contains("expected a hex offset"), "{msg}");
    }
}
