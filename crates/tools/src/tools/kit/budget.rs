//! How much one tool call may build: the output text, and the values it holds as a tree.
//!
//! Output can outgrow its input many times over (indentation on every line of a deep document,
//! the subtree of every match, a replacement repeated per match), and a parsed tree takes 20 to
//! 200 bytes per value of dense input. Both are bounded here, so that memory stays proportional
//! to the input limit and a call ends with a clear INVALID_INPUT instead of exhausting memory.

use crate::ctp::ToolError;
use crate::limits::{MAX_INPUT_ENV, MAX_OUTPUT_ENV, human, max_input, max_output};
use std::fmt;
use std::io;

/// The most values (JSON values, YAML, TOML and XML nodes, HTML nodes, decoded items, matches)
/// a tool holds in memory at once. At the densest input (`[1,1,1,…]`) each costs 100–200 bytes
/// in the trees the parsers build, so this keeps a tree under about 1 GiB.
pub const MAX_VALUES: usize = 5_000_000;

/// The most matches a query tester lists, and the most changes a diff lists: each carries a
/// copy of its value and its path, and a list longer than this is no longer something to read.
pub const MAX_RESULTS: usize = 100_000;

/// The most output text a tool builds: twice the input limit (512 MiB by default), or the
/// output limit when that is higher. Past the output limit the result is truncated anyway;
/// what lies between the two is what `--output-file` receives in full.
pub fn output_ceiling() -> usize {
    let bytes = max_input().saturating_mul(2).max(max_output());
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// The error for output that would pass [`output_ceiling`]; `hint` says what to do instead.
pub fn output_too_large(what: &str, hint: &str) -> ToolError {
    ToolError::invalid(format!(
        "{what} would be larger than {}, the most output cmpx builds for one call (twice the input limit, {MAX_INPUT_ENV}); {hint}",
        human(output_ceiling() as u64)
    ))
}

/// The most text a structured result (matches, nodes) carries besides `output`: the output
/// limit, since only `output` is truncated to it.
pub fn result_ceiling() -> usize {
    usize::try_from(max_output()).unwrap_or(usize::MAX)
}

/// The error for a structured result that would pass [`result_ceiling`].
pub fn result_too_large(what: &str, hint: &str) -> ToolError {
    ToolError::invalid(format!(
        "{what} would be larger than {}, the output limit ({MAX_OUTPUT_ENV}); {hint}",
        human(result_ceiling() as u64)
    ))
}

/// The error for input with more than [`MAX_VALUES`] values; `unit` names them ("values",
/// "nodes", "matches").
pub fn too_many(what: &str, unit: &str, hint: &str) -> ToolError {
    too_many_of(MAX_VALUES, what, unit, hint)
}

/// [`too_many`] for a tool whose parser keeps more per value and so holds fewer.
pub fn too_many_of(limit: usize, what: &str, unit: &str, hint: &str) -> ToolError {
    ToolError::invalid(format!(
        "{what} has more than {} {unit}, the most this tool holds in memory for one call; {hint}",
        thousands(limit)
    ))
}

/// The error for a document over a format's own size limit (YAML, TOML), whose parser keeps
/// too much per byte for the general input limit to bound its memory; `why` says what.
pub fn input_too_large(what: &str, size: usize, limit: usize, why: &str) -> ToolError {
    ToolError::invalid(format!(
        "{what} is {}, more than the {} cmpx parses in this format: {why}; split it into smaller documents",
        human(size as u64),
        human(limit as u64)
    ))
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Counts values against a limit, [`MAX_VALUES`] by default.
pub struct Tally {
    pub count: usize,
    pub limit: usize,
}

impl Default for Tally {
    fn default() -> Self {
        Tally::new(MAX_VALUES)
    }
}

impl Tally {
    pub fn new(limit: usize) -> Self {
        Tally { count: 0, limit }
    }

    /// Adds one; false once the limit is passed.
    pub fn add(&mut self) -> bool {
        self.count += 1;
        self.count <= self.limit
    }
}

/// A buffer that refuses to grow past [`output_ceiling`], for printers that write through
/// `io::Write` or `fmt::Write`. After a refused write `over` is set; the printer's own error
/// is then replaced by [`output_too_large`].
pub struct Capped {
    buf: Vec<u8>,
    limit: usize,
    pub over: bool,
}

impl Capped {
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    pub fn with_capacity(capacity: usize) -> Self {
        let limit = output_ceiling();
        Capped {
            buf: Vec::with_capacity(capacity.min(limit)),
            limit,
            over: false,
        }
    }

    fn room(&mut self, n: usize) -> bool {
        if self.buf.len().saturating_add(n) > self.limit {
            self.over = true;
        }
        !self.over
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// The text written; printers that write through `fmt::Write` always produce UTF-8.
    pub fn into_string(self) -> String {
        String::from_utf8(self.buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

impl Default for Capped {
    fn default() -> Self {
        Self::new()
    }
}

impl io::Write for Capped {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if !self.room(bytes.len()) {
            return Err(io::Error::other("output ceiling reached"));
        }
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if !self.room(s.len()) {
            return Err(fmt::Error);
        }
        self.buf.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn the_ceiling_is_twice_the_input_limit_by_default() {
        // 256 MiB input limit (CMPX_MAX_INPUT unset in tests) → 512 MiB.
        assert_eq!(output_ceiling(), 512 << 20);
        let e = output_too_large("the formatted JSON", "use a smaller indent");
        assert_eq!(
            e.message,
            "the formatted JSON would be larger than 512.0 MiB, the most output cmpx builds for one call (twice the input limit, CMPX_MAX_INPUT); use a smaller indent"
        );
    }

    #[test]
    fn capped_buffers_refuse_to_pass_the_ceiling() {
        let mut c = Capped::new();
        c.limit = 4;
        assert!(c.write_all(b"abc").is_ok());
        assert!(!c.over);
        assert!(c.write_all(b"de").is_err());
        assert!(c.over);
        assert!(fmt::Write::write_str(&mut c, "x").is_err());
        assert_eq!(c.into_string(), "abc");
    }

    #[test]
    fn tallies_stop_after_the_limit() {
        let mut t = Tally {
            count: MAX_VALUES - 1,
            ..Tally::default()
        };
        assert!(t.add());
        assert!(!t.add());
        assert_eq!(
            too_many("input", "values", "split it").message,
            "input has more than 5,000,000 values, the most this tool holds in memory for one call; split it"
        );
    }
}
