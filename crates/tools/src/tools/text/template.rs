//! Template rendering with JSON data: Handlebars (handlebars crate, the engine of CyberChef's
//! "Template" operation) and Jinja (minijinja).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::{self, Capped};
use crate::tools::kit::data::with_output;
use crate::tools::kit::depth;
use crate::tools::kit::tool::Tool;
use indexmap::IndexMap;
use minijinja::value::{Enumerator, Object, ObjectRepr};
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use serde_json::{Value, json};
use std::sync::Arc;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("template-renderer", template_renderer)];

/// Handlebars partials can recurse without bound and Jinja loops can nest to billions of steps;
/// the worker process every built-in tool runs in (`exec::worker`) bounds both, in time, memory
/// and stack.
fn template_renderer(args: &Args) -> ToolOutcome {
    render(args)
}

/// Blocks (`{{#if}}`, `{% for %}`) and brackets inside one tag may nest this deep: below
/// minijinja's parser limit (150 levels of blocks and expressions together), so that both
/// engines refuse at the same depth with the same message.
const TEMPLATE_DEPTH: usize = 100;

/// Refuses templates whose blocks, or the brackets inside one tag, nest deeper than
/// [`TEMPLATE_DEPTH`]: both engines parse and render recursively.
fn check_depth(template: &str, jinja: bool) -> Result<(), ToolError> {
    let mut level = 0usize;
    let mut rest = template;
    // Handlebars has one kind of tag, Jinja statements `{% %}` and expressions `{{ }}`.
    let next = |text: &str| {
        let expression = text.find("{{").map(|i| (i, "{{", "}}"));
        let statement = text.find("{%").filter(|_| jinja).map(|i| (i, "{%", "%}"));
        match (expression, statement) {
            (Some(e), Some(s)) => Some(if e.0 < s.0 { e } else { s }),
            (e, s) => e.or(s),
        }
    };
    let mut tags = 0usize;
    while let Some((start, open, close)) = next(rest) {
        let at = template.len() - rest.len() + start;
        // Each tag becomes a node of about a hundred bytes in the engine's parsed template.
        tags += 1;
        if tags > budget::MAX_VALUES {
            return Err(budget::too_many(
                "the template",
                "tags",
                "render it in parts",
            ));
        }
        let body = &rest[start + open.len()..];
        // A tag runs to its closing delimiter.
        let end = body.find(close).unwrap_or(body.len());
        let tag = body[..end].trim_start_matches(['-', '+', '~']).trim_start();
        if jinja && open == "{{" {
            // An expression: only its brackets nest.
        } else if jinja {
            let word = tag
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or("");
            match word {
                "if" | "for" | "macro" | "call" | "filter" | "with" | "block" | "autoescape"
                | "raw" | "trans" => level += 1,
                "set" if !tag.contains('=') => level += 1,
                w if w.starts_with("end") => level = level.saturating_sub(1),
                _ => {}
            }
        } else if tag.starts_with('#') || (tag.starts_with('^') && tag.len() > 1) {
            level += 1;
        } else if tag.starts_with('/') {
            level = level.saturating_sub(1);
        }
        let brackets = depth::Syntax {
            open: b"([{",
            close: b")]}",
            quotes: b"'\"",
            escapes: true,
            block_comments: false,
            interpolation: false,
            line_breaks: b"",
        };
        let inner = depth::check("template", &body[..end], &brackets, TEMPLATE_DEPTH)
            .map(|_| ())
            .map_err(|_| depth::too_deep("template", TEMPLATE_DEPTH, depth::place(template, at)));
        if level > TEMPLATE_DEPTH {
            return Err(depth::too_deep(
                "template",
                TEMPLATE_DEPTH,
                depth::place(template, at),
            ));
        }
        inner?;
        rest = &body[(end + close.len()).min(body.len())..];
    }
    Ok(())
}

fn render(args: &Args) -> ToolOutcome {
    let template = args.str("template")?;
    let empty = Value::Object(Default::default());
    let data = args.get("data").unwrap_or(&empty);
    let engine = args.str("engine")?;
    let strict = args.flag("strict");
    // "auto" keeps each engine's own default: Handlebars escapes {{ }}, Jinja does not for
    // templates that are not named *.html.
    let escape = match (args.str("escape")?, engine) {
        ("html", _) => true,
        ("none", _) => false,
        (_, "jinja") => false,
        _ => true,
    };
    check_depth(template, engine == "jinja")?;
    // Both engines recurse once per level of blocks.
    let output = depth::with_stack(|| {
        let mut out = Capped::new();
        let rendered = if engine == "jinja" {
            render_jinja(template, data, strict, escape, &mut out)
        } else {
            render_handlebars(template, data, strict, escape, &mut out)
        };
        if out.over {
            return Err(budget::output_too_large(
                "the rendered text",
                "a loop repeats more than the data holds, or a nested loop multiplies it: render less",
            ));
        }
        rendered.map(|()| out.into_string())
    })?;
    Ok(with_output(output, json!({ "engine": engine })))
}

