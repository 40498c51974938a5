//! One tool's specification in Markdown (`cmpx doc <tool>`): purpose, invocation name, input
//! and output schemas, the errors it can return, idempotency, examples for the command line, CMP
//! and MCP, and security notes. A pure function of the definition.

use super::json_schema;
use crate::ctp::{ParamType, Parameter, ToolDefinition};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The whole page, ending with a newline.
pub fn markdown(def: &ToolDefinition) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {} (`{}`)\n", def.name, def.id);
    purpose(&mut out, def);
    invocation(&mut out, def);
    input(&mut out, def);
    output(&mut out, def);
    errors(&mut out, def);
    idempotency(&mut out, def);
    version(&mut out, def);
    examples(&mut out, def);
    security(&mut out, def);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

fn purpose(out: &mut String, def: &ToolDefinition) {
    let _ = writeln!(out, "## Purpose\n\n{}\n", def.description);
    if let Some(hint) = &def.ai_instructions {
        let _ = writeln!(out, "For agents: {hint}\n");
    }
    let _ = writeln!(
        out,
        "- Category: {}\n- Tags: {}",
        def.category,
        def.tags.join(", ")
    );
    if !def.related_tools.is_empty() {
        let related: Vec<String> = def.related_tools.iter().map(|t| format!("`{t}`")).collect();
        let _ = writeln!(out, "- Related tools: {}", related.join(", "));
    }
    if def.deprecated == Some(true) {
        let _ = writeln!(
            out,
            "- Deprecated{}",
            def.deprecation_message
                .as_ref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        );
    }
    out.push('\n');
}

fn invocation(out: &mut String, def: &ToolDefinition) {
    let _ = writeln!(
        out,
        "## Invocation name\n\n`{id}` — the same name everywhere:\n\n\
         - command line: `cmpx run {id}`\n\
         - CMP folder: `~/.cmp/tools/{id}/cmp/` (after `cmpx export`)\n\
         - MCP, OpenAI and Anthropic tool name: `{id}`\n\
         - HTTP: `POST /api/tools/{id}` (see `cmpx discover --format openapi`)\n",
        id = def.id
    );
}

