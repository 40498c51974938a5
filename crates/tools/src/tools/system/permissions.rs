//! Unix file permissions: octal modes, `ls -l` symbolic strings and `chmod` clauses (POSIX chmod).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use serde_json::json;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("chmod-calculator", chmod_calculator)];

const SETUID: u32 = 0o4000;
const SETGID: u32 = 0o2000;
const STICKY: u32 = 0o1000;

/// The three classes in `ls -l` order with the shift of their rwx bits and their `chmod` letter.
const CLASSES: [(&str, u32, char); 3] = [("owner", 6, 'u'), ("group", 3, 'g'), ("others", 0, 'o')];

fn chmod_calculator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?.trim();
    let path = args.str("path")?;
    let (mode, format) = parse_mode(input)?;
    let octal = format!("{:o}", mode);
    let octal = if mode & 0o7000 == 0 {
        format!("{:03o}", mode)
    } else {
        octal
    };
    let symbolic = symbolic(mode);
    let clauses = clauses(mode);
    let quoted = shell_words::quote(path);
    let mut classes = serde_json::Map::new();
    for (name, shift, _) in CLASSES {
        let bits = (mode >> shift) & 0o7;
        classes.insert(
            name.to_string(),
            json!({ "read": bits & 4 != 0, "write": bits & 2 != 0, "execute": bits & 1 != 0 }),
        );
    }
    let output = if format == "octal" {
        symbolic.clone()
    } else {
        octal.clone()
    };
    Ok(json!({
        "output": output,
        "inputFormat": format,
        "octal": octal,
        "symbolic": symbolic,
        "clauses": clauses,
        "permissions": classes,
        "special": {
            "setuid": mode & SETUID != 0,
            "setgid": mode & SETGID != 0,
            "sticky": mode & STICKY != 0,
        },
        "command": format!("chmod {octal} {quoted}"),
        "symbolicCommand": format!("chmod {clauses} {quoted}"),
    }))
}

/// Reads an octal mode, a 9- or 10-character `ls -l` string, or comma-separated `chmod` clauses.
fn parse_mode(input: &str) -> Result<(u32, &'static str), ToolError> {
    if input.is_empty() {
        return Err(ToolError::invalid(
            "the mode is empty; give an octal mode (755), a symbolic string (rwxr-xr-x) or chmod clauses (u=rwx,g=rx,o=rx)",
        ));
    }
    let digits = input
        .strip_prefix("0o")
        .or_else(|| input.strip_prefix("0O"))
        .unwrap_or(input);
    if digits.chars().all(|c| c.is_ascii_digit()) {
        return parse_octal(digits).map(|m| (m, "octal"));
    }
    if input.contains(['=', '+']) || input.starts_with(['u', 'g', 'o', 'a']) {
        return parse_clauses(input).map(|m| (m, "clauses"));
    }
    parse_symbolic(input).map(|m| (m, "symbolic"))
}

