//! Small helpers for showing untrusted text safely in messages.

/// Replaces control characters with visible escapes so that untrusted text cannot move the
/// cursor, clear the screen, forge extra lines or reorder what is shown (bidirectional
/// overrides and isolates, zero-width marks) when printed to a terminal or a prompt.
pub fn escape_control(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || is_invisible_format(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Format characters that change how surrounding text displays without showing themselves.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// At most `max` characters of `s`, control characters escaped, with an ellipsis when cut.
pub fn preview(s: &str, max: usize) -> String {
    let mut cut: String = s.chars().take(max).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    escape_control(&cut)
}

/// A character named for an error message: `'x'` when printable ASCII, with its code point
/// otherwise (`'é' (U+00E9)`, `U+0000`), so that nothing invisible or misleading is printed.
pub fn describe_char(c: char) -> String {
    match c {
        ' '..='~' => format!("'{c}'"),
        c if c.is_alphanumeric() => format!("'{c}' (U+{:04X})", c as u32),
        // Controls, spaces, and format characters such as U+202E (which reverses the text
        // after it) are shown only by number.
        c => format!("U+{:04X}", c as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(escape_control("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\n");
        assert_eq!(preview("abcdef", 3), "abc…");
        assert_eq!(preview("ab", 3), "ab");
        // Bidirectional overrides would show "rm -rf /" reversed; zero-width marks hide text.
        assert_eq!(
            escape_control("a\u{202e}b\u{200b}c\r"),
            "a\\u{202e}b\\u{200b}c\\r"
        );
    }

    #[test]
    fn describes_characters_visibly() {
        assert_eq!(describe_char('$'), "'$'");
        assert_eq!(describe_char('é'), "'é' (U+00E9)");
        assert_eq!(describe_char('\u{1b}'), "U+001B");
        assert_eq!(describe_char('\u{202e}'), "U+202E");
    }
}
