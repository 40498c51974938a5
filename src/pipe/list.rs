//! `cmpx pipe --list`: every recipe runnable by name, bundled and saved, with its steps in
//! short form and the command that runs it.

use super::recipe::{Recipe, Step};
use serde_json::{Value, json};

/// The recipes runnable by name: saved ones (in the tool roots), then bundled ones a saved
/// recipe of the same name does not shadow; each with its source, steps and command.
pub(crate) fn list() -> Value {
    let scan = crate::cmp::registry::scan(&crate::paths::all_roots());
    let mut saved = Vec::new();
    for tool in &scan.tools {
        let Ok(Some(found)) = super::saved::find(tool.name()) else {
            continue;
        };
        // `find` falls back to a bundled recipe only when no tool has the name: this is one.
        if found.dir == tool.dir {
            saved.push(entry(&found.name, "saved", &found.recipe));
        }
    }
    let shadowed = |name: &str| scan.find(name).is_some();
    let bundled = super::bundled::RECIPES
        .iter()
        .filter(|(name, _)| !shadowed(name))
        .filter_map(|(name, _)| Some(entry(name, "bundled", &super::bundled::get(name)?)));
    json!({ "recipes": saved.into_iter().chain(bundled).collect::<Vec<_>>() })
}

fn entry(name: &str, source: &str, recipe: &Recipe) -> Value {
    let steps: Vec<String> = recipe.steps.iter().map(short_step).collect();
    json!({
        "name": name,
        "source": source,
        "description": recipe.description,
        "steps": steps.join(" | "),
        // A saved recipe is an installed tool; a bundled one runs through `pipe`.
        "command": if source == "saved" {
            format!("cmpx run {name} --input={{input}}")
        } else {
            format!("cmpx pipe --recipe {name} --input={{input}}")
        },
    })
}

/// A step in the short form `cmpx pipe '…'` reads back (`tool name=value --from=F --into=P`).
fn short_step(step: &Step) -> String {
    let mut words = vec![step.tool.clone()];
    for (name, value) in &step.params {
        let value = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        words.push(format!("{name}={}", shell_words::quote(&value)));
    }
    if let Some(from) = &step.from {
        words.push(format!("--from={}", shell_words::quote(from)));
    }
    if let Some(into) = &step.into {
        words.push(format!("--into={}", shell_words::quote(into)));
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundled_recipes_are_listed_with_their_steps() {
        let listed = super::list();
        let recipes = listed["recipes"].as_array().unwrap();
        let jwt = recipes
            .iter()
            .find(|r| r["name"] == "jwt-claims")
            .expect("jwt-claims listed");
        assert_eq!(jwt["source"], "bundled");
        assert!(jwt["steps"].as_str().unwrap().contains(" | "), "{jwt}");
        assert_eq!(
            jwt["command"],
            "cmpx pipe --recipe jwt-claims --input={input}"
        );
        for (name, _) in super::super::bundled::RECIPES {
            let listed = recipes.iter().find(|r| r["name"] == *name).expect(name);
            // The steps read back as the same chain of tools.
            let back = super::super::parse::short_form(listed["steps"].as_str().unwrap()).unwrap();
            let recipe = super::super::bundled::get(name).unwrap();
            let tools =
                |r: &super::Recipe| r.steps.iter().map(|s| s.tool.clone()).collect::<Vec<_>>();
            assert_eq!(tools(&back), tools(&recipe), "{name}");
        }
    }
}