fn parse_octal(digits: &str) -> Result<u32, ToolError> {
    if let Some((i, c)) = digits
        .char_indices()
        .find(|(_, c)| !('0'..='7').contains(c))
    {
        return Err(ToolError::invalid(format!(
            "'{c}' at character {} is not an octal digit (0-7)",
            i + 1
        )));
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 4 {
        return Err(ToolError::invalid(format!(
            "octal mode '{digits}' has more than four significant digits; the largest mode is 7777"
        )));
    }
    // An empty remainder means all zeros; chmod reads missing leading digits as 0.
    u32::from_str_radix(
        if significant.is_empty() {
            "0"
        } else {
            significant
        },
        8,
    )
    .map_err(|e| ToolError::invalid(format!("octal mode '{digits}': {e}")))
}

fn parse_symbolic(input: &str) -> Result<u32, ToolError> {
    let chars: Vec<char> = input.chars().collect();
    // `ls -l` may prefix a file type and suffix '.', '+' or '@' (SELinux context, ACL, xattrs).
    let mut body: &[char] = &chars;
    let mut offset = 0;
    if let Some(last) = body.last()
        && body.len() > 9
        && matches!(last, '.' | '+' | '@')
    {
        body = &body[..body.len() - 1];
    }
    if body.len() == 10 {
        if !"-dlcbpsDn".contains(body[0]) {
            return Err(ToolError::invalid(format!(
                "'{}' at character 1 is not a file type (one of - d l c b p s)",
                body[0]
            )));
        }
        body = &body[1..];
        offset = 1;
    }
    if body.len() != 9 {
        return Err(ToolError::invalid(format!(
            "'{}' is not a mode: expected octal digits (755), nine permission characters (rwxr-xr-x) or chmod clauses (u=rwx,g=rx,o=rx)",
            crate::text::preview(input, 40)
        )));
    }
    let mut mode = 0;
    for (class, (name, shift, _)) in CLASSES.iter().enumerate() {
        for (slot, expected) in ['r', 'w', 'x'].into_iter().enumerate() {
            let i = class * 3 + slot;
            let c = body[i];
            let bit = 1 << (shift + 2 - slot as u32);
            let special = match class {
                0 => (SETUID, 's'),
                1 => (SETGID, 's'),
                _ => (STICKY, 't'),
            };
            let upper = special.1.to_ascii_uppercase();
            match c {
                '-' => {}
                c if c == expected => mode |= bit,
                c if slot == 2 && c == special.1 => mode |= bit | special.0,
                c if slot == 2 && c == upper => mode |= special.0,
                _ => {
                    let allowed = if slot == 2 {
                        format!("'x', '{}', '{upper}' or '-'", special.1)
                    } else {
                        format!("'{expected}' or '-'")
                    };
                    return Err(ToolError::invalid(format!(
                        "'{c}' at character {} ({name} {}) must be {allowed}",
                        i + 1 + offset,
                        ["read", "write", "execute"][slot]
                    )));
                }
            }
        }
    }
    Ok(mode)
}

/// Applies `chmod` symbolic clauses (`u=rwx,g+rx,o-w,a+t`) to an empty mode, as chmod does on
/// a file with no permissions; an empty `who` means all classes (umask is not consulted).
fn parse_clauses(input: &str) -> Result<u32, ToolError> {
    let mut mode: u32 = 0;
    for clause in input.split(',') {
        let clause_trim = clause.trim();
        let op_at = clause_trim.find(['=', '+', '-']).ok_or_else(|| {
            ToolError::invalid(format!(
                "chmod clause '{clause_trim}' has no operator; write who (u, g, o, a), then =, + or -, then permissions (r, w, x, X, s, t)"
            ))
        })?;
        let (who, rest) = clause_trim.split_at(op_at);
        let mut targets = 0u32;
        for c in who.chars() {
            targets |= match c {
                'u' => 0o4,
                'g' => 0o2,
                'o' => 0o1,
                'a' => 0o7,
                _ => {
                    return Err(ToolError::invalid(format!(
                        "'{c}' in clause '{clause_trim}' is not a class; use u (owner), g (group), o (others) or a (all)"
                    )));
                }
            };
        }
        if targets == 0 {
            targets = 0o7;
        }
        // A clause may chain operations: `u+r-w`.
        let mut ops = rest.chars().peekable();
        while let Some(op) = ops.next() {
            let mut perms = String::new();
            while let Some(&c) = ops.peek() {
                if matches!(c, '=' | '+' | '-') {
                    break;
                }
                perms.push(c);
                ops.next();
            }
            let bits = clause_bits(&perms, targets, mode, clause_trim)?;
            match op {
                '+' => mode |= bits,
                '-' => mode &= !bits,
                _ => {
                    let mut cleared = 0;
                    for (_, shift, letter) in CLASSES {
                        if targets & class_flag(letter) != 0 {
                            cleared |= 0o7 << shift;
                            cleared |= match letter {
                                'u' => SETUID,
                                'g' => SETGID,
                                _ => 0,
                            };
                        }
                    }
                    mode = (mode & !cleared) | bits;
                }
            }
        }
    }
    Ok(mode)
}

fn class_flag(letter: char) -> u32 {
    match letter {
        'u' => 0o4,
        'g' => 0o2,
        _ => 0o1,
    }
}

fn clause_bits(perms: &str, targets: u32, current: u32, clause: &str) -> Result<u32, ToolError> {
    let mut bits = 0;
    for c in perms.chars() {
        for (_, shift, letter) in CLASSES {
            if targets & class_flag(letter) == 0 {
                continue;
            }
            bits |= match c {
                'r' => 0o4 << shift,
                'w' => 0o2 << shift,
                'x' => 0o1 << shift,
                // For a regular file X grants execute only if some class already has it.
                'X' if current & 0o111 != 0 => 0o1 << shift,
                'X' => 0,
                's' if letter == 'u' => SETUID,
                's' if letter == 'g' => SETGID,
                's' => 0,
                't' if letter == 'o' || targets == 0o7 => STICKY,
                't' => 0,
                _ => {
                    return Err(ToolError::invalid(format!(
                        "'{c}' in clause '{clause}' is not a permission; use r, w, x, X, s or t"
                    )));
                }
            };
        }
    }
    Ok(bits)
}

fn symbolic(mode: u32) -> String {
    let mut out = String::with_capacity(9);
    for (class, (_, shift, _)) in CLASSES.iter().enumerate() {
        let bits = (mode >> shift) & 0o7;
        out.push(if bits & 4 != 0 { 'r' } else { '-' });
        out.push(if bits & 2 != 0 { 'w' } else { '-' });
        let (flag, letter) = match class {
            0 => (SETUID, 's'),
            1 => (SETGID, 's'),
            _ => (STICKY, 't'),
        };
        let exec = bits & 1 != 0;
        out.push(match (mode & flag != 0, exec) {
            (true, true) => letter,
            (true, false) => letter.to_ascii_uppercase(),
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    out
}

/// The absolute `chmod` clauses that set exactly `mode`: `u=rwxs,g=rx,o=rxt`.
fn clauses(mode: u32) -> String {
    CLASSES
        .iter()
        .map(|(_, shift, letter)| {
            let bits = (mode >> shift) & 0o7;
            let mut s = format!("{letter}=");
            for (bit, c) in [(4, 'r'), (2, 'w'), (1, 'x')] {
                if bits & bit != 0 {
                    s.push(c);
                }
            }
            let special = match letter {
                'u' => mode & SETUID != 0,
                'g' => mode & SETGID != 0,
                _ => mode & STICKY != 0,
            };
            if special {
                s.push(if *letter == 'o' { 't' } else { 's' });
            }
            s
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // The common modes as listed in the GNU coreutils manual and chmod(1).
    #[test]
    fn octal_to_symbolic() {
        for (octal, symbolic) in [
            ("755", "rwxr-xr-x"),
            ("644", "rw-r--r--"),
            ("4755", "rwsr-xr-x"),
            ("1777", "rwxrwxrwt"),
            ("2750", "rwxr-s---"),
            ("0600", "rw-------"),
            ("4644", "rwSr--r--"),
            ("1666", "rw-rw-rwT"),
        ] {
            let data = run_ok("chmod-calculator", json!({ "input": octal }));
            assert_eq!(data["output"], symbolic, "{octal}");
            assert_eq!(data["symbolic"], symbolic, "{octal}");
        }
    }

    #[test]
    fn symbolic_to_octal_with_ls_prefix() {
        let data = run_ok("chmod-calculator", json!({ "input": "rwxr-xr-x" }));
        assert_eq!(data["output"], "755");
        assert_eq!(data["inputFormat"], "symbolic");
        let data = run_ok("chmod-calculator", json!({ "input": "drwxrwxrwt" }));
        assert_eq!(data["octal"], "1777");
        assert_eq!(data["special"]["sticky"], true);
        let data = run_ok("chmod-calculator", json!({ "input": "-rwsr-xr-x." }));
        assert_eq!(data["octal"], "4755");
        assert_eq!(data["special"]["setuid"], true);
    }

    #[test]
    fn booleans_and_commands() {
        let data = run_ok(
            "chmod-calculator",
            json!({ "input": "0644", "path": "my file.txt" }),
        );
        assert_eq!(
            data["permissions"]["owner"],
            json!({"read": true, "write": true, "execute": false})
        );
        assert_eq!(
            data["permissions"]["others"],
            json!({"read": true, "write": false, "execute": false})
        );
        assert_eq!(data["command"], "chmod 644 'my file.txt'");
        assert_eq!(data["symbolicCommand"], "chmod u=rw,g=r,o=r 'my file.txt'");
        let data = run_ok("chmod-calculator", json!({ "input": "4755" }));
        assert_eq!(data["clauses"], "u=rwxs,g=rx,o=rx");
    }

    #[test]
    fn chmod_clauses() {
        let data = run_ok("chmod-calculator", json!({ "input": "u=rwx,g=rx,o=rx" }));
        assert_eq!(data["octal"], "755");
        let data = run_ok("chmod-calculator", json!({ "input": "a+rw,go-w" }));
        assert_eq!(data["octal"], "644");
        let data = run_ok("chmod-calculator", json!({ "input": "+rwx,+t" }));
        assert_eq!(data["octal"], "1777");
        let data = run_ok("chmod-calculator", json!({ "input": "u=rwxs,g=x" }));
        assert_eq!(data["symbolic"], "rws--x---");
    }

    #[test]
    fn errors_name_the_offending_character() {
        let (code, msg) = run_err("chmod-calculator", json!({ "input": "789" }));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'8' at character 2"), "{msg}");
        let (code, msg) = run_err("chmod-calculator", json!({ "input": "rwxr-qr-x" }));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'q' at character 6"), "{msg}");
        let (code, msg) = run_err("chmod-calculator", json!({ "input": "17777" }));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("7777"), "{msg}");
        let (code, _) = run_err("chmod-calculator", json!({ "input": "u=rwz" }));
        assert_eq!(code, ErrorCode::InvalidInput);
    }
}
