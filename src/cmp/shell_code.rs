//! Intents whose command hands a caller's value to a shell or interpreter as code
//! (`sh -c 'grep {pattern} log'`, `python3 -c …`, `node -e …`, an `awk` program): the template
//! keeps each value one argument, but that argument is then run as a program. Such intents need
//! consent like `confirm: true` ones, and `validate` and `install` warn about them.
//!
//! A value counts only when the caller can choose its text: a `string` or `array<string>`
//! parameter without `enum`. It is flagged where it can become code: in the code argument of
//! `-c`/`-e`/`--eval`/`-Command`/`/c` (or any word after it, which the code receives as its
//! arguments), as the program or script to run, or among the interpreter's options. This is a
//! heuristic over the programs listed below (also through `env`, `sudo`, `timeout` and other
//! wrappers, and by full path), not a proof that other commands are safe.

use super::{Intent, ParamSpec};
use indexmap::IndexMap;

/// How the command turns a value into code (a phrase that follows "intents[i].command"), or
/// `None` when no caller-chosen value reaches code.
pub fn finding(intent: &Intent) -> Option<String> {
    let words = shell_words::split(intent.template()).ok()?;
    analyse(words, &intent.params)
}

/// The caller-chosen values in one template word: declared free-text placeholders (`{name}`,
/// not `{name?}` switches, which only add or drop the author's own word).
fn values_in<'a>(word: &'a str, params: &IndexMap<String, ParamSpec>) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = word;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let name = &after[..close];
        if params.get(name).is_some_and(free_text) {
            out.push(name);
        }
        rest = &after[close + 1..];
    }
    out
}

/// A value whose text the caller chooses: not a number, a boolean or one of an enum's values.
fn free_text(spec: &ParamSpec) -> bool {
    matches!(spec.kind.as_str(), "string" | "array<string>") && spec.enum_values.is_none()
}

fn first_value(words: &[String], params: &IndexMap<String, ParamSpec>) -> Option<String> {
    words
        .iter()
        .find_map(|w| values_in(w, params).first().map(|n| n.to_string()))
}

/// A wrapper runs the rest of its command line as a program.
struct Wrapper {
    names: &'static [&'static str],
    /// Options whose value is the next word.
    value_opts: &'static [&'static str],
    /// Words before the program that are not options (`timeout 5 …`).
    operands: usize,
    /// `NAME=value` words set the environment (`env`, `sudo`).
    assignments: bool,
}

const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        names: &["env"],
        value_opts: &["-u", "--unset", "-C", "--chdir"],
        operands: 0,
        assignments: true,
    },
    Wrapper {
        names: &["sudo"],
        value_opts: &[
            "-u",
            "-g",
            "-C",
            "-D",
            "-h",
            "-p",
            "-r",
            "-t",
            "-U",
            "-T",
            "--user",
            "--group",
            "--chdir",
            "--host",
            "--prompt",
            "--role",
            "--type",
            "--other-user",
        ],
        operands: 0,
        assignments: true,
    },
    Wrapper {
        names: &["doas"],
        value_opts: &["-u", "-C"],
        operands: 0,
        assignments: false,
    },
    Wrapper {
        names: &["nice"],
        value_opts: &["-n", "--adjustment"],
        operands: 0,
        assignments: false,
    },
    Wrapper {
        names: &["timeout"],
        value_opts: &["-s", "--signal", "-k", "--kill-after"],
        operands: 1,
        assignments: false,
    },
    Wrapper {
        names: &["stdbuf"],
        value_opts: &["-i", "-o", "-e"],
        operands: 0,
        assignments: false,
    },
    Wrapper {
        names: &["time"],
        value_opts: &["-f", "--format", "-o", "--output"],
        operands: 0,
        assignments: false,
    },
    Wrapper {
        names: &["ionice"],
        value_opts: &["-c", "-n", "--class", "--classdata"],
        operands: 0,
        assignments: false,
    },
    Wrapper {
        names: &["chrt", "taskset"],
        value_opts: &[],
        operands: 1,
        assignments: false,
    },
    Wrapper {
        names: &["xargs"],
        value_opts: &[
            "-I",
            "-d",
            "-E",
            "-L",
            "-n",
            "-P",
            "-s",
            "-a",
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--max-lines",
        ],
        operands: 0,
        assignments: false,
    },
    Wrapper {
        names: &["nohup", "setsid", "exec", "command", "builtin", "busybox"],
        value_opts: &[],
        operands: 0,
        assignments: false,
    },
];

