//! Turns the words after `cmpx run <tool>` (or `cmpx do <request>`) into a raw argument map
//! plus the executor's own flags (`--yes`, `--dry-run`, `--timeout`, `--intent`, `--json`, …).
//!
//! `--name value`, `--name=value`, `--flag` (booleans), `--args '<json object>'`, and a bare word
//! for the first required parameter not yet given. For text, textarea, json and file parameters
//! a value `@path` reads a file and `@@text` stands for the literal `@text`; for textarea, json
//! and file parameters `-` reads stdin. Other types take values literally. Names match the parameter exactly or after
//! ignoring case, `-` and `_` (so `--line-length` reaches `lineLength`).

use crate::ctp::{ParamType, Parameter, ToolDefinition};
use crate::error::Error;
use base64::Engine;
use serde_json::{Map, Value};
use std::io::Read;

#[derive(Debug, Default)]
pub(crate) struct Invocation {
    pub args: Map<String, Value>,
    pub json: bool,
    pub pretty: bool,
    /// `--yes`: consent to a confirm/destructive intent.
    pub yes: bool,
    /// `--dry-run`: show the argv, run nothing.
    pub dry_run: bool,
    /// `--timeout <seconds>`: how long the tool or program may run.
    pub timeout: Option<std::time::Duration>,
    /// `--intent <index|pattern>`: which intent of an installed tool.
    pub intent: Option<String>,
    /// `--output-file <path>`: where the full `output` goes when it is too large to print.
    pub output_file: Option<String>,
    /// A `@path` or `-` value left unread for the caller to stream. Its slot in `args` holds
    /// an empty string until [`Invocation::read_deferred`] fills it.
    pub deferred: Option<Deferred>,
    /// Things the caller should hear about its values, for the result's `warnings` (a value
    /// that is the name of a file, where `@name` would have read it).
    pub warnings: Vec<String>,
}

/// A parameter whose value the caller reads itself, as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Deferred {
    pub param: String,
    pub source: DeferredSource,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeferredSource {
    /// `@path`
    File(String),
    /// `-`
    Stdin,
}

impl Deferred {
    /// The bytes of a deferred `-` (at most the input limit); `None` for a file.
    pub(crate) fn stdin_bytes(&self) -> Option<Result<Vec<u8>, Error>> {
        (self.source == DeferredSource::Stdin).then(|| read_stdin(&mut false, &self.param))
    }
}

impl Invocation {
    /// Reads the deferred file into `args` after all, as [`parse`] would have.
    pub(crate) fn read_deferred(&mut self) -> Result<(), Error> {
        if let Some(d) = self.deferred.take() {
            let bytes = match &d.source {
                DeferredSource::File(path) => read_file(path, &d.param)?,
                DeferredSource::Stdin => read_stdin(&mut false, &d.param)?,
            };
            let text = utf8(bytes, &d.param)?;
            self.args.insert(d.param, Value::String(text));
        }
        Ok(())
    }
}

/// Where a parameter's value may come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// Taken as written.
    Literal,
    /// `@path` reads a UTF-8 file.
    Files,
    /// `@path` reads a UTF-8 file, `-` reads stdin.
    FilesAndStdin,
    /// `@path` or `-` read bytes, passed on as Base64 (CTP `file`).
    Binary,
}

/// What the parser needs to know about one parameter.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub name: String,
    pub required: bool,
    /// Boolean: `--name` alone means true.
    pub flag: bool,
    pub source: Source,
}

pub(crate) fn slots_for_definition(def: &ToolDefinition) -> Vec<Slot> {
    def.parameters.iter().map(slot_for).collect()
}

fn slot_for(p: &Parameter) -> Slot {
    let source = match p.kind {
        ParamType::Text => Source::Files,
        ParamType::Textarea | ParamType::Json => Source::FilesAndStdin,
        ParamType::File => Source::Binary,
        _ => Source::Literal,
    };
    Slot {
        name: p.name.clone(),
        required: p.required,
        flag: p.kind == ParamType::Boolean,
        source,
    }
}

