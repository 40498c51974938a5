//! CSS laid out by changing whitespace only: every selector, value, string, URL and comment
//! keeps the author's bytes (#ff0000 stays #ff0000, `(max-width:600px)` stays as written).
//!
//! A printer that re-serialises a parsed stylesheet (lightningcss) rewrites values: colours
//! shortened, media queries in range syntax, units dropped. That changes what older browsers
//! understand, so the parser only checks the stylesheet and this module writes it.

/// A piece of the source: text to copy, a comment, or a run of whitespace.
#[derive(Clone, Copy, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    Comment(&'a str),
    Space,
    /// `{`, `}` or `;` outside parentheses, brackets, strings and comments.
    Open,
    Close,
    Semicolon,
}

/// Splits CSS into pieces, keeping strings, comments and bracketed runs whole where they
/// matter: a `;` inside `url(data:…;base64,…)` or a string ends nothing, and neither does a
/// `{…}` block in a custom property's value (`--mixin: {a: b}`), which is its exact tokens.
fn pieces<'a>(src: &'a str) -> Vec<Piece<'a>> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut text_start = None::<usize>;
    let mut nesting = 0usize;
    let mut depth = 0usize;
    // At the start of a statement; then in a custom property's name; then in its value.
    let mut statement_start = true;
    let mut custom_name = false;
    let mut custom_value = false;
    let flush = |out: &mut Vec<Piece<'a>>, start: &mut Option<usize>, end: usize| {
        if let Some(s) = start.take() {
            out.push(Piece::Text(&src[s..end]));
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            flush(&mut out, &mut text_start, i);
            let end = src[i + 2..].find("*/").map_or(src.len(), |e| i + 2 + e + 2);
            out.push(Piece::Comment(&src[i..end]));
            i = end;
            continue;
        }
        if b.is_ascii_whitespace() {
            flush(&mut out, &mut text_start, i);
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            out.push(Piece::Space);
            continue;
        }
        if nesting == 0 && (matches!(b, b'}' | b';') || (b == b'{' && !custom_value)) {
            flush(&mut out, &mut text_start, i);
            out.push(match b {
                b'{' => Piece::Open,
                b'}' => Piece::Close,
                _ => Piece::Semicolon,
            });
            match b {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            (statement_start, custom_name, custom_value) = (true, false, false);
            i += 1;
            continue;
        }
        if statement_start {
            statement_start = false;
            custom_name = depth > 0 && src[i..].starts_with("--");
        }
        text_start.get_or_insert(i);
        match b {
            b':' if custom_name && nesting == 0 => {
                (custom_name, custom_value) = (false, true);
            }
            b'{' if custom_value => nesting += 1,
            b'}' if custom_value => nesting = nesting.saturating_sub(1),
            b'"' | b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                continue;
            }
            b'\\' => {
                // An escaped character (a `\;` or `\{` in a selector) is part of the text.
                i = (i + 2).min(bytes.len());
                while !src.is_char_boundary(i) {
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' => nesting += 1,
            b')' | b']' => nesting = nesting.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    flush(&mut out, &mut text_start, src.len());
    out
}

/// Text pieces joined with single spaces where the source had whitespace (or a comment that a
/// minified output drops between two words, which it must keep apart). Minified, a space
/// next to a comma goes too, except in a custom property, whose value is its exact tokens.
fn joined(parts: &[Piece<'_>], minify: bool) -> String {
    let custom = matches!(parts.iter().find(|p| **p != Piece::Space), Some(Piece::Text(t)) if t.starts_with("--"));
    let tight = minify && !custom;
    let mut s = String::new();
    let mut space = false;
    for p in parts {
        match p {
            Piece::Space => space = true,
            Piece::Comment(c) if minify && !c.starts_with("/*!") => space = true,
            Piece::Text(t) | Piece::Comment(t) => {
                let comma = s.ends_with(',') || t.starts_with(',');
                if space && !s.is_empty() && !(tight && comma) {
                    s.push(' ');
                }
                space = false;
                s.push_str(t);
            }
            _ => {}
        }
    }
    s
}

/// `name: value` for a declaration (`name:value`, `name : value` alike); at-rule statements
/// and anything without a colon outside brackets are left as they are.
fn declaration(text: &str, minify: bool) -> String {
    if text.starts_with('@') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut nesting = 0usize;
    let mut quote = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), b'\\') => i += 1,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'(' | b'[') => nesting += 1,
            (None, b')' | b']') => nesting = nesting.saturating_sub(1),
            (None, b':') if nesting == 0 => {
                let name = text[..i].trim_end();
                let value = text[i + 1..].trim_start();
                let gap = if minify { "" } else { " " };
                return format!("{name}:{gap}{value}");
            }
            _ => {}
        }
        i += 1;
    }
    text.to_string()
}