/// How one interpreter takes code.
struct Interp {
    /// Options whose value (the next word, or attached: `--eval=…`, `-c…`) is code.
    code_opts: &'static [&'static str],
    /// Letters that make a cluster of single-letter options take code next (`-ec`, `-ne`).
    cluster: &'static [char],
    /// Options naming the program file or module to run (`-f prog.awk`, `-m module`).
    script_opts: &'static [&'static str],
    /// Options whose value is the next word and is not code.
    value_opts: &'static [&'static str],
    /// Of those, the ones whose value is plain data (awk's `-v name=value`): a value there is fine.
    data_opts: &'static [&'static str],
    /// The first operand is code (awk's program, Windows PowerShell's command), not a file.
    operand_is_code: bool,
    /// The words after the code reach it as arguments (`sh -c 'eval "$1"' sh {x}`), so a value
    /// there counts; false where they are input files (awk, sed).
    args_reach_code: bool,
    /// Options are case-insensitive and may start with `/` (cmd, PowerShell).
    windows: bool,
    /// Options may also start with `+` (`sh +o …`).
    plus_options: bool,
    /// Parameter names may be abbreviated (PowerShell's `-Com`): see [`powershell_opt`].
    powershell: bool,
}

const BASE: Interp = Interp {
    code_opts: &[],
    cluster: &[],
    script_opts: &[],
    value_opts: &[],
    data_opts: &[],
    operand_is_code: false,
    args_reach_code: true,
    windows: false,
    plus_options: false,
    powershell: false,
};

const SHELL: Interp = Interp {
    code_opts: &["-c", "--command"],
    cluster: &['c'],
    value_opts: &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"],
    plus_options: true,
    ..BASE
};

const FISH: Interp = Interp {
    code_opts: &["-c", "--command", "-C", "--init-command"],
    cluster: &['c'],
    value_opts: &["-d", "--debug", "-o", "--debug-output", "-f", "--features"],
    ..BASE
};

const PYTHON: Interp = Interp {
    code_opts: &["-c"],
    cluster: &['c'],
    script_opts: &["-m"],
    value_opts: &["-W", "-X", "--check-hash-based-pycs"],
    ..BASE
};

const PERL: Interp = Interp {
    code_opts: &["-e", "-E"],
    cluster: &['e', 'E'],
    value_opts: &["-I"],
    ..BASE
};

const RUBY: Interp = Interp {
    code_opts: &["-e"],
    cluster: &['e'],
    value_opts: &["-I", "-r", "-C", "-E", "--encoding"],
    ..BASE
};

const NODE: Interp = Interp {
    code_opts: &["-e", "--eval", "-p", "--print"],
    cluster: &['e', 'p'],
    value_opts: &[
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "-C",
        "--conditions",
        "--input-type",
        "--env-file",
        "--title",
    ],
    ..BASE
};

const PHP: Interp = Interp {
    code_opts: &["-r", "-R", "-B", "-E"],
    script_opts: &["-f", "-F"],
    value_opts: &["-d", "-c", "-z"],
    ..BASE
};

const LUA: Interp = Interp {
    code_opts: &["-e"],
    value_opts: &["-l"],
    ..BASE
};

const EVAL_E: Interp = Interp {
    code_opts: &["-e", "--eval", "-E", "--print"],
    value_opts: &[
        "-l",
        "-s",
        "-p",
        "--procs",
        "-t",
        "--threads",
        "-J",
        "--sysimage",
    ],
    ..BASE
};

const EXPECT: Interp = Interp {
    code_opts: &["-c"],
    value_opts: &["-f"],
    ..BASE
};

