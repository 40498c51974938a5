//! `cmpx resolve <text>`: ranked candidates for a request, as JSON: by default a short answer
//! (the best candidate's command, filled where the request says what goes in, and the
//! parameters left to fill; the others one line each), with `--full` every candidate's
//! parameters as the resolver returns them.

use crate::cmp::ParamSpec;
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use crate::resolve::{self, Candidate, Options, Resolution};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

type Specs = IndexMap<String, ParamSpec>;

/// Whether `c` is a catalogue tool (run in-process, reading `@file` content), not an adapter
/// or a third-party folder.
fn is_catalogue(c: &Candidate) -> bool {
    !c.adapter && crate::catalogue::get(&c.tool).is_some()
}

/// `c`'s parameters as a filler needs them. A catalogue tool's mode states only what the mode
/// changes; what each parameter is, and whether it is required, comes from the tool's general
/// intent.
fn specs(c: &Candidate) -> Specs {
    let mut specs = c.params.clone();
    if c.intent.index == 0 || !is_catalogue(c) {
        return specs;
    }
    let base = crate::catalogue::get(&c.tool)
        .map(|d| crate::cmp::mapping::capability(&d))
        .and_then(|cap| cap.intents.into_iter().next());
    let Some(base) = base else {
        return specs;
    };
    for (name, spec) in specs.iter_mut() {
        if let Some(b) = base.params.get(name) {
            spec.required |= b.required;
            spec.description = spec.description.take().or_else(|| b.description.clone());
            spec.default = spec.default.take().or_else(|| b.default.clone());
            spec.enum_values = spec.enum_values.take().or_else(|| b.enum_values.clone());
        }
    }
    specs
}

pub(super) fn run(
    mode: Mode,
    text: &str,
    top: usize,
    domain: Option<String>,
    full: bool,
) -> Result<ExitCode, Error> {
    let opts = Options { top, domain };
    let (index, resolution) = resolve::index::load_then(&crate::paths::all_roots(), |index| {
        resolve::resolve(index, text, &opts)
    });
    // Never freed: the command ends right after, and freeing an index of 10,000 tools
    // allocation by allocation took a few milliseconds the exit does for free.
    std::mem::forget(index);
    if mode.is_json() {
        let value = if full {
            serde_json::to_value(&resolution).unwrap_or_default()
        } else {
            short(&resolution)
        };
        output::print_value(mode, &value);
    } else if resolution.candidates.is_empty() {
        eprintln!("no installed tool matches {text:?}; `cmpx list` shows what is installed");
    } else {
        let fill = Filling::of(&resolution.query);
        for c in &resolution.candidates {
            let command = fill.command(c, &specs(c)).0;
            crate::outln!("{:.3}  {:24} {}", c.score, c.tool, command);
        }
        if resolution.ambiguous {
            eprintln!("(ambiguous: the best candidates are too close to call)");
        }
    }
    Ok(ExitCode::Success)
}

/// The short answer, sized for an agent's context: the best candidate with its command (the
/// values the request gives filled in, optional flags left out) and what is left to fill, one
/// line each for the others. Every field name is one `--full` also has, so a reader of the
/// first candidate's `tool`, `intent`, `command` and `params` reads either form.
pub(super) fn short(resolution: &Resolution) -> Value {
    let fill = Filling::of(&resolution.query);
    let candidates: Vec<Value> = resolution
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let specs = specs(c);
            let (command, filled) = fill.command(c, &specs);
            let mut out = Map::new();
            out.insert("tool".into(), json!(c.tool));
            if i == 0 {
                out.insert("intent".into(), json!(c.intent));
            }
            // Two decimals tell candidates apart as well as three (`--full` has three).
            out.insert("score".into(), json!((c.score * 100.0).round() / 100.0));
            out.insert("command".into(), json!(command));
            if i == 0 {
                let params: Map<String, Value> = specs
                    .iter()
                    .filter(|(name, _)| !filled.contains(name))
                    .map(|(name, spec)| (name.clone(), json!(describe(spec))))
                    .collect();
                if !params.is_empty() {
                    out.insert("params".into(), Value::Object(params));
                }
            }
            // Only the warnings: false is what an agent assumes.
            if c.confirm {
                out.insert("confirm".into(), json!(true));
            }
            if c.destructive {
                out.insert("destructive".into(), json!(true));
            }
            Value::Object(out)
        })
        .collect();
    let mut out = json!({
        "candidates": candidates,
        "confident": resolution.confident,
    });
    if resolution.ambiguous {
        out["ambiguous"] = json!(true);
    }
    out
}

