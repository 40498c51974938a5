//! Saved recipes: CMP folders whose `cmp/` holds a `recipe.json` beside the manifest and the
//! capability (`cmpx pipe --save NAME` writes them; `save.rs`). Found by name like any tool.

use super::recipe::Recipe;
use crate::ctp::ToolError;
use std::path::PathBuf;

/// The recipe file inside a saved recipe's `cmp/` folder.
pub(crate) const FILE: &str = "recipe.json";

/// A saved recipe found among the installed tools.
#[derive(Debug, Clone)]
pub(crate) struct Saved {
    pub name: String,
    pub dir: PathBuf,
    pub recipe: Recipe,
}

/// The saved recipe called `name` in the tool roots, if one is installed.
pub(crate) fn find(name: &str) -> Result<Option<Saved>, ToolError> {
    let scan = crate::cmp::registry::scan(&crate::paths::all_roots());
    let Some(installed) = scan.find(name) else {
        return Ok(super::bundled::get(name).map(|recipe| Saved {
            name: name.to_string(),
            dir: PathBuf::from("recipes").join(format!("{name}.json")),
            recipe,
        }));
    };
    let path = installed.cmp_dir.join(FILE);
    let bytes = match crate::cmp::read::read_optional(
        &path,
        crate::cmp::registry::MAX_FILE_BYTES,
        crate::cmp::read::Links::Follow,
    ) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(None),
        Err(e) => return Err(ToolError::invalid(e.describe(&path))),
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::invalid(format!("{} is not UTF-8 text", path.display())))?;
    let recipe = Recipe::from_json(&text, &path.display().to_string())?;
    Ok(Some(Saved {
        name: installed.name().to_string(),
        dir: installed.dir.clone(),
        recipe,
    }))
}
