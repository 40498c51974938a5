//! `llms.txt` and `llms-full.txt` after the llmstxt.org convention: an H1 with the name, a
//! blockquote summary, a few plain lines, then H2 sections of `- [title](url): notes` links —
//! one section per category with one line per tool, and an "Optional" section with the other
//! discovery documents. Tool links point at `<baseUrl>/docs/<id>.md`, the pages
//! `cmpx doc --all --out <dir>/docs` writes. The full version inlines every tool's description,
//! parameters and example instead of linking.

use super::{Options, SERVICE_NAME};
use crate::ctp::{Parameter, ToolDefinition};
use std::fmt::Write as _;

/// The concise index.
pub fn index(tools: &[ToolDefinition], opts: &Options) -> String {
    let mut out = header(tools, opts);
    out.push_str(
        "Each link below is a tool's full specification (parameters, output, errors, examples). \
         Run a tool locally with `cmpx run <id> --<param> <value>` or `cmpx doc <id>`.\n",
    );
    for (category, list) in super::by_category(tools) {
        let _ = write!(out, "\n## {}\n\n", super::category_name(category));
        for def in list {
            let required: Vec<&str> = def
                .parameters
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name.as_str())
                .collect();
            let needs = if required.is_empty() {
                String::new()
            } else {
                format!("; requires {}", required.join(", "))
            };
            let _ = writeln!(
                out,
                "- [{}]({}): {} (`{}`{needs})",
                def.name,
                opts.url(&format!("docs/{}.md", def.id)),
                def.summary(),
                def.id,
            );
        }
    }
    out.push_str("\n## Optional\n\n");
    for (title, file, note) in [
        (
            "Full reference",
            "llms-full.txt",
            "every tool's description, parameters and example in one file",
        ),
        (
            "OpenAPI",
            "api/openapi.yaml",
            "OpenAPI 3.1, one POST operation per tool",
        ),
        (
            "CTP manifest",
            ".well-known/ctp-manifest.json",
            "the CTP service manifest",
        ),
        (
            "AI tools",
            "api/ai-tools.json",
            "tools with JSON Schema parameters and endpoints",
        ),
    ] {
        let _ = writeln!(out, "- [{title}]({}): {note}", opts.url(file));
    }
    out
}

/// The full reference: the same header, then every tool in detail.
pub fn full(tools: &[ToolDefinition], opts: &Options) -> String {
    let mut out = header(tools, opts);
    out.push_str(
        "Every tool is called the same way: locally `cmpx run <id> --<param> <value>` (or \
         `--args '<json object>'`), or over HTTP as `POST <baseUrl>/api/tools/<id>` with a JSON \
         object of parameters. Both return a CTP ToolResult: `{\"success\": true, \"data\": {…}}`, \
         or `{\"success\": false, \"error\": \"…\", \"errorCode\": \"…\"}` with errorCode one of \
         MISSING_REQUIRED, TYPE_ERROR, CONSTRAINT_VIOLATION, INVALID_INPUT, EXECUTION_ERROR, \
         INTERNAL_ERROR.\n",
    );
    for (category, list) in super::by_category(tools) {
        let _ = write!(
            out,
            "\n## {}\n\n{}.\n",
            super::category_name(category),
            super::category_description(category)
        );
        for def in list {
            tool(&mut out, def, opts);
        }
    }
    out
}

fn header(tools: &[ToolDefinition], opts: &Options) -> String {
    format!(
        "# {SERVICE_NAME}\n\n> {} developer utilities (JSON, Base64, hashes, HMAC, JWT, UUIDs, timestamps, cron, case conversion, diff, regex, CSV/YAML/XML, QR codes and more) as ConveniencePro Tool Protocol (CTP) tools. They run locally and offline through the `cmpx` command line, or over HTTP at {}.\n\n",
        tools.len(),
        opts.base_url,
    )
}

fn tool(out: &mut String, def: &ToolDefinition, opts: &Options) {
    let _ = write!(
        out,
        "\n### {} (`{}`)\n\n{}\n",
        def.name, def.id, def.description
    );
    if let Some(hint) = &def.ai_instructions {
        let _ = write!(out, "\nHint: {hint}\n");
    }
    let _ = write!(
        out,
        "\n- Run: `{}`\n- Endpoint: `POST {}`\n- Tags: {}\n",
        crate::cmp::mapping::command(def),
        opts.endpoint(&def.id),
        def.tags.join(", ")
    );
    if def.parameters.is_empty() {
        out.push_str("\nParameters: none.\n");
    } else {
        out.push_str("\nParameters:\n\n");
        for p in &def.parameters {
            let _ = writeln!(out, "- {}", parameter(p));
        }
    }
    let _ = write!(out, "\nReturns: {}\n", def.output_description);
    let _ = write!(
        out,
        "\nExample{}:\n\n```json\n{}\n```\n\n```json\n{}\n```\n",
        def.example
            .description
            .as_ref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default(),
        serde_json::Value::Object(def.example.input.clone()),
        def.example.output,
    );
}

/// `name` (type, required | default), description, then constraints and options.
fn parameter(p: &Parameter) -> String {
    let mut s = format!("`{}` ({}", p.name, p.kind.as_str());
    if p.required {
        s.push_str(", required");
    } else if let Some(d) = &p.default_value {
        let _ = write!(s, ", default {d}");
    } else {
        s.push_str(", optional");
    }
    let _ = write!(s, "): {}", p.description);
    let rules = super::tool_doc::constraints(p);
    if !rules.is_empty() {
        let _ = write!(s, " ({})", rules.join("; "));
    }
    s
}
