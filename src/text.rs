//! Small helpers for showing untrusted text safely in messages.

/// Replaces control characters with visible escapes so that untrusted text cannot move the
/// cursor, clear the screen or forge extra lines when printed to a terminal.
pub fn escape_control(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// At most `max` characters of `s`, control characters escaped, with an ellipsis when cut.
pub fn preview(s: &str, max: usize) -> String {
    let mut cut: String = s.chars().take(max).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    escape_control(&cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(escape_control("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\n");
        assert_eq!(preview("abcdef", 3), "abc…");
        assert_eq!(preview("ab", 3), "ab");
    }
}