/// A parameter in one line: its type, whether it is required, its default and its values, then
/// the first clause of its description.
fn describe(spec: &ParamSpec) -> String {
    // A plain string is what a parameter is unless it says otherwise.
    let mut head: Vec<String> = (spec.kind != "string")
        .then(|| spec.kind.clone())
        .into_iter()
        .collect();
    if spec.required {
        head.push("required".into());
    }
    if let Some(d) = &spec.default {
        head.push(format!("default {}", plain(d)));
    }
    if let Some(values) = &spec.enum_values {
        let shown: Vec<String> = values.iter().take(ENUM_VALUES).map(plain).collect();
        let more = if values.len() > shown.len() {
            "|…"
        } else {
            ""
        };
        head.push(format!("one of {}{more}", shown.join("|")));
    }
    let mut line = head.join(", ");
    if let Some(d) = spec.description.as_deref().map(first_clause)
        && !d.is_empty()
    {
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&d);
    }
    line
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Most values of an enum listed in the short answer; `--full` lists all.
const ENUM_VALUES: usize = 8;

/// Longest a parameter's description is shown in the short answer; `--full` has all of it.
const DESCRIPTION_CHARS: usize = 56;

/// A description up to its first sentence or semicolon, and at most `DESCRIPTION_CHARS`.
fn first_clause(text: &str) -> String {
    let end = [". ", "; "]
        .iter()
        .filter_map(|sep| text.find(sep))
        .min()
        .unwrap_or(text.len());
    let clause = text[..end].trim_end_matches('.');
    if clause.chars().count() <= DESCRIPTION_CHARS {
        return clause.to_string();
    }
    let cut: String = clause.chars().take(DESCRIPTION_CHARS).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}…", cut.trim_end_matches([',', ' ']))
}

/// Longest pasted value written into a command: a longer one stays a placeholder, since the
/// agent has it already and the answer would only repeat it.
const DATA_CHARS: usize = 120;

/// What the request gives for a command's parameters: the files it names and the data pasted
/// into it.
struct Filling {
    files: Vec<String>,
    data: Vec<String>,
    /// The values the request writes out (`resolve::values::written`).
    written: Vec<String>,
}

impl Filling {
    fn of(request: &str) -> Filling {
        let files = resolve::samples::named_files(request);
        // A quoted file name is a file, not text to work on.
        let scrubbed = resolve::samples::scrub(request);
        let data = scrubbed
            .data
            .into_iter()
            .filter(|d| !files.iter().any(|f| d.trim_start_matches('@') == f))
            .collect();
        Filling {
            files,
            data,
            written: resolve::values::written(&scrubbed.text),
        }
    }

