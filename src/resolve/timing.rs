//! Timing spans for profiling resolution: `CMPX_RESOLVE_TIMING=1` prints each step's wall
//! time to stderr, so a slow `resolve` can be split into its parts without a profiler.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CMPX_RESOLVE_TIMING").is_some())
}

/// Prints how long since `since` under `what`, and restarts the clock.
pub fn span(what: &str, since: &mut Instant) {
    if enabled() {
        eprintln!(
            "timing {what}: {:.2} ms",
            since.elapsed().as_secs_f64() * 1000.0
        );
    }
    *since = Instant::now();
}
