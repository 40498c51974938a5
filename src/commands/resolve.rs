//! `cmpx resolve <text>`: ranked candidates for a request, as JSON.

use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use crate::resolve::{self, Options};

pub fn run(mode: Mode, text: &str, top: usize, domain: Option<String>) -> Result<ExitCode, Error> {
    let opts = Options { top, domain };
    let (index, resolution) = resolve::index::load_then(&crate::paths::all_roots(), |index| {
        resolve::resolve(index, text, &opts)
    });
    // Never freed: the command ends right after, and freeing an index of 10,000 tools
    // allocation by allocation took a few milliseconds the exit does for free.
    std::mem::forget(index);
    if mode.is_json() {
        output::print_value(mode, &serde_json::to_value(&resolution).unwrap_or_default());
    } else if resolution.candidates.is_empty() {
        eprintln!("no installed tool matches {text:?}; `cmpx list` shows what is installed");
    } else {
        for c in &resolution.candidates {
            crate::outln!("{:.3}  {:24} {}", c.score, c.tool, c.command);
        }
        if resolution.ambiguous {
            eprintln!("(ambiguous: the best candidates are too close to call)");
        }
    }
    Ok(ExitCode::Success)
}
