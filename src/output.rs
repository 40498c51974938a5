//! Output facets: JSON for agents, a readable rendering for people. Decided once per process.

use crate::ctp::ToolResult;
use serde_json::Value;
use std::io::{IsTerminal, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One JSON document on stdout; `pretty` indents it.
    Json { pretty: bool },
    /// A person at a terminal: data rendered plainly, errors on stderr.
    Human,
}

impl Mode {
    /// Agent mode when `--json` was given, `CMP_AGENT=1`, or stdout is not a terminal.
    pub fn detect(json_flag: bool, pretty: bool) -> Mode {
        let agent_env = std::env::var("CMP_AGENT").is_ok_and(|v| v == "1");
        if json_flag || agent_env || !std::io::stdout().is_terminal() {
            Mode::Json { pretty }
        } else {
            Mode::Human
        }
    }

    pub fn is_json(self) -> bool {
        matches!(self, Mode::Json { .. })
    }
}

/// Prints one JSON document (or its human rendering) to stdout.
pub(crate) fn print_value(mode: Mode, value: &Value) {
    let text = match mode {
        Mode::Json { pretty: false } => serde_json::to_string(value),
        Mode::Json { pretty: true } | Mode::Human => serde_json::to_string_pretty(value),
    }
    .unwrap_or_else(|_| "null".to_string());
    write_stdout(&text);
}

/// Prints a ToolResult: the envelope in JSON mode; the data (or the error) for a person.
pub(crate) fn print_result(mode: Mode, result: &ToolResult) {
    if let Mode::Json { pretty } = mode {
        // Serialised straight into the buffered stdout: a large result is never copied into an
        // intermediate Value or String.
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let written = if pretty {
            serde_json::to_writer_pretty(&mut out, result)
        } else {
            serde_json::to_writer(&mut out, result)
        };
        if written.is_ok() {
            let _ = out.write_all(b"\n");
        }
        let _ = out.flush();
        return;
    }
    if result.success {
        match &result.data {
            Some(Value::Object(map)) if map.get("output").is_some_and(Value::is_string) => {
                write_stdout(map["output"].as_str().unwrap_or_default());
            }
            // An external program's result: its own output, as it printed it.
            Some(Value::Object(map)) if map.contains_key("stdoutFormat") => {
                if let Some(err) = map.get("stderr").and_then(Value::as_str)
                    && !err.is_empty()
                {
                    eprint!("{err}");
                }
                match map.get("stdout") {
                    Some(Value::String(text)) if text.is_empty() => {}
                    Some(Value::String(text)) => write_stdout(text),
                    Some(other) => print_value(mode, other),
                    None => {}
                }
            }
            Some(Value::String(s)) => write_stdout(s),
            Some(other) => print_value(mode, other),
            None => {}
        }
    } else {
        let code = result.error_code.map(|c| c.as_str()).unwrap_or("ERROR");
        eprintln!(
            "error [{code}]: {}",
            crate::text::escape_control(result.error.as_deref().unwrap_or("unknown error"))
        );
        if let Some(data) = &result.data {
            eprintln!("{}", serde_json::to_string_pretty(data).unwrap_or_default());
        }
    }
}

/// `println!` that ignores a closed stdout (e.g. `cmpx list | head`) instead of panicking.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}