fn input(out: &mut String, def: &ToolDefinition) {
    out.push_str("## Input schema\n\n");
    if def.parameters.is_empty() {
        out.push_str("The tool takes no parameters.\n\n");
    } else {
        out.push_str("| Name | Type | Required | Default | Constraints | Description |\n");
        out.push_str("|---|---|---|---|---|---|\n");
        for p in &def.parameters {
            let default = p
                .default_value
                .as_ref()
                .map_or("—".to_string(), |d| format!("`{d}`"));
            let rules = constraints(p);
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                p.name,
                type_label(p),
                if p.required { "yes" } else { "no" },
                cell(&default),
                if rules.is_empty() {
                    "—".to_string()
                } else {
                    cell(&rules.join("; "))
                },
                cell(&describe(p)),
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "As JSON Schema (the arguments object):\n\n```json\n{}\n```\n",
        pretty(&json_schema::input_schema(def))
    );
}

fn output(out: &mut String, def: &ToolDefinition) {
    let _ = writeln!(
        out,
        "## Output schema\n\n{}\n\n\
         A successful call returns a CTP ToolResult `{{\"success\": true, \"data\": …, \"metadata\": \
         {{executionTime, inputSize, outputSize, toolVersion}}}}`. `data` has this shape (inferred \
         from the example; fields may be absent for other inputs):\n\n```json\n{}\n```\n",
        def.output_description,
        pretty(&json_schema::output_schema(def))
    );
}

fn errors(out: &mut String, def: &ToolDefinition) {
    out.push_str(
        "## Error handling\n\nA failure is `{\"success\": false, \"error\": \"<message>\", \"errorCode\": \"<code>\"}`; \
         the message names the parameter, the rule and what was received. The codes this tool can return:\n\n\
         | Code | Exit code | When |\n|---|---|---|\n",
    );
    let required: Vec<String> = def
        .parameters
        .iter()
        .filter(|p| p.required)
        .map(|p| format!("`{}`", p.name))
        .collect();
    if !required.is_empty() {
        let _ = writeln!(
            out,
            "| `MISSING_REQUIRED` | 2 | {} is absent |",
            join_or(&required)
        );
    }
    let mut typed: Vec<String> = Vec::new();
    for (kind, noun) in [
        ("string", "strings"),
        ("number", "numbers"),
        ("boolean", "booleans"),
    ] {
        let names: Vec<String> = def
            .parameters
            .iter()
            .filter(|p| p.kind != ParamType::Json && expected(p) == kind)
            .map(|p| format!("`{}`", p.name))
            .collect();
        match names.len() {
            0 => {}
            1 => typed.push(format!("{} must be a {kind}", names[0])),
            _ => typed.push(format!("{} must be {noun}", join_and(&names))),
        }
    }
    if !typed.is_empty() {
        let _ = writeln!(
            out,
            "| `TYPE_ERROR` | 2 | a value has the wrong JSON type: {} |",
            cell(&typed.join("; "))
        );
    }
    let constrained: Vec<String> = def
        .parameters
        .iter()
        .filter(|p| !constraints(p).is_empty())
        .map(|p| format!("`{}` ({})", p.name, constraints(p).join("; ")))
        .collect();
    if !constrained.is_empty() {
        let _ = writeln!(
            out,
            "| `CONSTRAINT_VIOLATION` | 2 | a value breaks its rule: {} |",
            cell(&constrained.join(", "))
        );
    }
    let json_params: Vec<String> = def
        .parameters
        .iter()
        .filter(|p| p.kind == ParamType::Json)
        .map(|p| format!("`{}`", p.name))
        .collect();
    let json_note = if json_params.is_empty() {
        String::new()
    } else {
        format!(
            ", {} is text that does not parse as JSON",
            join_or(&json_params)
        )
    };
    let _ = writeln!(
        out,
        "| `INVALID_INPUT` | 1 | an unknown parameter name (with a suggestion){json_note}, or content this tool cannot process (malformed input; the message says where) |"
    );
    out.push_str(
        "| `INTERNAL_ERROR` | 1 | a bug in the tool (a caught panic); please report it |\n\n\
         Parameters are checked in declaration order and the first problem is reported.\n\n",
    );
}

fn idempotency(out: &mut String, def: &ToolDefinition) {
    out.push_str("## Idempotency\n\n");
    if crate::catalogue::flags(&def.id).always_random() {
        out.push_str(
            "Safe to retry: the tool has no side effects. It is not deterministic — each call \
             returns fresh random values of the same shape.\n\n",
        );
    } else {
        out.push_str(
            "Idempotent and deterministic: the same arguments always give the same `data`, and \
             the tool has no side effects, so calls can be repeated or cached freely. \
             (`metadata.executionTime` varies.)\n\n",
        );
    }
}

/// The version and what a change of it promises (the rule `cmpx validate --against` checks).
fn version(out: &mut String, def: &ToolDefinition) {
    let _ = writeln!(
        out,
        "## Version\n\n{} (semver). A breaking change to the parameters or the output (a \
         parameter removed, renamed or newly required, a changed type, a removed option or \
         output field) takes a new major version; an addition takes a new minor version. \
         `cmpx validate --against OLD` checks this against an earlier lock or CMP folder.\n",
        def.version()
    );
}

fn examples(out: &mut String, def: &ToolDefinition) {
    out.push_str("## Usage examples\n\n");
    if let Some(d) = &def.example.description {
        let _ = writeln!(out, "{d}.\n");
    }
    let _ = writeln!(
        out,
        "Command line:\n\n```sh\n{}\n```\n\nResult `data`:\n\n```json\n{}\n```\n",
        cli_example(def),
        pretty(&def.example.output)
    );
    let _ = writeln!(
        out,
        "CMP command template (`capability.json`), with each `{{param}}` replaced by a shell-quoted value; optional parameters are appended as `--<name> <value>`:\n\n```sh\n{}\n```\n",
        crate::cmp::mapping::command(def)
    );
    let call = crate::jsonrpc::request(
        json!(1),
        "tools/call",
        json!({ "name": def.id, "arguments": def.example.input }),
    );
    let _ = writeln!(
        out,
        "MCP `tools/call` request:\n\n```json\n{}\n```\n",
        pretty(&call)
    );
}

fn security(out: &mut String, def: &ToolDefinition) {
    out.push_str(
        "## Security considerations\n\n\
         - Runs in-process inside `cmpx`: no network access, no other programs, no files written.\n",
    );
    let readable: Vec<String> = def
        .parameters
        .iter()
        .filter(|p| reads_files(p))
        .map(|p| format!("`{}`", p.name))
        .collect();
    if readable.is_empty() {
        out.push_str("- Reads no files: every value is taken literally.\n");
    } else {
        let _ = writeln!(
            out,
            "- Reads a file only when asked: a command-line value `@path` for {} reads that file (`-` reads stdin for textarea, json and file parameters); over MCP or `--args` values are always literal.",
            join_or(&readable)
        );
    }
    let secrets: Vec<&Parameter> = def.parameters.iter().filter(|p| is_secret(p)).collect();
    if !secrets.is_empty() {
        let names: Vec<String> = secrets.iter().map(|p| format!("`{}`", p.name)).collect();
        let safer = if secrets.iter().all(|p| reads_stdin(p)) {
            "`@path` (a file only you can read) or `-` (stdin)"
        } else if secrets.iter().all(|p| reads_files(p)) {
            "`@path` (a file only you can read)"
        } else {
            "`--args @path` (a JSON file only you can read)"
        };
        let _ = writeln!(
            out,
            "- {} {}. A value written on the command line is visible to other local users (`ps`) and kept in shell history; prefer {safer}. cmpx does not log arguments.",
            join_and(&names),
            if secrets.len() == 1 {
                "carries a secret"
            } else {
                "carry secrets"
            }
        );
    }
    if def.tags.iter().any(|t| t == "password" || t == "secret") {
        out.push_str("- The output is a credential: keep it out of logs and transcripts.\n");
    }
}

/// The command line that reproduces the example: `--name value` words, shell-quoted, or
/// `--args '<json>'` when a value cannot be written as a word (a literal `-` for a parameter
/// that would read stdin).
pub fn cli_example(def: &ToolDefinition) -> String {
    let mut words = vec!["cmpx".to_string(), "run".to_string(), def.id.clone()];
    for (name, value) in &def.example.input {
        let Some(p) = def.parameter(name) else {
            return args_form(def);
        };
        match value {
            Value::Bool(true) if p.kind == ParamType::Boolean => words.push(format!("--{name}")),
            Value::String(s) => {
                if s == "-" && reads_stdin(p) {
                    return args_form(def);
                }
                let s = if s.starts_with('@') && reads_files(p) {
                    format!("@{s}")
                } else {
                    s.clone()
                };
                words.push(format!("--{name}"));
                words.push(shell_words::quote(&s).into_owned());
            }
            other => {
                words.push(format!("--{name}"));
                words.push(shell_words::quote(&other.to_string()).into_owned());
            }
        }
    }
    words.join(" ")
}

fn args_form(def: &ToolDefinition) -> String {
    let args = Value::Object(def.example.input.clone()).to_string();
    format!("cmpx run {} --args {}", def.id, shell_words::quote(&args))
}

/// The rules a value must meet, in words: options, ranges, lengths, patterns.
pub fn constraints(p: &Parameter) -> Vec<String> {
    let mut rules = Vec::new();
    if !p.options.is_empty() {
        let options: Vec<String> = p.option_values().map(|o| format!("`{o}`")).collect();
        rules.push(format!("one of {}", options.join(", ")));
    }
    if let Some(v) = &p.validation {
        let num = |x: f64| {
            if x.fract() == 0.0 && x.abs() < 1e15 {
                format!("{}", x as i64)
            } else {
                format!("{x}")
            }
        };
        if let Some(min) = v.min {
            rules.push(format!("min {}", num(min)));
        }
        if let Some(max) = v.max {
            rules.push(format!("max {}", num(max)));
        }
        if let Some(step) = v.step {
            rules.push(format!("step {}", num(step)));
        }
        if let Some(n) = v.min_length {
            rules.push(format!("at least {n} characters"));
        }
        if let Some(n) = v.max_length {
            rules.push(format!("at most {n} characters"));
        }
        if let Some(pattern) = &v.pattern {
            rules.push(format!("matches `{pattern}`"));
        }
        if let Some(n) = v.min_items {
            rules.push(format!("at least {n} items"));
        }
        if let Some(n) = v.max_items {
            rules.push(format!("at most {n} items"));
        }
    }
    rules
}

fn type_label(p: &Parameter) -> String {
    let json_type = match p.kind {
        ParamType::Boolean => "boolean",
        ParamType::Number if p.is_integer() => "integer",
        ParamType::Number => "number",
        ParamType::Json => "any JSON",
        _ => "string",
    };
    if p.kind.as_str() == json_type {
        json_type.to_string()
    } else {
        format!("{json_type} ({})", p.kind.as_str())
    }
}

fn describe(p: &Parameter) -> String {
    let mut d = p.description.clone();
    match p.kind {
        ParamType::File => d.push_str(" (Base64; on the command line `@path` reads a file)"),
        ParamType::Json => d.push_str(" (a JSON value, or JSON text)"),
        _ => {}
    }
    if let Some(hint) = &p.ai_hint {
        d = format!("{d}. {hint}");
    }
    d
}

/// The JSON type a non-`json` parameter's value must have.
fn expected(p: &Parameter) -> &'static str {
    match p.kind {
        ParamType::Boolean => "boolean",
        ParamType::Number => "number",
        _ => "string",
    }
}

