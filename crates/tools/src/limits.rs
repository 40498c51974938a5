//! Resource limits: their defaults and the environment variables that override them.
//!
//! Sizes accept a plain byte count or a suffix: `64K`, `16M`, `2G` (powers of 1024). A value
//! that does not parse is ignored with a warning, so a typo cannot silently lift a limit.

/// Largest value one parameter may carry, inline, from stdin or from `@path`.
pub const DEFAULT_MAX_INPUT: u64 = 256 << 20;
/// Largest `output` a built-in tool returns before it is truncated (with a warning).
pub const DEFAULT_MAX_OUTPUT: u64 = 64 << 20;
/// Most tool folders read from one root; a home with more is cut off with a warning.
pub const DEFAULT_MAX_TOOLS: usize = 50_000;
/// Memory one worker process (one built-in tool call) may allocate (`RLIMIT_DATA`).
pub const DEFAULT_MAX_MEMORY: u64 = 1536 << 20;
/// Most bytes a streamed recipe (`cmpx pipe` from `@path` to `--output-file`) writes. The output
/// goes to disk, not memory, so this only stops a decompression bomb from filling the disk.
pub const DEFAULT_MAX_STREAM_OUTPUT: u64 = 16 << 30;
/// How long a tool or an external program may run (`--timeout` overrides it per call).
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

pub const MAX_INPUT_ENV: &str = "CMPX_MAX_INPUT";
pub const MAX_OUTPUT_ENV: &str = "CMPX_MAX_OUTPUT";
pub const MAX_TOOLS_ENV: &str = "CMPX_MAX_TOOLS";
pub const MAX_MEMORY_ENV: &str = "CMPX_MAX_MEMORY";
pub const MAX_STREAM_OUTPUT_ENV: &str = "CMPX_MAX_STREAM_OUTPUT";

pub fn max_input() -> u64 {
    size_from_env(MAX_INPUT_ENV).unwrap_or(DEFAULT_MAX_INPUT)
}

pub fn max_output() -> u64 {
    size_from_env(MAX_OUTPUT_ENV).unwrap_or(DEFAULT_MAX_OUTPUT)
}

pub fn max_stream_output() -> u64 {
    size_from_env(MAX_STREAM_OUTPUT_ENV).unwrap_or(DEFAULT_MAX_STREAM_OUTPUT)
}

/// At least 64 MiB: below that a worker cannot even start.
pub fn max_memory() -> u64 {
    size_from_env(MAX_MEMORY_ENV)
        .unwrap_or(DEFAULT_MAX_MEMORY)
        .max(64 << 20)
}

pub fn max_tools() -> usize {
    size_from_env(MAX_TOOLS_ENV)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(DEFAULT_MAX_TOOLS)
}

fn size_from_env(name: &str) -> Option<u64> {
    let raw = std::env::var(name).ok()?;
    let parsed = parse_size(&raw);
    if parsed.is_none() {
        eprintln!(
            "warning: ignoring {name}={}: expected bytes or a size like 64M",
            crate::text::preview(&raw, 40)
        );
    }
    parsed
}

/// `"1048576"`, `"512K"`, `"64M"`, `"2G"` (case-insensitive, optional `B`/`iB`).
pub fn parse_size(raw: &str) -> Option<u64> {
    let s = raw.trim().to_ascii_uppercase();
    let s = s
        .strip_suffix("IB")
        .or_else(|| s.strip_suffix('B'))
        .unwrap_or(&s);
    let (digits, shift) = match s.chars().last()? {
        'K' => (&s[..s.len() - 1], 10),
        'M' => (&s[..s.len() - 1], 20),
        'G' => (&s[..s.len() - 1], 30),
        'T' => (&s[..s.len() - 1], 40),
        _ => (s, 0),
    };
    let n: u64 = digits.trim().parse().ok()?;
    n.checked_mul(1u64 << shift)
}

/// `12345678` → `"11.8 MiB"`, for messages.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("1048576"), Some(1 << 20));
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("64mib"), Some(64 << 20));
        assert_eq!(parse_size(" 2G "), Some(2 << 30));
        assert_eq!(parse_size("512KB"), Some(512 << 10));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("99999999999T"), None);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(10), "10 bytes");
        assert_eq!(human(64 << 20), "64.0 MiB");
        assert_eq!(human(1536), "1.5 KiB");
    }
}
