//! One form field per CTP parameter: the HTML control for each of the 12 field types with
//! the constraints the browser can check itself (required, lengths, ranges, steps, patterns,
//! accepted files). `aiHint` is guidance for models and never reaches the page.

use super::esc;
use crate::ctp::{ParamType, Parameter};
use serde_json::Value;

/// The fields of a form: parameters not marked `hidden`, grouped by `group` (first
/// appearance decides the group's place) and ordered by `order` within the page, then by
/// their place in the definition.
pub(super) fn form_fields(params: &[Parameter]) -> String {
    let mut visible: Vec<(usize, &Parameter)> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.hidden != Some(true))
        .collect();
    visible.sort_by_key(|(i, p)| (p.order.unwrap_or(u64::MAX), *i));
    let mut groups: Vec<(Option<&str>, Vec<&Parameter>)> = Vec::new();
    for (_, p) in visible {
        let g = p.group.as_deref();
        match groups.iter_mut().find(|(name, _)| *name == g) {
            Some((_, list)) => list.push(p),
            None => groups.push((g, vec![p])),
        }
    }
    let mut out = String::new();
    for (group, list) in groups {
        if let Some(name) = group {
            out.push_str(&format!(
                "<fieldset class=\"group\"><legend>{}</legend>",
                esc(name)
            ));
        }
        for p in list {
            out.push_str(&field(p));
        }
        if group.is_some() {
            out.push_str("</fieldset>");
        }
    }
    out
}

/// A default value as the text a control shows.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(_) | Value::Object(_) => serde_json::to_string_pretty(v).unwrap_or_default(),
        other => other.to_string(),
    }
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        x.to_string()
    }
}