/// Slots for a CMP intent: values are literal (an adapter's path is a path, not its content).
pub(crate) fn slots_for_intent(intent: &crate::cmp::Intent) -> Vec<Slot> {
    intent
        .params
        .iter()
        .map(|(name, spec)| Slot {
            name: name.clone(),
            required: spec.required,
            flag: spec.kind == "boolean",
            source: Source::Literal,
        })
        .collect()
}

fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

fn find_slot<'a>(slots: &'a [Slot], name: &str) -> Option<&'a Slot> {
    slots.iter().find(|s| s.name == name).or_else(|| {
        let wanted = squash(name);
        slots.iter().find(|s| squash(&s.name) == wanted)
    })
}

/// Whether `--help` (or `-h`) stands among the words as a flag, not as some parameter's value
/// (`--value --help` passes the text "--help"). Nothing is read: help never waits on stdin.
pub(crate) fn asks_for_help(slots: &[Slot], tokens: &[String]) -> bool {
    const VALUED: &[&str] = &["timeout", "output-file", "outputFile", "intent", "args"];
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        i += 1;
        if token == "-h" {
            return true;
        }
        let Some(flag) = token.strip_prefix("--").filter(|f| !f.is_empty()) else {
            continue;
        };
        if flag == "help" {
            return true;
        }
        if flag.contains('=') {
            continue;
        }
        let takes_value = match find_slot(slots, flag) {
            Some(slot) => !slot.flag,
            None if VALUED.contains(&flag) => true,
            None if Switch::named(flag).is_some() => false,
            None => tokens.get(i).is_some_and(|t| !t.starts_with("--")),
        };
        if takes_value {
            i += 1;
        }
    }
    false
}

pub(crate) fn parse(def: &ToolDefinition, tokens: &[String]) -> Result<Invocation, Error> {
    parse_slots(&slots_for_definition(def), tokens)
}

/// [`parse`], leaving a `@path` value of parameter `defer` unread (see [`Invocation::deferred`]).
pub(crate) fn parse_deferring(
    def: &ToolDefinition,
    tokens: &[String],
    defer: &str,
) -> Result<Invocation, Error> {
    parse_inner(&slots_for_definition(def), tokens, Some(defer))
}

pub(crate) fn parse_slots(slots: &[Slot], tokens: &[String]) -> Result<Invocation, Error> {
    parse_inner(slots, tokens, None)
}