    /// The values for `c`'s parameters, by name: each named file for the next parameter that
    /// takes one (as `@file` where the tool reads content; the path itself where an adapter or
    /// a third-party tool takes a path), then the one pasted value for the one required
    /// parameter still missing, as `cmpx do` fills it.
    fn values(&self, c: &Candidate, specs: &Specs) -> Map<String, Value> {
        let mut values = Map::new();
        let reads_content = is_catalogue(c);
        let mut files = self.files.iter();
        // Required parameters first: a file is what the tool cannot do without.
        let mut order: Vec<(&String, &ParamSpec)> = specs.iter().collect();
        order.sort_by_key(|(_, spec)| !spec.required);
        let takes = |name: &str, spec: &ParamSpec, values: &Map<String, Value>| {
            if !reads_content {
                return takes_path(name, spec);
            }
            // A tool that reads content takes the file as its required text, or, where none
            // is required (one of several inputs), as the one input said to be a file.
            spec.required && takes_text(spec)
                || values.is_empty()
                    && !specs.values().any(|s| s.required)
                    && takes_path(name, spec)
        };
        for (name, spec) in order {
            if !takes(name, spec, &values) {
                continue;
            }
            let Some(file) = files.next() else { break };
            let value = if reads_content {
                format!("@{file}")
            } else {
                file.clone()
            };
            values.insert(name.clone(), Value::String(value));
        }
        let missing: Vec<&String> = specs
            .iter()
            .filter(|(name, spec)| spec.required && !values.contains_key(*name))
            .map(|(name, _)| name)
            .collect();
        if let ([name], [value]) = (missing.as_slice(), self.data.as_slice())
            && value.chars().count() <= DATA_CHARS
            && !value.contains('\n')
        {
            // A pasted value starting with `@` is that text, not a file to read.
            let value = if value.starts_with('@') {
                format!("@{value}")
            } else {
                value.clone()
            };
            values.insert((*name).clone(), Value::String(value));
        }
        // "sha384 of file.bin": the option the request names, where the intent leaves it open.
        for (name, option) in resolve::values::fill(specs, &self.written) {
            values.entry(name).or_insert(Value::String(option));
        }
        values
    }

    /// `c`'s command with the request's values filled in and the names of the parameters they
    /// fill. A `cmpx run` line drops the optional flags left to their default (an absent flag
    /// is the default, and the best candidate lists each); another program's line keeps every
    /// placeholder.
    fn command(&self, c: &Candidate, specs: &Specs) -> (String, Vec<String>) {
        let values = self.values(c, specs);
        let runs_cmpx = c.command.starts_with("cmpx run ");
        let words: Vec<String> = c
            .command
            .split(' ')
            .filter_map(|word| {
                let Some((name, spec)) = specs.iter().find(|(name, _)| {
                    word.strip_prefix("--")
                        .and_then(|w| w.strip_suffix(&format!("={{{name}}}")))
                        == Some(name.as_str())
                }) else {
                    return Some(substitute(word, &values));
                };
                match values.get(name) {
                    Some(v) => Some(format!("--{name}={}", quote(v))),
                    None if runs_cmpx && !spec.required => None,
                    None => Some(word.to_string()),
                }
            })
            .collect();
        (words.join(" "), values.keys().cloned().collect())
    }
}

/// Replaces each `{name}` of `word` that `values` fills by the shell-quoted value.
fn substitute(word: &str, values: &Map<String, Value>) -> String {
    let mut word = word.to_string();
    for (name, v) in values {
        word = word.replace(&format!("{{{name}}}"), &quote(v));
    }
    word
}

fn quote(v: &Value) -> String {
    shell_words::quote(&plain(v)).into_owned()
}

/// A parameter whose value is text the tool works on (a file's content can stand for it).
fn takes_text(spec: &ParamSpec) -> bool {
    spec.kind == "string" && spec.enum_values.is_none()
}

/// A parameter whose value is a path to a file or directory, by its name or its description.
fn takes_path(name: &str, spec: &ParamSpec) -> bool {
    if !matches!(spec.kind.as_str(), "string" | "array<string>") || spec.enum_values.is_some() {
        return false;
    }
    let name = name.to_ascii_lowercase();
    const NAMES: &[&str] = &[
        "file",
        "files",
        "path",
        "paths",
        "db",
        "database",
        "archive",
        "dir",
        "directory",
    ];
    if NAMES.contains(&name.as_str()) {
        return true;
    }
    let about = spec
        .description
        .as_deref()
        .unwrap_or_default()
        .to_ascii_lowercase();
    ["file", "path", "directory"]
        .iter()
        .any(|w| about.split(|c: char| !c.is_alphanumeric()).any(|x| x == *w))
}