fn render_handlebars(
    template: &str,
    data: &Value,
    strict: bool,
    escape: bool,
    out: &mut Capped,
) -> Result<(), ToolError> {
    let mut hb = handlebars::Handlebars::new();
    hb.set_strict_mode(strict);
    if !escape {
        hb.register_escape_fn(handlebars::no_escape);
    }
    hb.render_template_to_write(template, data, out)
        .map_err(|e| {
            use handlebars::RenderErrorReason as R;
            let (what, pos) = match e.reason() {
                R::TemplateError(t) => {
                    let reason = t.reason().to_string();
                    // pest's syntax errors carry an ASCII diagram after the first line.
                    let first = reason.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                    (format!("syntax error: {}", first.trim()), t.pos())
                }
                R::MissingVariable(Some(path)) => (
                    format!("variable '{path}' is missing from the data (strict mode)"),
                    None,
                ),
                other => (other.to_string(), None),
            };
            let pos = pos.or(e.line_no.zip(e.column_no));
            match pos {
                Some((line, column)) => ToolError::invalid(format!(
                    "Handlebars template error at line {line}, column {column}: {what}"
                )),
                None => ToolError::invalid(format!("Handlebars template error: {what}")),
            }
        })
}

/// A JSON object for minijinja that keeps the keys in their JSON order, as Jinja2 does with a
/// Python dict (minijinja's own maps sort keys).
#[derive(Debug)]
struct OrderedMap(IndexMap<String, minijinja::Value>);

impl Object for OrderedMap {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }
    fn get_value(self: &Arc<Self>, key: &minijinja::Value) -> Option<minijinja::Value> {
        self.0.get(key.as_str()?).cloned()
    }
    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let keys: Vec<minijinja::Value> = self
            .0
            .keys()
            .map(|k| minijinja::Value::from(k.as_str()))
            .collect();
        Enumerator::Iter(Box::new(keys.into_iter()))
    }
}

