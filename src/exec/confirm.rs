//! Consent before confirm/destructive intents. Only `--yes` or an answer typed at a terminal
//! gives it; no environment variable does.

use std::io::{BufRead, IsTerminal, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    Given,
    /// No terminal to ask and no `--yes`: nothing may run.
    Required,
    Declined,
}

/// Asks at the terminal when consent is needed; `warning` is what the person should know
/// before answering (that it cannot be undone, that nothing declares what it does).
pub fn obtain(
    needs_consent: bool,
    warning: Option<&str>,
    command_line: &str,
    yes: bool,
    interactive: bool,
) -> Consent {
    if !needs_consent || yes {
        return Consent::Given;
    }
    if !(interactive && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Consent::Required;
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "cmpx will run: {}",
        crate::text::escape_control(command_line)
    );
    if let Some(warning) = warning {
        let _ = writeln!(err, "{warning}");
    }
    let _ = write!(err, "Proceed? [y/N] ");
    let _ = err.flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return Consent::Declined;
    }
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Consent::Given,
        _ => Consent::Declined,
    }
}