const TCL: Interp = Interp {
    value_opts: &["-encoding"],
    ..BASE
};

/// PowerShell: `-Command` and its abbreviations (see [`powershell_opt`]); bare text is a
/// command in Windows PowerShell.
const POWERSHELL: Interp = Interp {
    operand_is_code: true,
    windows: true,
    powershell: true,
    ..BASE
};

const CMD: Interp = Interp {
    code_opts: &["/c", "/k", "/r"],
    operand_is_code: true,
    windows: true,
    ..BASE
};

const AWK: Interp = Interp {
    code_opts: &["-e", "--source"],
    script_opts: &["-f", "--file", "-E", "--exec", "-i", "--include"],
    value_opts: &["-F", "-v", "--field-separator", "--assign"],
    data_opts: &["-F", "-v", "--field-separator", "--assign"],
    operand_is_code: true,
    args_reach_code: false,
    ..BASE
};

const SED: Interp = Interp {
    code_opts: &["-e", "--expression"],
    script_opts: &["-f", "--file"],
    value_opts: &["-l", "--line-length"],
    data_opts: &["-l", "--line-length"],
    operand_is_code: true,
    args_reach_code: false,
    ..BASE
};

/// `name` followed by nothing or a version (`python3`, `python3.12`, `perl5.36`, `lua5.4`).
fn versioned(base: &str, name: &str) -> bool {
    base.strip_prefix(name)
        .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

fn interpreter(base: &str) -> Option<&'static Interp> {
    let shells = [
        "sh", "bash", "rbash", "zsh", "dash", "ksh", "ksh93", "mksh", "pdksh", "ash", "csh",
        "tcsh", "yash", "posh",
    ];
    Some(match base {
        b if shells.contains(&b) => &SHELL,
        "fish" => &FISH,
        b if versioned(b, "python") || versioned(b, "pypy") => &PYTHON,
        b if versioned(b, "perl") => &PERL,
        b if versioned(b, "ruby") => &RUBY,
        "node" | "nodejs" => &NODE,
        b if versioned(b, "php") => &PHP,
        b if versioned(b, "lua") || b == "luajit" => &LUA,
        "rscript" | "julia" | "osascript" => &EVAL_E,
        "expect" => &EXPECT,
        "tclsh" | "wish" => &TCL,
        "pwsh" | "powershell" => &POWERSHELL,
        "cmd" => &CMD,
        "awk" | "gawk" | "mawk" | "nawk" | "original-awk" => &AWK,
        "sed" | "gsed" => &SED,
        _ => return None,
    })
}

/// The program's name without its directory, case or `.exe`: `/usr/bin/Python3.EXE` → `python3`.
fn basename(word: &str) -> String {
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let lower = name.to_ascii_lowercase();
    lower
        .strip_suffix(".exe")
        .map_or(lower.clone(), str::to_string)
}

/// What an option word is to an interpreter.
enum Opt {
    /// Code follows in the next word.
    CodeNext,
    /// The code is attached (`--eval=…`, `-c…`, `/ccommand`).
    CodeHere,
    /// The program file or module is the next word.
    ScriptNext,
    /// A value follows (`data`: the value is plain data).
    Value {
        data: bool,
    },
    /// A data option with its value attached (`-vname=value`, `--assign=…`).
    DataHere,
    Flag,
}

/// PowerShell accepts any unambiguous prefix of a parameter name, with `-`, `--` or `/`.
fn powershell_opt(word: &str) -> Opt {
    let name = word.trim_start_matches(['-', '/']).to_ascii_lowercase();
    let prefix_of = |full: &str| !name.is_empty() && full.starts_with(name.as_str());
    if prefix_of("command") || prefix_of("encodedcommand") || name == "ec" || name == "cwa" {
        Opt::CodeNext
    } else if prefix_of("file") {
        Opt::ScriptNext
    } else if [
        "executionpolicy",
        "ex",
        "ep",
        "workingdirectory",
        "wd",
        "inputformat",
        "if",
        "outputformat",
        "of",
        "windowstyle",
        "w",
        "configurationname",
        "settingsfile",
        "custompipename",
        "version",
        "v",
    ]
    .contains(&name.as_str())
    {
        Opt::Value { data: false }
    } else {
        Opt::Flag
    }
}