/// One field: label, control, help text and a place for its error.
pub(super) fn field(p: &Parameter) -> String {
    let id = format!("f-{}", p.name);
    let name = esc(&p.name);
    let default = p.default_value.as_ref().map(shown).unwrap_or_default();
    let mut attrs = format!("id=\"{id}\" name=\"{name}\" aria-describedby=\"h-{name} e-{name}\"");
    if p.required {
        attrs.push_str(" required");
    }
    if let Some(ph) = &p.placeholder {
        attrs.push_str(&format!(" placeholder=\"{}\"", esc(ph)));
    }
    let v = p.validation.clone().unwrap_or_default();
    let lengths = |attrs: &mut String| {
        if let Some(n) = v.min_length {
            attrs.push_str(&format!(" minlength=\"{n}\""));
        }
        if let Some(n) = v.max_length {
            attrs.push_str(&format!(" maxlength=\"{n}\""));
        }
    };
    let control = match p.kind {
        ParamType::Textarea | ParamType::Json => {
            lengths(&mut attrs);
            let rows = if p.kind == ParamType::Json { 6 } else { 5 };
            format!(
                "<textarea {attrs} rows=\"{rows}\" spellcheck=\"false\">{}</textarea>",
                esc(&default)
            )
        }
        ParamType::Boolean => {
            let checked = p
                .default_value
                .as_ref()
                .is_some_and(|d| d == &Value::Bool(true) || d.as_str() == Some("true"));
            // A checkbox sits before its label, so the whole line is the click target.
            return format!(
                "<div class=\"field check\" data-name=\"{name}\" data-type=\"boolean\"{deps}><input type=\"checkbox\" {attrs}{c}><label for=\"{id}\">{label}</label><p class=\"hint\" id=\"h-{name}\">{desc}</p><p class=\"field-error\" id=\"e-{name}\"></p></div>",
                deps = depends(p),
                c = if checked { " checked" } else { "" },
                label = esc(&p.label),
                desc = esc(&p.description),
            );
        }
        ParamType::Select => {
            let mut options = String::new();
            if !p.required && p.default_value.is_none() {
                options.push_str("<option value=\"\">—</option>");
            }
            for o in &p.options {
                let selected = default == o.value;
                options.push_str(&format!(
                    "<option value=\"{}\"{}{}{}>{}</option>",
                    esc(&o.value),
                    if selected { " selected" } else { "" },
                    if o.disabled == Some(true) {
                        " disabled"
                    } else {
                        ""
                    },
                    o.description
                        .as_ref()
                        .map(|d| format!(" title=\"{}\"", esc(d)))
                        .unwrap_or_default(),
                    esc(&o.label)
                ));
            }
            format!("<select {attrs}>{options}</select>")
        }
        ParamType::Number => {
            if let Some(x) = v.min {
                attrs.push_str(&format!(" min=\"{}\"", num(x)));
            }
            if let Some(x) = v.max {
                attrs.push_str(&format!(" max=\"{}\"", num(x)));
            }
            attrs.push_str(&format!(
                " step=\"{}\"",
                v.step.map_or_else(|| "any".to_string(), num)
            ));
            format!(
                "<input type=\"number\" inputmode=\"decimal\" {attrs} value=\"{}\">",
                esc(&default)
            )
        }
        ParamType::File => {
            if let Some(accept) = &v.accept {
                attrs.push_str(&format!(" accept=\"{}\"", esc(&accept.join(","))));
            }
            if let Some(max) = v.max_size {
                attrs.push_str(&format!(" data-max-size=\"{max}\""));
            }
            format!("<input type=\"file\" {attrs}>")
        }
        ParamType::Color => {
            // Colour tools take CSS names and rgb() too, which <input type=color> cannot
            // hold: the text box carries the value, the picker beside it only fills it.
            lengths(&mut attrs);
            return wrap(
                p,
                &format!(
                    "<span class=\"color-pair\"><input type=\"text\" {attrs} value=\"{}\" autocomplete=\"off\"><input type=\"color\" class=\"picker\" aria-label=\"Pick {}\" tabindex=\"-1\"></span>",
                    esc(&default),
                    esc(&p.label)
                ),
            );
        }
        ParamType::Text
        | ParamType::Date
        | ParamType::Datetime
        | ParamType::Url
        | ParamType::Email => {
            lengths(&mut attrs);
            if let Some(pattern) = &v.pattern {
                attrs.push_str(&format!(" pattern=\"{}\"", esc(pattern)));
            }
            let kind = match p.kind {
                ParamType::Date => "date",
                ParamType::Datetime => "datetime-local\" step=\"1",
                ParamType::Url => "url",
                ParamType::Email => "email",
                _ => "text",
            };
            format!(
                "<input type=\"{kind}\" {attrs} value=\"{}\" autocomplete=\"off\" spellcheck=\"false\">",
                esc(&default)
            )
        }
    };
    wrap(p, &control)
}

fn wrap(p: &Parameter, control: &str) -> String {
    let name = esc(&p.name);
    format!(
        "<div class=\"field\" data-name=\"{name}\" data-type=\"{}\"{}><label for=\"f-{name}\">{}{}</label>{control}<p class=\"hint\" id=\"h-{name}\">{}</p><p class=\"field-error\" id=\"e-{name}\"></p></div>",
        p.kind.as_str(),
        depends(p),
        esc(&p.label),
        if p.required {
            " <span class=\"req\" aria-hidden=\"true\">*</span>"
        } else {
            ""
        },
        esc(&p.description),
    )
}