/// The stylesheet beautified with `unit` per level, or minified when `unit` is `None`.
pub(crate) fn layout(src: &str, unit: Option<&str>) -> String {
    let minify = unit.is_none();
    let mut out = String::with_capacity(src.len() + src.len() / 4);
    let mut depth = 0usize;
    let mut pending: Vec<Piece<'_>> = Vec::new();
    // Whether something was written at the current level, for blank lines between rules; a
    // comment just before a rule belongs to it and takes no blank line after it.
    let mut written = vec![false];
    let mut after_comment = false;
    let line = |out: &mut String, depth: usize, text: &str| {
        if let Some(unit) = unit {
            for _ in 0..depth {
                out.push_str(unit);
            }
        }
        out.push_str(text);
        if unit.is_some() {
            out.push('\n');
        }
    };
    for piece in pieces(src) {
        match piece {
            Piece::Comment(c) if pending.iter().all(|p| *p == Piece::Space) => {
                pending.clear();
                if !minify || c.starts_with("/*!") {
                    let follows_block = out.ends_with("}\n");
                    if !minify && follows_block {
                        out.push('\n');
                    }
                    line(&mut out, depth, c);
                    if let Some(w) = written.last_mut() {
                        *w = true;
                    }
                    after_comment = true;
                }
                continue;
            }
            Piece::Open => {
                let prelude = joined(&pending, minify);
                pending.clear();
                if !minify && !after_comment && written.last().copied().unwrap_or(false) {
                    out.push('\n');
                }
                after_comment = false;
                if let Some(w) = written.last_mut() {
                    *w = true;
                }
                let head = if minify {
                    format!("{prelude}{{")
                } else if prelude.is_empty() {
                    "{".to_string()
                } else {
                    format!("{prelude} {{")
                };
                line(&mut out, depth, &head);
                depth += 1;
                written.push(false);
            }
            Piece::Semicolon | Piece::Close => {
                after_comment = false;
                let text = joined(&pending, minify);
                pending.clear();
                if !text.is_empty() {
                    let decl = declaration(&text, minify);
                    // Minified, the last declaration of a block needs no `;`.
                    let end = if minify && piece == Piece::Close {
                        ""
                    } else {
                        ";"
                    };
                    line(&mut out, depth, &format!("{decl}{end}"));
                    if let Some(w) = written.last_mut() {
                        *w = true;
                    }
                }
                if piece == Piece::Close {
                    depth = depth.saturating_sub(1);
                    if written.len() > 1 {
                        written.pop();
                    }
                    if minify && out.ends_with(';') {
                        out.pop();
                    }
                    line(&mut out, depth, "}");
                }
            }
            other => pending.push(other),
        }
    }
    let rest = joined(&pending, minify);
    if !rest.is_empty() {
        line(&mut out, depth, &rest);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

#[cfg(test)]
mod tests {
    use super::layout;

    #[test]
    fn beautifies_without_touching_values() {
        assert_eq!(
            layout(
                "a{color:#ff0000;margin:0px}@media (max-width:600px){.nav{display:none}}",
                Some("  ")
            ),
            "a {\n  color: #ff0000;\n  margin: 0px;\n}\n\n@media (max-width:600px) {\n  .nav {\n    display: none;\n  }\n}"
        );
    }

    #[test]
    fn minifies_whitespace_and_comments_only() {
        assert_eq!(
            layout(
                "/* header */\nh1 , h2 {\n  margin : 0px 0px ;\n  font-weight: bold;\n}\n/*! keep */",
                None
            ),
            "h1,h2{margin:0px 0px;font-weight:bold}/*! keep */"
        );
        // A dropped comment between two words leaves a space, so they stay two words.
        assert_eq!(layout("a{margin:1px/**/2px}", None), "a{margin:1px 2px}");
    }

    #[test]
    fn strings_urls_and_escapes_are_copied_whole() {
        let css =
            "a{content:\"a;b}c\";background:url(data:image/png;base64,iVB=) no-repeat}.x\\;y{b:c}";
        assert_eq!(
            layout(css, None),
            "a{content:\"a;b}c\";background:url(data:image/png;base64,iVB=) no-repeat}.x\\;y{b:c}"
        );
        assert_eq!(
            layout(css, Some("  ")),
            "a {\n  content: \"a;b}c\";\n  background: url(data:image/png;base64,iVB=) no-repeat;\n}\n\n.x\\;y {\n  b: c;\n}"
        );
    }

    #[test]
    fn custom_property_blocks_are_values_not_rules() {
        let css = ":root{--mixin:{color:red;margin:0};--x:1px}a{--y:{};color:var(--x)}";
        assert_eq!(
            layout(css, Some("  ")),
            ":root {\n  --mixin: {color:red;margin:0};\n  --x: 1px;\n}\n\na {\n  --y: {};\n  color: var(--x);\n}"
        );
        assert_eq!(layout(css, None), css);
        // At the top level `--x {…}` is a rule (a selector), not a declaration.
        assert_eq!(layout("--x{a:b}", None), "--x{a:b}");
    }
}
