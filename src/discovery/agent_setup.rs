//! The agent snippet (`cmpx agent-setup`): the few lines that tell a coding agent where CMP tools
//! live. The text is kept once, in `agent_snippet.md`; AGENT_SETUP.md shows the same block
//! (a test compares them), and `--write` puts it into a CLAUDE.md or AGENTS.md between the
//! markers, so a later version replaces it in place.

/// Opens the block in a file.
pub const START: &str = "<!-- cmp:start -->";
/// Closes the block in a file.
pub const END: &str = "<!-- cmp:end -->";

/// The block, markers included, ending with a newline.
pub fn block() -> &'static str {
    include_str!("agent_snippet.md")
}

/// The file's new text with the block inserted: an existing block (first start marker to the
/// next end marker) is replaced; otherwise the block is appended after a blank line; a missing
/// file becomes the block alone. Bytes outside the block are kept exactly. A start marker
/// without an end marker after it is refused rather than guessed at.
pub fn insert(existing: Option<&str>, block: &str) -> Result<String, String> {
    let block = block.trim_end_matches('\n');
    let Some(text) = existing else {
        return Ok(format!("{block}\n"));
    };
    if let Some(start) = text.find(START) {
        let Some(end) = text[start..].find(END).map(|i| start + i + END.len()) else {
            return Err(format!(
                "the file has {START} without a following {END}; fix the markers by hand"
            ));
        };
        return Ok(format!("{}{block}{}", &text[..start], &text[end..]));
    }
    if text.contains(END) {
        return Err(format!(
            "the file has {END} without a preceding {START}; fix the markers by hand"
        ));
    }
    let sep = if text.is_empty() || text.ends_with("\n\n") {
        ""
    } else if text.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    Ok(format!("{text}{sep}{block}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: &str = "<!-- cmp:start -->\nnew\n<!-- cmp:end -->\n";

    #[test]
    fn creates_appends_and_replaces() {
        assert_eq!(insert(None, B).unwrap(), B);
        assert_eq!(insert(Some(""), B).unwrap(), B);
        assert_eq!(
            insert(Some("# Notes"), B).unwrap(),
            format!("# Notes\n\n{B}")
        );
        assert_eq!(
            insert(Some("# Notes\n"), B).unwrap(),
            format!("# Notes\n\n{B}")
        );
        let old = "a\r\n<!-- cmp:start -->\nold\n<!-- cmp:end -->  \r\nz";
        assert_eq!(
            insert(Some(old), B).unwrap(),
            "a\r\n<!-- cmp:start -->\nnew\n<!-- cmp:end -->  \r\nz"
        );
    }

    #[test]
    fn is_idempotent() {
        let once = insert(Some("# Notes\n"), B).unwrap();
        assert_eq!(insert(Some(&once), B).unwrap(), once);
    }

    #[test]
    fn refuses_broken_markers() {
        assert!(insert(Some("<!-- cmp:start -->\nx"), B).is_err());
        assert!(insert(Some("x\n<!-- cmp:end -->"), B).is_err());
    }

    #[test]
    fn the_block_has_its_markers() {
        assert!(block().starts_with(START));
        assert!(block().trim_end().ends_with(END));
    }
}