fn parse_inner(
    slots: &[Slot],
    tokens: &[String],
    defer: Option<&str>,
) -> Result<Invocation, Error> {
    let mut inv = Invocation::default();
    let mut deferred = None;
    let mut warnings = Vec::new();
    // A value for the deferred parameter that names a file or stdin is recorded, not read.
    let mut value_of = |slot: &Slot, raw: &str, stdin_used: &mut bool| {
        if defer == Some(slot.name.as_str()) {
            let source = match raw.strip_prefix('@').filter(|p| !p.starts_with('@')) {
                Some(path) if matches!(slot.source, Source::Files | Source::FilesAndStdin) => {
                    Some(DeferredSource::File(path.to_string()))
                }
                None if raw == "-" && slot.source == Source::FilesAndStdin => {
                    if std::mem::replace(stdin_used, true) {
                        return Err(Error::Usage(format!(
                            "--{} -: standard input can be read only once",
                            slot.name
                        )));
                    }
                    Some(DeferredSource::Stdin)
                }
                _ => None,
            };
            if let Some(source) = source {
                deferred = Some(Deferred {
                    param: slot.name.clone(),
                    source,
                });
                return Ok(Value::String(String::new()));
            }
        }
        if let Some(warning) = names_a_file(slot, raw) {
            warnings.push(warning);
        }
        resolve_value(slot, raw, stdin_used)
    };
    let mut stdin_used = false;
    let mut given: Map<String, Value> = Map::new();
    let mut from_args_flag: Map<String, Value> = Map::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        i += 1;
        let Some(flag) = token.strip_prefix("--").filter(|f| !f.is_empty()) else {
            let Some(slot) = slots
                .iter()
                .find(|s| s.required && !given.contains_key(&s.name))
            else {
                return Err(Error::Usage(format!(
                    "unexpected argument '{}'; give parameters as --<name> <value>",
                    crate::text::preview(token, 40)
                )));
            };
            let value = value_of(slot, token, &mut stdin_used)?;
            given.insert(slot.name.clone(), value);
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (flag, None),
        };
        // The executor's switches take no value: `--yes=false` must not read as consent, so
        // any `=value` on them is a usage error and nothing runs.
        if let (Some(switch), Some(v)) = (Switch::named(name), inline.as_deref()) {
            return Err(Error::Usage(format!(
                "--{} takes no value (got --{}={}); leave it out, or give it alone to mean yes",
                switch.name(),
                crate::text::preview(name, 20),
                crate::text::preview(v, 20)
            )));
        }
        // `--yes no` must not read as consent followed by a stray word.
        if let (Some(Switch::Yes), Some(next)) = (Switch::named(name), tokens.get(i))
            && is_truth_word(next)
        {
            return Err(Error::Usage(format!(
                "--yes takes no value (got --yes {}); give --yes alone to consent, or leave it out",
                crate::text::preview(next, 20)
            )));
        }
        match name {
            "json" => inv.json = true,
            "pretty" => inv.pretty = true,
            // Callers look for help first (`asks_for_help`) and never get here with it.
            "help" => {}
            "yes" => inv.yes = true,
            "dry-run" | "dryRun" => inv.dry_run = true,
            "timeout" => {
                let text = match inline {
                    Some(v) => v,
                    None => next_value(tokens, &mut i, "timeout")?,
                };
                inv.timeout = Some(parse_timeout(&text)?);
            }
            "output-file" | "outputFile" => {
                inv.output_file = Some(match inline {
                    Some(v) => v,
                    None => next_value(tokens, &mut i, "output-file")?,
                })
            }
            "intent" => {
                inv.intent = Some(match inline {
                    Some(v) => v,
                    None => next_value(tokens, &mut i, "intent")?,
                })
            }
            "args" => {
                let text = match inline {
                    Some(v) => v,
                    None => next_value(tokens, &mut i, "args")?,
                };
                let text = read_indirect(&text, &mut stdin_used, "args")?;
                match serde_json::from_str::<Value>(&text) {
                    Ok(Value::Object(map)) => from_args_flag.extend(map),
                    Ok(_) => {
                        return Err(Error::Usage(
                            "--args must be a JSON object, e.g. --args '{\"input\": \"x\"}'".into(),
                        ));
                    }
                    Err(e) => return Err(Error::Usage(format!("--args is not valid JSON: {e}"))),
                }
            }
            _ => {
                let slot = find_slot(slots, name);
                let key = slot.map_or_else(|| name.to_string(), |s| s.name.clone());
                if given.contains_key(&key) {
                    return Err(Error::Usage(format!("--{key} is given more than once")));
                }
                let value = match (slot, inline) {
                    (Some(s), Some(v)) => value_of(s, &v, &mut stdin_used)?,
                    (Some(s), None) if s.flag => {
                        // `--flag ''` is the default, as `''` is for every other parameter.
                        match tokens.get(i).filter(|t| {
                            t.is_empty()
                                || t.eq_ignore_ascii_case("true")
                                || t.eq_ignore_ascii_case("false")
                        }) {
                            Some(t) => {
                                i += 1;
                                Value::String(t.clone())
                            }
                            None => Value::Bool(true),
                        }
                    }
                    (Some(s), None) => {
                        let raw = next_value(tokens, &mut i, &s.name)?;
                        value_of(s, &raw, &mut stdin_used)?
                    }
                    // Unknown names are kept so that validation can name them with a suggestion.
                    (None, Some(v)) => Value::String(v),
                    (None, None) => match tokens.get(i).filter(|t| !t.starts_with("--")) {
                        Some(t) => {
                            i += 1;
                            Value::String(t.clone())
                        }
                        None => Value::Bool(true),
                    },
                };
                given.insert(key, value);
            }
        }
    }
    inv.deferred = deferred;
    inv.warnings = warnings;
    inv.args = from_args_flag;
    inv.args.extend(given);
    if let Some(unknown) = inv.args.keys().find(|k| find_slot(slots, k).is_none()) {
        return Err(unknown_parameter(slots, unknown));
    }
    Ok(inv)
}

