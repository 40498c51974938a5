//! json-formatter and json-minifier as a plan over their input in pieces, in constant memory:
//! a resumable byte-level scanner that validates the JSON (RFC 8259, as strictly as serde_json)
//! and re-emits its tokens verbatim with new whitespace. One pass measures the output and finds
//! any error before a byte is printed; the second writes it, already escaped when it goes
//! inside the result envelope. The tools run this plan on text in memory as over a `@path`
//! file (`json::json_formatter`), so there is one formatter. Input it refuses (invalid JSON,
//! bytes that are not UTF-8) and sorted keys take `format::whole`, which reads the document
//! whole and names the error; the tests below compare the two (`tests/json_stream.rs` the file
//! and the text).

use crate::ctp::ToolError;
use crate::text::Utf8Stream;
use crate::tools::json::emit::Emitter;
use crate::tools::json::scan::{Invalid, Scanner, Sink};
use crate::tools::json::sink::{Count, Writer};
use crate::tools::kit::args::Args;
use crate::tools::kit::budget;
use crate::tools::kit::chunks::{Chunks, Stop};
use crate::tools::kit::plan::{Output, Plan};
use serde_json::{Map, Value};
use std::io::Write;

/// json-formatter over the input in pieces; sorted keys need the whole document.
pub(crate) fn plan_format<'a>(args: &Args, input: Chunks<'a>) -> Result<Option<Plan<'a>>, Stop> {
    if args.flag("sortKeys") {
        return Ok(None);
    }
    let unit: &'static [u8] = match args.str("indent")? {
        "4" => b"    ",
        "8" => b"        ",
        "tab" => b"\t",
        _ => b"  ",
    };
    plan(
        Style::new(Some(unit), args.flag("ensureAscii")),
        input,
        false,
    )
}

/// json-minifier over the input in pieces.
pub(crate) fn plan_minify<'a>(args: &Args, input: Chunks<'a>) -> Result<Option<Plan<'a>>, Stop> {
    if args.flag("sortKeys") {
        return Ok(None);
    }
    plan(Style::new(None, args.flag("ensureAscii")), input, true)
}

fn plan(style: Style, input: Chunks<'_>, sizes: bool) -> Result<Option<Plan<'_>>, Stop> {
    let mut count = Count::new(style.unit.unwrap_or_default());
    let mut original = 0u64;
    let scanned = run(style, input, &mut count, true, |n| original += n);
    match scanned {
        Ok(()) => {}
        // Refused: the ordinary path reads the input whole and says exactly what and where,
        // in serde_json's words (its reader over a file words some positions differently).
        Err(Stop::Tool(_)) => return Ok(None),
        Err(stop) => return Err(stop),
    }
    if count.raw > budget::output_ceiling() as u64 {
        return Err(Stop::Tool(crate::tools::json::formatted_too_large()));
    }
    let mut fields = Map::new();
    if sizes {
        fields.insert("originalSize".into(), Value::from(original));
        fields.insert("minifiedSize".into(), Value::from(count.raw));
    }
    let (raw, escaped_len) = (count.raw, count.escaped());
    let emit = Box::new(move |out: &mut dyn Write, escaped: bool| {
        let mut sink = Writer::new(out, style.unit, escaped);
        // The first pass found the input valid; a file changed since is caught by the caller's
        // check of its size and time of change, or by this pass (a bracket that closes nothing,
        // another length).
        let changed = || {
            Stop::Tool(ToolError::execution(
                "the input file changed while it was read",
            ))
        };
        let emitted = if style.ascii {
            // `\uXXXX` escapes need the scanner's view of each character.
            run(style, input, &mut sink, false, |_| {})
        } else {
            emit_valid(style, input, &mut sink, escaped)
        };
        emitted.map_err(|stop| match stop {
            Stop::Tool(_) => changed(),
            stop => stop,
        })?;
        let written = sink.flush().map_err(Stop::Io)?;
        if written != if escaped { escaped_len } else { raw } {
            return Err(changed());
        }
        Ok(())
    });
    Ok(Some(Plan {
        fields,
        output: Output::Escaping {
            len: count.raw,
            escaped_len: count.escaped(),
            emit,
        },
    }))
}

/// One pass of the scanner over the whole input into `sink`, checking that it is UTF-8 when
/// `utf8_check`; `seen` gets each piece's length.
fn run<S: Sink>(
    style: Style,
    input: Chunks<'_>,
    sink: &mut S,
    utf8_check: bool,
    mut seen: impl FnMut(u64),
) -> Result<(), Stop> {
    // The UTF-8 check runs on the thread that reads the file ahead of the scan.
    let mut scanner = Scanner::new(style.unit.is_some(), style.ascii, false);
    let mut utf8 = Utf8Stream::default();
    let invalid = |_: Invalid| Stop::Tool(ToolError::invalid("invalid JSON"));
    input.each_ahead(
        |piece| match utf8_check {
            true => utf8.push(piece).map_err(|e| invalid(e.into())),
            false => Ok(()),
        },
        |piece| {
            seen(piece.len() as u64);
            scanner.feed(piece, sink).map_err(invalid)
        },
    )?;
    utf8.end().map_err(|e| invalid(e.into()))?;
    scanner.end().map_err(invalid)
}

/// The second pass over input the first found valid: [`Emitter`] writes the same bytes as the
/// scanner would, faster.
fn emit_valid(
    style: Style,
    input: Chunks<'_>,
    sink: &mut Writer,
    escaped: bool,
) -> Result<(), Stop> {
    let mut emitter = Emitter::new(style.unit.is_some(), escaped);
    let changed = |_: Invalid| Stop::Tool(ToolError::invalid("invalid JSON"));
    input.each_ahead(
        |_| Ok(()),
        |piece| emitter.feed(piece, sink).map_err(changed),
    )?;
    emitter.end().map_err(changed)
}

/// What the output looks like.
#[derive(Clone, Copy)]
struct Style {
    /// The indentation unit; `None` minifies.
    unit: Option<&'static [u8]>,
    /// Non-ASCII characters in strings become `\uXXXX`.
    ascii: bool,
}

impl Style {
    fn new(unit: Option<&'static [u8]>, ascii: bool) -> Self {
        Style { unit, ascii }
    }
}

#[cfg(test)]
pub(crate) mod tests;