/// Parameters whose command-line value `@path` reads a file.
fn reads_files(p: &Parameter) -> bool {
    matches!(
        p.kind,
        ParamType::Text | ParamType::Textarea | ParamType::Json | ParamType::File
    )
}

fn reads_stdin(p: &Parameter) -> bool {
    matches!(
        p.kind,
        ParamType::Textarea | ParamType::Json | ParamType::File
    )
}

/// Whether a parameter holds a secret, judged by the last word of its name: `key`, `secret`,
/// `privateKey`, `password`, `token` — but not `publicKey`, `sortKeys` or `keyEncoding`.
pub fn is_secret(p: &Parameter) -> bool {
    let name = p.name.as_str();
    let last = name
        .rfind(|c: char| c.is_ascii_uppercase() || c == '_' || c == '-')
        .map_or(name, |i| &name[i..])
        .trim_start_matches(['_', '-'])
        .to_ascii_lowercase();
    let public = name.to_ascii_lowercase().starts_with("public");
    !public
        && matches!(
            last.as_str(),
            "key" | "secret" | "password" | "passphrase" | "token" | "apikey" | "pin"
        )
}

fn join_or(items: &[String]) -> String {
    join_with(items, "or")
}

fn join_and(items: &[String]) -> String {
    join_with(items, "and")
}

fn join_with(items: &[String], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

/// Text safe inside a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