/// A name no parameter answers to is a usage error (exit 2), with the closest name offered.
fn unknown_parameter(slots: &[Slot], name: &str) -> Error {
    let names: Vec<&str> = slots.iter().map(|s| s.name.as_str()).collect();
    let hint = crate::suggest::did_you_mean(name, names.iter().copied())
        .map(|s| format!("; did you mean --{s}?"))
        .unwrap_or_default();
    let known = if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    };
    Error::Usage(format!(
        "unknown parameter --{}{hint} (parameters: {known})",
        crate::text::escape_control(&crate::text::preview(name, 60))
    ))
}

/// The executor's own switches, which never take a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Switch {
    Json,
    Pretty,
    Help,
    Yes,
    DryRun,
}

impl Switch {
    fn named(name: &str) -> Option<Switch> {
        Some(match name {
            "json" => Switch::Json,
            "pretty" => Switch::Pretty,
            "help" => Switch::Help,
            "yes" => Switch::Yes,
            "dry-run" | "dryRun" => Switch::DryRun,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Switch::Json => "json",
            Switch::Pretty => "pretty",
            Switch::Help => "help",
            Switch::Yes => "yes",
            Switch::DryRun => "dry-run",
        }
    }
}

/// Words that read as a value for `--yes` (`--yes false`): refused rather than guessed at.
pub(crate) fn is_truth_word(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "true", "false", "yes", "no", "y", "n", "1", "0", "on", "off",
    ];
    WORDS.iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// `--timeout` in seconds: positive, finite, and at most a day (longer is surely a typo).
pub(crate) fn parse_timeout(text: &str) -> Result<std::time::Duration, Error> {
    const MAX: f64 = 86_400.0;
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= MAX)
        .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| {
            Error::Usage(format!(
                "--timeout takes a number of seconds above 0 and at most {MAX}, not '{}'",
                crate::text::preview(text, 20)
            ))
        })
}

fn next_value(tokens: &[String], i: &mut usize, name: &str) -> Result<String, Error> {
    match tokens.get(*i) {
        Some(v) => {
            *i += 1;
            Ok(v.clone())
        }
        None => Err(Error::Usage(format!("--{name} needs a value"))),
    }
}

fn read_stdin(stdin_used: &mut bool, name: &str) -> Result<Vec<u8>, Error> {
    if std::mem::replace(stdin_used, true) {
        return Err(Error::Usage(format!(
            "--{name} -: standard input can be read only once"
        )));
    }
    read_capped(std::io::stdin().lock(), 0, name, "standard input")
        .map_err(|e| e.unwrap_or_else(|e| Error::io("read", "standard input", e)))
}

/// The error for a `@path` file that cannot be read.
pub(crate) fn unreadable(name: &str, path: &str, e: &std::io::Error) -> Error {
    let shown = crate::text::preview(path, 200);
    Error::Usage(format!("--{name} @{shown}: cannot read the file: {e}"))
}

fn read_file(path: &str, name: &str) -> Result<Vec<u8>, Error> {
    let shown = crate::text::preview(path, 200);
    let cannot = |e: std::io::Error| unreadable(name, path, &e);
    let file = std::fs::File::open(path).map_err(cannot)?;
    // A regular file's size is known up front: a too-large one is refused before reading.
    let size = file
        .metadata()
        .map(|m| if m.is_file() { m.len() } else { 0 })
        .unwrap_or(0);
    read_capped(file, size, name, &format!("@{shown}")).map_err(|e| e.unwrap_or_else(cannot))
}

