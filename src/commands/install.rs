//! `cmpx install <dir>`: validate a CMP tool folder and copy it into `$CMP_HOME/tools`.

use crate::cmp::validate::{check_folder, cmp_dir};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::json;
use std::path::Path;

pub fn run(mode: Mode, dir: &Path, force: bool) -> Result<ExitCode, Error> {
    let problems = check_folder(dir);
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    let (manifest, _) = super::target::read(dir)?;
    let name = manifest.name.clone();
    if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\', '\0']) {
        return Err(Error::Invalid(vec![format!(
            "{}: name {name:?} cannot be a folder name",
            dir.display()
        )]));
    }
    let root = crate::paths::tools_root()
        .ok_or_else(|| Error::Usage("cannot find the home directory; set CMP_HOME".into()))?;
    std::fs::create_dir_all(&root).map_err(|e| Error::io("create directory", &root, e))?;
    let dest = root.join(&name);
    if dest.exists() && !force {
        return Err(Error::Usage(format!(
            "{} is already installed at {}; use --force to replace it",
            name,
            dest.display()
        )));
    }
    let source_cmp = cmp_dir(dir).expect("checked above");
    let staged = tempfile::Builder::new()
        .prefix(".cmpx-new-")
        .tempdir_in(&root)
        .map_err(|e| Error::io("create a temporary directory in", &root, e))?;
    let sub = source_cmp
        .file_name()
        .map(|f| f.to_os_string())
        .unwrap_or_else(|| "cmp".into());
    let staged_cmp = staged.path().join(&sub);
    std::fs::create_dir_all(&staged_cmp)
        .map_err(|e| Error::io("create directory", &staged_cmp, e))?;
    for file in ["manifest.json", "capability.json", "examples.json"] {
        let from = source_cmp.join(file);
        if from.is_file() {
            let bytes = std::fs::read(&from).map_err(|e| Error::io("read", &from, e))?;
            crate::cmp::atomic::write(&staged_cmp.join(file), &bytes)?;
        }
    }
    let staged = staged.keep();
    if dest.exists() {
        let old = root.join(format!(".cmpx-old-{name}"));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(&dest, &old).map_err(|e| Error::io("move aside", &dest, e))?;
        if let Err(e) = std::fs::rename(&staged, &dest) {
            let _ = std::fs::rename(&old, &dest);
            return Err(Error::io("move into place", &dest, e));
        }
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(&staged, &dest).map_err(|e| Error::io("move into place", &dest, e))?;
    }
    output::print_value(mode, &json!({ "installed": name, "path": dest }));
    Ok(ExitCode::Success)
}