fn classify(interp: &Interp, word: &str) -> Opt {
    if interp.powershell {
        return powershell_opt(word);
    }
    let lower = word.to_ascii_lowercase();
    let w = if interp.windows { lower.as_str() } else { word };
    if interp.code_opts.contains(&w) {
        return Opt::CodeNext;
    }
    if interp.script_opts.contains(&w) {
        return Opt::ScriptNext;
    }
    if interp.value_opts.contains(&w) {
        return Opt::Value {
            data: interp.data_opts.contains(&w),
        };
    }
    let letters = w.strip_prefix('-').filter(|l| {
        !l.is_empty() && !l.starts_with('-') && l.chars().all(|c| c.is_ascii_alphabetic())
    });
    if let Some(letters) = letters
        && letters.chars().any(|c| interp.cluster.contains(&c))
    {
        return Opt::CodeNext;
    }
    let attached = |opts: &[&str]| {
        opts.iter().any(|o| {
            if o.starts_with("--") {
                w.strip_prefix(o).is_some_and(|r| r.starts_with('='))
            } else {
                w.len() > o.len() && w.starts_with(o)
            }
        })
    };
    if attached(interp.code_opts) {
        Opt::CodeHere
    } else if attached(interp.data_opts) {
        Opt::DataHere
    } else {
        Opt::Flag
    }
}