/// `dependsOn` rules as a data attribute, applied by form.js.
fn depends(p: &Parameter) -> String {
    match &p.depends_on {
        Some(rules) => format!(" data-depends=\"{}\"", esc(&rules.to_string())),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn param(v: Value) -> Parameter {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn each_type_gets_its_control_and_constraints() {
        let cases = [
            (
                json!({"name":"a","type":"text","label":"A","description":"d","required":true,"validation":{"pattern":"^[a-z]+$","maxLength":5}}),
                "<input type=\"text\" id=\"f-a\" name=\"a\" aria-describedby=\"h-a e-a\" required maxlength=\"5\" pattern=\"^[a-z]+$\"",
            ),
            (
                json!({"name":"n","type":"number","label":"N","description":"d","required":false,"defaultValue":3,"validation":{"min":1,"max":10,"step":1}}),
                "<input type=\"number\" inputmode=\"decimal\" id=\"f-n\" name=\"n\" aria-describedby=\"h-n e-n\" min=\"1\" max=\"10\" step=\"1\" value=\"3\">",
            ),
            (
                json!({"name":"d","type":"date","label":"D","description":"d","required":false}),
                "<input type=\"date\"",
            ),
            (
                json!({"name":"t","type":"datetime","label":"T","description":"d","required":false}),
                "<input type=\"datetime-local\" step=\"1\"",
            ),
            (
                json!({"name":"e","type":"email","label":"E","description":"d","required":false}),
                "<input type=\"email\"",
            ),
            (
                json!({"name":"u","type":"url","label":"U","description":"d","required":false}),
                "<input type=\"url\"",
            ),
            (
                json!({"name":"f","type":"file","label":"F","description":"d","required":true,"validation":{"accept":["image/png",".gif"],"maxSize":1024}}),
                "<input type=\"file\" id=\"f-f\" name=\"f\" aria-describedby=\"h-f e-f\" required accept=\"image/png,.gif\" data-max-size=\"1024\">",
            ),
            (
                json!({"name":"j","type":"json","label":"J","description":"d","required":false,"defaultValue":{"a":1}}),
                "<textarea id=\"f-j\" name=\"j\" aria-describedby=\"h-j e-j\" rows=\"6\" spellcheck=\"false\">{\n  &quot;a&quot;: 1\n}</textarea>",
            ),
            (
                json!({"name":"c","type":"color","label":"C","description":"d","required":false,"defaultValue":"#ff0000"}),
                "value=\"#ff0000\"",
            ),
            (
                json!({"name":"b","type":"boolean","label":"B","description":"d","required":false,"defaultValue":true}),
                "<input type=\"checkbox\" id=\"f-b\" name=\"b\" aria-describedby=\"h-b e-b\" checked>",
            ),
            (
                json!({"name":"s","type":"select","label":"S","description":"d","required":false,"defaultValue":"y","options":[{"value":"x","label":"X"},{"value":"y","label":"Y"}]}),
                "<select id=\"f-s\" name=\"s\" aria-describedby=\"h-s e-s\"><option value=\"x\">X</option><option value=\"y\" selected>Y</option></select>",
            ),
            (
                json!({"name":"x","type":"textarea","label":"X","description":"d","required":false,"placeholder":"<b>"}),
                "placeholder=\"&lt;b&gt;\"",
            ),
        ];
        for (p, want) in cases {
            let html = field(&param(p.clone()));
            assert!(html.contains(want), "{p}\n{html}\nlacks\n{want}");
            assert!(html.contains("<label for=\"f-"), "{html}");
        }
    }

    #[test]
    fn hidden_fields_are_left_out_ai_hints_never_shown_and_order_and_groups_apply() {
        let params: Vec<Parameter> = serde_json::from_value(json!([
            {"name":"late","type":"text","label":"Late","description":"d","required":false,"order":9},
            {"name":"secret","type":"text","label":"S","description":"d","required":false,"hidden":true},
            {"name":"first","type":"text","label":"First","description":"d","required":false,"order":1,"aiHint":"MODEL ONLY"},
            {"name":"g1","type":"text","label":"G1","description":"d","required":false,"group":"Advanced","order":5},
            {"name":"dep","type":"text","label":"Dep","description":"d","required":false,"order":6,"dependsOn":[{"field":"first","condition":"equals","value":"x"}]}
        ])).unwrap();
        let html = form_fields(&params);
        assert!(!html.contains("secret"), "{html}");
        assert!(!html.contains("MODEL ONLY"), "{html}");
        let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("{s} missing"));
        // Ungrouped fields in their order, then each group where its first field would be.
        assert!(
            at("f-first") < at("f-dep") && at("f-dep") < at("f-late") && at("f-late") < at("f-g1")
        );
        assert!(html.contains("<fieldset class=\"group\"><legend>Advanced</legend>"));
        assert!(html.contains(
            "data-depends=\"[{&quot;field&quot;:&quot;first&quot;,&quot;condition&quot;:&quot;equals&quot;,&quot;value&quot;:&quot;x&quot;}]\""
        ), "{html}");
    }
}
