//! The recipes that ship with cmpx (`recipes/*.json`, embedded): runnable by name
//! (`cmpx pipe --recipe jwt-claims`) and usable as steps, unless an installed saved recipe of
//! the same name shadows one.

use super::recipe::Recipe;

/// (name, JSON text) of every bundled recipe.
pub(crate) const RECIPES: &[(&str, &str)] = &[
    ("jwt-claims", include_str!("../../recipes/jwt-claims.json")),
    (
        "gzip-base64-json",
        include_str!("../../recipes/gzip-base64-json.json"),
    ),
    (
        "csv-markdown",
        include_str!("../../recipes/csv-markdown.json"),
    ),
    (
        "url-html-decode",
        include_str!("../../recipes/url-html-decode.json"),
    ),
    (
        "base64-sha256",
        include_str!("../../recipes/base64-sha256.json"),
    ),
];

/// The bundled recipe `name`.
pub(crate) fn get(name: &str) -> Option<Recipe> {
    let (_, text) = RECIPES.iter().find(|(n, _)| *n == name)?;
    Recipe::from_json(text, &format!("recipes/{name}.json")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_recipe_parses_plans_and_has_an_example() {
        for (name, text) in RECIPES {
            let recipe = Recipe::from_json(text, name).unwrap();
            assert!(recipe.example.is_some(), "{name} has no example");
            assert!(recipe.description.is_some(), "{name} has no description");
            let options = super::super::plan::Options {
                has_input: true,
                ..Default::default()
            };
            super::super::plan::plan(&recipe, &options).unwrap();
        }
    }

    #[test]
    fn the_list_matches_the_recipes_folder() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut listed: Vec<String> = RECIPES.iter().map(|(n, _)| format!("{n}.json")).collect();
        listed.sort();
        assert_eq!(files, listed);
    }
}