/// Reads at most the input limit (`CMPX_MAX_INPUT`). `Err(Ok(_))` is the limit's own error.
fn read_capped(
    reader: impl Read,
    known_size: u64,
    name: &str,
    what: &str,
) -> Result<Vec<u8>, Result<Error, std::io::Error>> {
    let limit = crate::limits::max_input();
    let too_large = || {
        Ok(Error::Usage(format!(
            "--{name} {what} is larger than the {} input limit; set {}=<size> (e.g. 4G) to allow more",
            crate::limits::human(limit),
            crate::limits::MAX_INPUT_ENV
        )))
    };
    if known_size > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(known_size).unwrap_or(0));
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Err)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The raw bytes a value stands for, or `None` when it is a literal.
pub(crate) fn indirect_bytes(
    raw: &str,
    stdin_used: &mut bool,
    name: &str,
) -> Result<Option<Vec<u8>>, Error> {
    if raw == "-" {
        return read_stdin(stdin_used, name).map(Some);
    }
    match raw.strip_prefix('@') {
        Some(rest) if !rest.starts_with('@') => read_file(rest, name).map(Some),
        _ => Ok(None),
    }
}

/// The literal a value stands for: `@@x` is `@x`.
pub(crate) fn literal(raw: &str) -> &str {
    if raw.starts_with("@@") {
        &raw[1..]
    } else {
        raw
    }
}

/// Bytes read for parameter `name` as text, or the error naming where they stop being UTF-8.
pub(crate) fn utf8(bytes: Vec<u8>, name: &str) -> Result<String, Error> {
    // The SIMD validator checks a large `@path` input several times faster than std; std is
    // asked only to locate the first bad byte for the message.
    if simdutf8::basic::from_utf8(&bytes).is_ok() {
        // SAFETY: simdutf8 has just validated these exact bytes as UTF-8.
        return Ok(unsafe { String::from_utf8_unchecked(bytes) });
    }
    let offset = std::str::from_utf8(&bytes)
        .err()
        .map_or(0, |e| e.valid_up_to());
    Err(not_utf8(name, offset as u64))
}

/// The error for a text input that is not UTF-8.
fn not_utf8(name: &str, offset: u64) -> Error {
    Error::Usage(format!(
        "--{name}: the input is not valid UTF-8 (first bad byte at offset {offset}); pass binary data to a file parameter or as Base64"
    ))
}

fn read_indirect(raw: &str, stdin_used: &mut bool, name: &str) -> Result<String, Error> {
    match indirect_bytes(raw, stdin_used, name)? {
        Some(bytes) => utf8(bytes, name),
        None => Ok(literal(raw).to_string()),
    }
}

/// A warning when a content parameter is given, as literal text, exactly the name of a file
/// that exists: agents write `--input=config.yaml` meaning the file, and the tool would
/// otherwise succeed quietly on the eleven characters of its name.
fn names_a_file(slot: &Slot, raw: &str) -> Option<String> {
    if slot.source == Source::Literal
        || raw.is_empty()
        || raw == "-"
        || raw.starts_with('@')
        || raw.len() > 4096
        || raw.contains(['\n', '\0'])
        || !std::path::Path::new(raw).is_file()
    {
        return None;
    }
    let shown = crate::text::escape_control(&crate::text::preview(raw, 80));
    Some(format!(
        "--{} was taken as the text '{shown}', which is also the name of a file here; to read the file, pass --{}=@{shown}",
        slot.name, slot.name
    ))
}

