//! The short form of a recipe on the command line:
//! `base64-encoder mode=decode | gzip-compressor mode=decompress | json-formatter indent=4`.
//! Steps are split at `|` outside quotes, then each step into words as a POSIX shell would
//! (`find='a b'`, `replace="x|y"`). A word `name=value` sets a parameter (the value is typed by
//! the parameter's declared type when the recipe is planned, as `--name value` is by `cmpx run`);
//! `--from=FIELD` and `--into=PARAM` set the step's hand-off.

use super::recipe::{Recipe, Step};
use crate::ctp::ToolError;
use serde_json::{Map, Value};

pub(crate) fn short_form(text: &str) -> Result<Recipe, ToolError> {
    let mut steps = Vec::new();
    for (i, segment) in split_steps(text)?.iter().enumerate() {
        steps.push(step(segment, i + 1)?);
    }
    Recipe::from_value(
        serde_json::to_value(Recipe {
            description: None,
            steps,
            example: None,
        })
        .map_err(|e| ToolError::invalid(e.to_string()))?,
        "the recipe",
    )
}

fn step(segment: &str, number: usize) -> Result<Step, ToolError> {
    let words = shell_words::split(segment)
        .map_err(|e| ToolError::invalid(format!("step {number}: {e} in `{}`", segment.trim())))?;
    let Some((tool, rest)) = words.split_first() else {
        return Err(ToolError::invalid(format!(
            "step {number} is empty; write `tool name=value …` between the `|`s"
        )));
    };
    let mut step = Step {
        tool: tool.clone(),
        params: Map::new(),
        from: None,
        into: None,
    };
    for word in rest {
        let Some((name, value)) = word.split_once('=') else {
            return Err(ToolError::invalid(format!(
                "step {number} ({tool}): `{}` is not name=value (quote a value holding spaces: name='a b')",
                crate::text::preview(word, 40)
            )));
        };
        match name {
            "--from" => step.from = Some(value.to_string()),
            "--into" => step.into = Some(value.to_string()),
            "" => {
                return Err(ToolError::invalid(format!(
                    "step {number} ({tool}): `{}` has no parameter name before `=`",
                    crate::text::preview(word, 40)
                )));
            }
            _ if step.params.contains_key(name) => {
                return Err(ToolError::invalid(format!(
                    "step {number} ({tool}): parameter '{name}' is given twice"
                )));
            }
            _ => {
                step.params
                    .insert(name.to_string(), Value::String(value.to_string()));
            }
        }
    }
    Ok(step)
}

/// The text between unquoted `|`s. Quotes and backslashes are kept for `shell_words`.
fn split_steps(text: &str) -> Result<Vec<String>, ToolError> {
    let mut steps = vec![String::new()];
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        let current = steps.last_mut().expect("never empty");
        if escaped {
            current.push(c);
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (Some('"') | None, '\\') => escaped = true,
            (None, '|') => {
                steps.push(String::new());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if quote.is_some() {
        return Err(ToolError::invalid(
            "the recipe has an unterminated quote; close it or escape it with \\",
        ));
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn splits_steps_and_parameters() {
        let r = short_form(
            "base64-encoder mode=decode | gzip-compressor mode=decompress|json-formatter indent=4",
        )
        .unwrap();
        let tools: Vec<_> = r.steps.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(
            tools,
            ["base64-encoder", "gzip-compressor", "json-formatter"]
        );
        assert_eq!(
            r.steps[2].params,
            json!({"indent": "4"}).as_object().unwrap().clone()
        );
    }

    #[test]
    fn quotes_keep_pipes_spaces_and_equals() {
        let r = short_form(r#"find-replace find='a | b' replace="x=\"y\"" --into=input"#).unwrap();
        assert_eq!(r.steps.len(), 1);
        assert_eq!(r.steps[0].params["find"], "a | b");
        assert_eq!(r.steps[0].params["replace"], "x=\"y\"");
        assert_eq!(r.steps[0].into.as_deref(), Some("input"));
        let r = short_form(r"find-replace find=a\|b").unwrap();
        assert_eq!(r.steps[0].params["find"], "a|b");
    }

    #[test]
    fn errors_name_the_step() {
        assert_eq!(
            short_form("json-formatter | | x").unwrap_err().message,
            "step 2 is empty; write `tool name=value …` between the `|`s"
        );
        assert_eq!(
            short_form("json-formatter indent").unwrap_err().message,
            "step 1 (json-formatter): `indent` is not name=value (quote a value holding spaces: name='a b')"
        );
        assert!(
            short_form("a find='x")
                .unwrap_err()
                .message
                .contains("unterminated quote")
        );
        assert_eq!(
            short_form("a x=1 x=2").unwrap_err().message,
            "step 1 (a): parameter 'x' is given twice"
        );
    }
}