fn is_option(interp: &Interp, word: &str) -> bool {
    (word.starts_with('-') && word.len() > 1)
        || (interp.plus_options && word.starts_with('+') && word.len() > 1)
        || (interp.windows && word.starts_with('/') && word.len() > 1)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

fn analyse(mut words: Vec<String>, params: &IndexMap<String, ParamSpec>) -> Option<String> {
    // Past the wrappers to the program.
    let mut i = 0;
    loop {
        let word = words.get(i)?;
        if let Some(name) = values_in(word, params).first() {
            return Some(format!("takes the program to run from {{{name}}}"));
        }
        let base = basename(word);
        let Some(w) = WRAPPERS.iter().find(|w| w.names.contains(&base.as_str())) else {
            break;
        };
        i += 1;
        let mut operands = w.operands;
        while let Some(word) = words.get(i) {
            // A list standing alone expands to several words: it could supply the program.
            if let Some(name) = values_in(word, params)
                .into_iter()
                .find(|n| word == &format!("{{{n}}}") && params[*n].kind.starts_with("array"))
            {
                return Some(format!(
                    "puts the list {{{name}}} before the program, where it can supply the program itself"
                ));
            }
            if word == "--" {
                i += 1;
                break;
            }
            if base == "env"
                && let Some(value) = split_string(&words, i)
            {
                // `env -S '…'` splits its value into the command line.
                if let Some(name) = values_in(&value.0, params).first() {
                    return Some(format!(
                        "passes {{{name}}} to env -S, which splits it into the command line"
                    ));
                }
                let mut rest = shell_words::split(&value.0).ok()?;
                rest.extend(words.drain(i + value.1..));
                words.truncate(i);
                words.extend(rest);
                break;
            }
            if word.starts_with('-') && word.len() > 1 {
                i += if w.value_opts.contains(&word.as_str()) {
                    2
                } else {
                    1
                };
            } else if w.assignments && is_assignment(word) {
                i += 1;
            } else if operands > 0 {
                operands -= 1;
                i += 1;
            } else {
                break;
            }
        }
    }
    let label = basename(&words[i]);
    let interp = interpreter(&label)?;
    let mut j = i + 1;
    let mut code_given = false;
    let mut options_done = false;
    while let Some(word) = words.get(j) {
        if !options_done && word == "--" {
            options_done = true;
            j += 1;
            continue;
        }
        if options_done || !is_option(interp, word) {
            return first_operand(interp, &label, &words[j..], code_given, params);
        }
        let at = match classify(interp, word) {
            Opt::CodeNext => j + 1,
            Opt::CodeHere => j,
            Opt::ScriptNext => {
                if let Some(name) = words
                    .get(j + 1)
                    .and_then(|n| values_in(n, params).first().copied())
                {
                    return Some(format!(
                        "lets {{{name}}} name the program {label} {word} runs"
                    ));
                }
                if !interp.operand_is_code {
                    // `python -m module args…`: what follows is the module's data.
                    return None;
                }
                code_given = true;
                j += 2;
                continue;
            }
            Opt::Value { data } => {
                let value = words.get(j + 1).filter(|_| !data);
                if let Some(name) = [Some(word), value]
                    .into_iter()
                    .flatten()
                    .find_map(|w| values_in(w, params).first().copied())
                {
                    return Some(options_message(name, &label));
                }
                j += 2;
                continue;
            }
            Opt::DataHere => {
                j += 1;
                continue;
            }
            Opt::Flag => {
                if let Some(name) = values_in(word, params).first() {
                    return Some(options_message(name, &label));
                }
                j += 1;
                continue;
            }
        };
        code_given = true;
        let end = if interp.args_reach_code {
            words.len()
        } else {
            (at + 1).min(words.len())
        };
        if let Some(name) = words
            .get(at)
            .and_then(|w| values_in(w, params).first().copied())
        {
            return Some(format!("passes {{{name}}} to {label} {word} as code"));
        }
        if let Some(name) = first_value(&words[(at + 1).min(end)..end], params) {
            return Some(format!(
                "passes {{{name}}} as an argument to the code that {label} {word} runs, which \
                 can execute it"
            ));
        }
        if interp.args_reach_code {
            return None;
        }
        // awk and sed take several `-e`; the words after the last are input files.
        j = at + 1;
    }
    None
}

/// The first word that is not an option: code (awk's program, a PowerShell command) or the
/// script file to run; the words after it are the script's arguments or input files.
fn first_operand(
    interp: &Interp,
    label: &str,
    rest: &[String],
    code_given: bool,
    params: &IndexMap<String, ParamSpec>,
) -> Option<String> {
    if interp.operand_is_code {
        if code_given {
            return None;
        }
        let end = if interp.args_reach_code {
            rest.len()
        } else {
            1
        };
        return first_value(&rest[..end], params)
            .map(|name| format!("passes {{{name}}} to {label} as code"));
    }
    values_in(&rest[0], params)
        .first()
        .map(|name| format!("lets {{{name}}} name the script {label} runs"))
}

/// The value of `env -S…`/`--split-string…` at `words[i]`, and how many words it took.
fn split_string(words: &[String], i: usize) -> Option<(String, usize)> {
    let word = &words[i];
    if word == "-S" || word == "--split-string" {
        return words.get(i + 1).map(|v| (v.clone(), 2));
    }
    if let Some(v) = word.strip_prefix("--split-string=") {
        return Some((v.to_string(), 1));
    }
    word.strip_prefix("-S")
        .filter(|v| !v.is_empty())
        .map(|v| (v.to_string(), 1))
}

fn options_message(name: &str, label: &str) -> String {
    format!("puts {{{name}}} among the options of {label}, where it can become code")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn intent(command: &str) -> Intent {
        serde_json::from_value(json!({
            "patterns": ["x"],
            "command": command,
            "params": {
                "x": {"type": "string"},
                "list": {"type": "array<string>"},
                "n": {"type": "integer"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "flag": {"type": "boolean"},
            },
        }))
        .unwrap()
    }

    fn found(command: &str) -> Option<String> {
        finding(&intent(command))
    }

    #[test]
    fn values_in_code_are_found() {
        let cases = [
            ("sh -c 'grep {x} log'", "passes {x} to sh -c as code"),
            ("bash -ec {x}", "passes {x} to bash -ec as code"),
            (
                "/bin/bash -o pipefail -c 'echo {x}'",
                "passes {x} to bash -c",
            ),
            (
                "sh -c 'eval \"$1\"' sh {x}",
                "passes {x} as an argument to the code that sh -c runs",
            ),
            ("env -i LANG=C sh -c {x}", "passes {x} to sh -c"),
            ("/usr/bin/env bash -c {x}", "passes {x} to bash -c"),
            (
                "sudo -u nobody timeout 5 bash -lc {x}",
                "passes {x} to bash -lc",
            ),
            ("python3 -c 'print({x})'", "passes {x} to python3 -c"),
            ("python3.12 -I -c {x}", "passes {x} to python3.12 -c"),
            ("perl -ne 'print if /{x}/'", "passes {x} to perl -ne"),
            ("perl -e{x}", "passes {x} to perl -e{x}"),
            ("ruby -e {x}", "passes {x} to ruby -e"),
            ("node --eval={x}", "passes {x} to node --eval={x}"),
            ("node -p {x}", "passes {x} to node -p"),
            ("php -r {x}", "passes {x} to php -r"),
            ("lua5.4 -e {x}", "passes {x} to lua5.4 -e"),
            (
                "pwsh -NoProfile -Command {x}",
                "passes {x} to pwsh -Command",
            ),
            ("powershell.exe -c {x}", "passes {x} to powershell -c"),
            ("powershell {x}", "passes {x} to powershell as code"),
            (
                "cmd /c dir {x}",
                "passes {x} as an argument to the code that cmd /c runs",
            ),
            ("CMD.EXE /C {x}", "passes {x} to cmd /C"),
            ("fish --command {x}", "passes {x} to fish --command"),
            ("awk '{print $1}' {x}", ""),
            ("awk -F, {x} file", "passes {x} to awk as code"),
            ("gawk -e {x} file", "passes {x} to gawk -e"),
            ("sed -e 's/{x}/y/' file", "passes {x} to sed -e"),
            ("sed 's/a/{x}/'", "passes {x} to sed as code"),
            ("env -S 'sh -c' {x}", "passes {x} to sh -c"),
            ("env -S 'sh -c {x}'", "passes {x} to env -S"),
            ("{x} --version", "takes the program to run from {x}"),
            ("/opt/{x}/bin/tool", "takes the program to run from {x}"),
            ("env {x}", "takes the program to run from {x}"),
            (
                "timeout 5 {list} file",
                "puts the list {list} before the program",
            ),
            ("bash {x}", "lets {x} name the script bash runs"),
            (
                "python3 -m {x}",
                "lets {x} name the program python3 -m runs",
            ),
            (
                "python3 {x} script.py",
                "lets {x} name the script python3 runs",
            ),
            ("node -r {x} app.js", "puts {x} among the options of node"),
            ("xargs -I% sh -c {x}", "passes {x} to sh -c"),
        ];
        for (command, want) in cases {
            let got = found(command);
            if want.is_empty() {
                assert_eq!(got, None, "{command}");
            } else {
                let got = got.unwrap_or_else(|| panic!("{command}: not found"));
                assert!(got.starts_with(want), "{command}: {got}");
            }
        }
    }

    #[test]
    fn data_arguments_and_fixed_values_are_not_code() {
        for command in [
            "git log -n {n} {x}",
            "rg --json {x} .",
            "python3 /opt/tool/main.py --in {x}",
            "python3 -m json.tool {x}",
            "bash ./script.sh {x} {list}",
            "sh -c 'git log --format={mode}'",
            "sh -c 'seq {n}'",
            "sh -c 'ls -la'",
            "awk -v pat={x} '$0 ~ pat' file",
            "awk -vpat={x} '$0 ~ pat' file",
            "gawk --assign=pat={x} '$0 ~ pat' file",
            "awk -F {x} '{print $1}' file",
            "awk '{print}' {x}",
            "sed -e s/a/b/ {x}",
            "env LANG={x} rg foo",
            "timeout {x} rg foo",
            "git diff --staged{flag?}",
            "sqlite3 -readonly -safe file:{x} {x}",
            "jq {x} file.json",
            "sh -c {undeclared}",
        ] {
            assert_eq!(found(command), None, "{command}");
        }
    }
}