fn resolve_value(slot: &Slot, raw: &str, stdin_used: &mut bool) -> Result<Value, Error> {
    let reads_stdin = matches!(slot.source, Source::FilesAndStdin | Source::Binary);
    // The snippet's one rule holds for every value: a leading `@@` is a literal `@` (a
    // program's argument, a select value), even where `@path` reads nothing.
    if slot.source == Source::Literal || (raw == "-" && !reads_stdin) {
        return Ok(Value::String(literal(raw).to_string()));
    }
    let text = match indirect_bytes(raw, stdin_used, &slot.name)? {
        // Binary parameters carry Base64, as the CTP `file` type specifies.
        Some(bytes) if slot.source == Source::Binary => {
            base64::engine::general_purpose::STANDARD.encode(bytes)
        }
        Some(bytes) => utf8(bytes, &slot.name)?,
        None => literal(raw).to_string(),
    };
    Ok(Value::String(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def() -> ToolDefinition {
        crate::catalogue::get("base64-encoder").unwrap()
    }

    fn parse_words(words: &[&str]) -> Result<Invocation, Error> {
        let tokens: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        parse(&def(), &tokens)
    }

    #[test]
    fn an_empty_value_after_a_flag_is_its_default_not_a_stray_argument() {
        let def = crate::catalogue::get("uuid-generator").unwrap();
        let words: Vec<String> = ["--uppercase", "", "--version", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let inv = parse(&def, &words).unwrap();
        assert_eq!(inv.args["uppercase"], json!(""));
        assert_eq!(inv.args["version"], json!(""));
    }

    #[test]
    fn a_value_that_names_a_file_is_taken_as_text_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.yaml");
        std::fs::write(&file, "a: 1\n").unwrap();
        let name = file.to_str().unwrap();
        let inv = parse_words(&["--input", name]).unwrap();
        assert_eq!(inv.args["input"], json!(name));
        assert_eq!(inv.warnings.len(), 1, "{:?}", inv.warnings);
        assert!(
            inv.warnings[0].contains(&format!("--input=@{name}")),
            "{}",
            inv.warnings[0]
        );
        // Read as a file, a folder's name, a missing file: nothing to warn about.
        let at = format!("@{name}");
        let dir_name = dir.path().to_str().unwrap();
        let missing = dir.path().join("absent.yaml");
        for value in [
            at.as_str(),
            dir_name,
            missing.to_str().unwrap(),
            "plain text",
        ] {
            let inv = parse_words(&["--input", value]).unwrap();
            assert!(inv.warnings.is_empty(), "{value}: {:?}", inv.warnings);
        }
    }

    #[test]
    fn parses_names_values_flags_and_args() {
        let inv =
            parse_words(&["--input", "--x", "--line-length=76", "--padding", "--json"]).unwrap();
        assert_eq!(
            inv.args,
            json!({"input": "--x", "lineLength": "76", "padding": true})
                .as_object()
                .unwrap()
                .clone()
        );
        assert!(inv.json);
        let inv = parse_words(&[
            "--args",
            r#"{"input":"a","mode":"decode"}"#,
            "--mode",
            "encode",
        ])
        .unwrap();
        assert_eq!(inv.args["mode"], "encode");
        assert_eq!(inv.args["input"], "a");
    }

    #[test]
    fn bare_word_fills_the_first_required_parameter() {
        let inv = parse_words(&["hello", "--padding", "false"]).unwrap();
        assert_eq!(inv.args["input"], "hello");
        assert_eq!(inv.args["padding"], "false");
        assert!(matches!(parse_words(&["a", "b"]), Err(Error::Usage(_))));
    }

    #[test]
    fn at_reads_files_and_double_at_is_literal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        std::fs::write(&path, "from file").unwrap();
        let inv = parse_words(&["--input", &format!("@{}", path.display())]).unwrap();
        assert_eq!(inv.args["input"], "from file");
        let inv = parse_words(&["--input", "@@handle"]).unwrap();
        assert_eq!(inv.args["input"], "@handle");
        let err = parse_words(&["--input", "@/no/such/file"]).unwrap_err();
        assert!(err.to_string().contains("cannot read the file"), "{err}");
    }

    #[test]
    fn rejects_repeats_and_missing_values() {
        assert!(parse_words(&["--input", "a", "--input", "b"]).is_err());
        assert!(parse_words(&["--input"]).is_err());
        assert!(parse_words(&["--args", "[1]"]).is_err());
    }
}
