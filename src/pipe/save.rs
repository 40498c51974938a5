//! `cmpx pipe --save NAME`: a checked recipe written as a CMP folder,
//! `$CMP_HOME/tools/NAME/cmp/{manifest,capability,recipe}.json`, so it is a tool like any other
//! (listed, resolved, run, installable by copying the folder). The folder is assembled under a
//! staging name and moved into place whole, under the root's writers' lock, like an export.

use super::recipe::Recipe;
use super::saved::FILE;
use crate::cmp::staging::{self, STAGING_PREFIX};
use crate::error::Error;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The domain saved recipes are listed under.
pub(crate) const DOMAIN: &str = "recipes";

/// Writes recipe `recipe` as the saved recipe `name`; returns its folder. An existing folder
/// of that name is replaced only when it is itself a saved recipe.
pub(crate) fn save(name: &str, recipe: &Recipe) -> Result<PathBuf, Error> {
    if !crate::cmp::manifest::is_safe_name(name) {
        return Err(Error::Usage(format!(
            "--save {}: a recipe name is letters, digits, '.', '_' and '-', starting with a letter or digit",
            crate::text::preview(name, 60)
        )));
    }
    if crate::catalogue::get(name).is_some() {
        return Err(Error::Usage(format!(
            "--save {name}: a built-in tool has that name; choose another"
        )));
    }
    let root = crate::paths::tools_root()
        .ok_or_else(|| Error::Usage("cannot find the home directory; set CMP_HOME".to_string()))?;
    std::fs::create_dir_all(&root).map_err(|e| Error::io("create directory", &root, e))?;
    let _lock = crate::cmp::lock::acquire(&root)?;
    let dest = root.join(name);
    let existing = existing(&dest)?;
    let staged = stage(&root, name, recipe)?;
    staging::place(&staged, &dest, existing)?;
    Ok(dest)
}

/// Whether `dest` holds a saved recipe (to be replaced); an error for anything else there.
fn existing(dest: &Path) -> Result<bool, Error> {
    let meta = match std::fs::symlink_metadata(dest) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::io("inspect", dest, e)),
    };
    let recipe = dest.join("cmp").join(FILE);
    if meta.is_dir()
        && std::fs::symlink_metadata(&recipe).is_ok_and(|m| m.is_file())
        && !std::fs::symlink_metadata(dest.join("cmp")).is_ok_and(|m| m.is_symlink())
    {
        return Ok(true);
    }
    Err(Error::Usage(format!(
        "{} exists and is not a saved recipe; cmpx does not replace it (choose another name, or remove it)",
        dest.display()
    )))
}

fn stage(root: &Path, name: &str, recipe: &Recipe) -> Result<PathBuf, Error> {
    let staged = tempfile::Builder::new()
        .prefix(STAGING_PREFIX)
        .tempdir_in(root)
        .map_err(|e| Error::io("create a temporary directory in", root, e))?;
    let cmp = staged.path().join("cmp");
    std::fs::create_dir_all(&cmp).map_err(|e| Error::io("create directory", &cmp, e))?;
    let (manifest, capability) = documents(name, recipe);
    let write = |file: &str, v: &Value| {
        let text = serde_json::to_string_pretty(v).unwrap_or_default() + "\n";
        crate::cmp::atomic::write(&cmp.join(file), text.as_bytes())
    };
    write("manifest.json", &manifest)?;
    write("capability.json", &capability)?;
    crate::cmp::atomic::write(&cmp.join(FILE), (recipe.to_json_pretty() + "\n").as_bytes())?;
    staging::set_dir_mode(&cmp, 0o755);
    staging::set_dir_mode(staged.path(), 0o755);
    Ok(staged.keep())
}

/// The manifest and the capability of a saved recipe. The command names the recipe rather than
/// a path to its file, so a copy of the folder in any root still runs.
pub(crate) fn documents(name: &str, recipe: &Recipe) -> (Value, Value) {
    let chain: Vec<&str> = recipe.steps.iter().map(|s| s.tool.as_str()).collect();
    let summary = recipe
        .description
        .clone()
        .unwrap_or_else(|| format!("Recipe: {}", chain.join(" | ")));
    let summary = crate::text::preview(&summary, crate::cmp::manifest::MAX_SUMMARY_CHARS - 1);
    let mut capabilities: Vec<&str> = recipe
        .steps
        .iter()
        .flat_map(|s| crate::capability::of_catalogue_tool(&s.tool))
        .collect();
    capabilities.sort_unstable();
    capabilities.dedup();
    let manifest = json!({
        "domain": DOMAIN,
        "name": name,
        "summary": summary,
        "version": "1.0.0",
        "binary": crate::cmp::mapping::BINARY,
        "tags": ["recipe"],
    });
    let capability = json!({ "intents": [{
        "patterns": [name, format!("run the {name} recipe")],
        "command": format!("{} run {name} --input={{input}}", crate::cmp::mapping::BINARY),
        "params": { "input": {
            "type": "string",
            "required": true,
            "description": "The recipe's input (@path reads a file, - reads stdin)",
        }},
        "capabilities": capabilities,
    }]});
    (manifest, capability)
}