fn to_jinja(v: &Value) -> minijinja::Value {
    match v {
        Value::Null => minijinja::Value::from(()),
        Value::Bool(b) => minijinja::Value::from(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                minijinja::Value::from(i)
            } else if let Some(u) = n.as_u64() {
                minijinja::Value::from(u)
            } else {
                minijinja::Value::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => minijinja::Value::from(s.as_str()),
        Value::Array(a) => a.iter().map(to_jinja).collect(),
        Value::Object(o) => minijinja::Value::from_object(OrderedMap(
            o.iter().map(|(k, v)| (k.clone(), to_jinja(v))).collect(),
        )),
    }
}

fn render_jinja(
    template: &str,
    data: &Value,
    strict: bool,
    escape: bool,
    out: &mut Capped,
) -> Result<(), ToolError> {
    let mut env = Environment::new();
    env.set_undefined_behavior(if strict {
        UndefinedBehavior::Strict
    } else {
        UndefinedBehavior::Lenient
    });
    env.set_auto_escape_callback(move |_| {
        if escape {
            AutoEscape::Html
        } else {
            AutoEscape::None
        }
    });
    env.template_from_str(template)
        .and_then(|t| t.render_captured_to(to_jinja(data), out))
        .map(|_| ())
        .map_err(|e| {
            let what = match e.detail() {
                Some(detail) => format!("{}: {detail}", e.kind()),
                None => e.kind().to_string(),
            };
            match e.line() {
                Some(line) => {
                    ToolError::invalid(format!("Jinja template error at line {line}: {what}"))
                }
                None => ToolError::invalid(format!("Jinja template error: {what}")),
            }
        })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    fn render(template: &str, data: Value, extra: Value) -> String {
        let mut args = json!({"template": template, "data": data});
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        run_ok("template-renderer", args)["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    // handlebarsjs.com guide examples.
    #[test]
    fn handlebars_guide_examples() {
        assert_eq!(
            render("Hello {{name}}!", json!({"name": "World"}), json!({})),
            "Hello World!"
        );
        assert_eq!(
            render(
                "{{firstname}} {{lastname}}",
                json!({"firstname": "Yehuda", "lastname": "Katz"}),
                json!({})
            ),
            "Yehuda Katz"
        );
        assert_eq!(
            render(
                "<ul>{{#each people}}<li>{{this}}</li>{{/each}}</ul>",
                json!({"people": ["Yehuda Katz", "Alan Johnson", "Charles Jolley"]}),
                json!({})
            ),
            "<ul><li>Yehuda Katz</li><li>Alan Johnson</li><li>Charles Jolley</li></ul>"
        );
        assert_eq!(
            render(
                "{{#if author}}<h1>{{firstName}} {{lastName}}</h1>{{else}}Unknown Author{{/if}}",
                json!({"author": false}),
                json!({})
            ),
            "Unknown Author"
        );
        assert_eq!(
            render(
                "{{person.firstname}} {{person.lastname}}",
                json!({"person": {"firstname": "Yehuda", "lastname": "Katz"}}),
                json!({})
            ),
            "Yehuda Katz"
        );
    }

    #[test]
    fn handlebars_escaping_and_strict_mode() {
        let data = json!({"specialChars": "& < > \" ' ` ="});
        // handlebarsjs.com: {{ }} escapes, {{{ }}} does not.
        assert_eq!(
            render("raw: {{{specialChars}}}", data.clone(), json!({})),
            "raw: & < > \" ' ` ="
        );
        assert_eq!(
            render("html-escaped: {{specialChars}}", data.clone(), json!({})),
            "html-escaped: &amp; &lt; &gt; &quot; &#x27; &#x60; &#x3D;"
        );
        assert_eq!(
            render("{{specialChars}}", data, json!({"escape": "none"})),
            "& < > \" ' ` ="
        );
        assert_eq!(render("[{{missing}}]", json!({}), json!({})), "[]");
        let (code, msg) = run_err(
            "template-renderer",
            json!({"template": "Hi {{user.name}}", "data": {"user": {}}, "strict": true}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("user.name"), "{msg}");
    }

    #[test]
    fn handlebars_syntax_error_has_line() {
        let (code, msg) = run_err(
            "template-renderer",
            json!({"template": "line one\n{{#if x}}\nno close", "data": {"x": 1}}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("Handlebars template error at line"),
            "{msg}"
        );
    }

    // Jinja documentation examples.
    #[test]
    fn jinja_loops_filters_and_order() {
        let jinja = json!({"engine": "jinja"});
        assert_eq!(
            render("Hello {{ name }}!", json!({"name": "World"}), jinja.clone()),
            "Hello World!"
        );
        assert_eq!(
            render(
                "{% for user in users %}<li>{{ user.username|e }}</li>{% endfor %}",
                json!({"users": [{"username": "a<b"}, {"username": "c"}]}),
                jinja.clone()
            ),
            "<li>a&lt;b</li><li>c</li>"
        );
        assert_eq!(
            render(
                "{{ name|upper }} {{ items|join(', ') }} {{ items|length }} {{ missing|default('n/a') }}",
                json!({"name": "ada", "items": [1, 2, 3]}),
                jinja.clone()
            ),
            "ADA 1, 2, 3 3 n/a"
        );
        assert_eq!(
            render(
                "{% for k, v in d|items %}{{ k }}={{ v }};{% endfor %}",
                json!({"d": {"z": 1, "a": 2}}),
                jinja.clone()
            ),
            "z=1;a=2;"
        );
        assert_eq!(
            render(
                "{% if n > 1 %}many{% else %}one{% endif %}",
                json!({"n": 2}),
                jinja
            ),
            "many"
        );
        assert_eq!(
            render(
                "{{ s }}",
                json!({"s": "<b>"}),
                json!({"engine": "jinja", "escape": "html"})
            ),
            "&lt;b&gt;"
        );
    }

    #[test]
    fn jinja_errors_have_lines() {
        let (code, msg) = run_err(
            "template-renderer",
            json!({"template": "a\n{% for x in y %}\n{{ x }}", "engine": "jinja"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("Jinja template error at line"), "{msg}");
        let (_, msg) = run_err(
            "template-renderer",
            json!({"template": "{{ nope.x }}", "engine": "jinja", "strict": true}),
        );
        assert!(msg.contains("undefined"), "{msg}");
    }

    #[test]
    fn nesting_is_limited_with_one_message() {
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let hbs = nest("{{#if a}}", "x", "{{/if}}", 1_000_000);
        assert_too_deep(
            "template-renderer",
            json!({"template": hbs, "data": {"a": true}}),
            "template",
            super::TEMPLATE_DEPTH,
        );
        let jinja = nest("{% if a %}", "x", "{% endif %}", 1_000_000);
        let args = json!({"template": jinja, "data": {"a": true}, "engine": "jinja"});
        assert_too_deep("template-renderer", args, "template", super::TEMPLATE_DEPTH);
        let parens = format!("{{{{ {} }}}}", nest("(", "1", ")", 1_000_000));
        let args = json!({"template": parens, "engine": "jinja"});
        assert_too_deep("template-renderer", args, "template", super::TEMPLATE_DEPTH);
        // Just under: 100 blocks in each engine.
        let ok = nest("{{#if a}}", "x", "{{/if}}", super::TEMPLATE_DEPTH);
        assert_eq!(render(&ok, json!({"a": true}), json!({})), "x");
        let ok = nest("{% if a %}", "x", "{% endif %}", super::TEMPLATE_DEPTH);
        assert_eq!(
            render(&ok, json!({"a": true}), json!({"engine": "jinja"})),
            "x"
        );
    }
}
