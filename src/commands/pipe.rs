//! `cmpx pipe`: run a recipe (short form, `--recipe FILE|NAME`), or save it with `--save NAME`.

use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use crate::pipe::handoff::Payload;
use crate::pipe::{Recipe, plan, run, save};
use serde_json::json;
use std::path::{Path, PathBuf};

pub(super) struct Flags {
    pub recipe_text: Option<String>,
    pub recipe: Option<String>,
    pub input: Option<String>,
    pub output_file: Option<PathBuf>,
    pub allow_adapters: bool,
    pub yes: bool,
    pub save: Option<String>,
    pub timeout: Option<String>,
}

pub(super) fn run(mode: Mode, flags: Flags) -> Result<ExitCode, Error> {
    let recipe = load(&flags)?;
    let timeout = match &flags.timeout {
        Some(t) => crate::argv::parse_timeout(t)?,
        None => crate::limits::DEFAULT_TIMEOUT,
    };
    let options = plan::Options {
        allow_adapters: flags.allow_adapters,
        yes: flags.yes,
        interactive: true,
        has_input: flags.input.is_some(),
        input_file: flags
            .input
            .as_deref()
            .and_then(|i| i.strip_prefix('@'))
            .filter(|p| !p.starts_with('@'))
            .map(PathBuf::from),
        output_file: flags.output_file.clone(),
    };
    if let Some(name) = &flags.save {
        // Checked as it will run: with an input, and as the recipe `name`, so a cycle back
        // to it is refused now rather than when it runs.
        let options = plan::Options {
            has_input: true,
            ..options
        };
        plan::plan_as(&recipe, &options, Some(name))?;
        let dir = save::save(name, &recipe)?;
        output::print_value(
            mode,
            &json!({ "saved": name, "path": dir.display().to_string(), "command": format!("cmpx run {name} --input={{input}}") }),
        );
        return Ok(ExitCode::Success);
    }
    // Everything is checked before the input is read or a step runs.
    let plan = plan::plan(&recipe, &options)?;
    // A chain of byte transforms from a file to a file streams in constant memory.
    if let (Some(input), Some(output), Some(chain)) = (
        &options.input_file,
        &flags.output_file,
        crate::pipe::stream::transforms(&plan),
    ) {
        let result = crate::pipe::stream::run(&plan, &chain, input, output, timeout);
        output::print_result(mode, &result);
        return Ok(result
            .error_code()
            .map_or(ExitCode::Success, ExitCode::for_error_code));
    }
    let input = match &flags.input {
        Some(raw) => Some(read_input(raw)?),
        None => None,
    };
    let result = run::run(
        &plan,
        run::Run {
            input,
            output_file: flags.output_file.as_deref(),
            timeout,
            yes: flags.yes,
            interactive: true,
            cancelled: &|| false,
        },
    )
    .unwrap_or_else(|| crate::ctp::ToolError::execution("the call was cancelled").into());
    output::print_result(mode, &result);
    Ok(result
        .error_code()
        .map_or(ExitCode::Success, ExitCode::for_error_code))
}

/// The recipe from the short form, a file, or a saved recipe's name.
/// `cmpx run NAME --input X` for a saved recipe NAME: the recipe runs here, so the result
/// has the shape of the tools it chains (not a program's stdout wrapped in another result).
/// `None` when NAME is not a saved recipe.
pub(super) fn run_saved(
    mode: Mode,
    name: &str,
    tokens: &[String],
) -> Option<Result<ExitCode, Error>> {
    let saved = crate::pipe::saved::find(name).ok().flatten()?;
    // A bundled recipe of that name is not an installed tool: only a folder counts here.
    if !saved
        .dir
        .join("cmp")
        .join(crate::pipe::saved::FILE)
        .is_file()
    {
        return None;
    }
    let slots = [crate::argv::Slot {
        name: "input".into(),
        required: true,
        flag: false,
        source: crate::argv::Source::Literal,
    }];
    Some((|| {
        let inv = crate::argv::parse_slots(&slots, tokens)?;
        let input = match inv.args.get("input") {
            Some(serde_json::Value::String(s)) => s.clone(),
            _ => {
                return Err(Error::Usage(format!(
                    "{name} is a recipe: give its input with --input <text|@path|->"
                )));
            }
        };
        run(
            mode,
            Flags {
                recipe_text: None,
                recipe: Some(saved.name.clone()),
                input: Some(input),
                output_file: inv.output_file.map(PathBuf::from),
                allow_adapters: false,
                yes: inv.yes,
                save: None,
                timeout: inv.timeout.map(|t| t.as_secs_f64().to_string()),
            },
        )
    })())
}

fn load(flags: &Flags) -> Result<Recipe, Error> {
    match (&flags.recipe_text, &flags.recipe) {
        (Some(text), None) => Ok(crate::pipe::parse::short_form(text)?),
        (None, Some(source)) => from_source(source),
        (Some(_), Some(_)) => Err(Error::Usage(
            "give the recipe once: in short form or with --recipe, not both".into(),
        )),
        (None, None) => Err(Error::Usage(
            "no recipe: cmpx pipe 'tool name=value | tool …' --input <value>, or --recipe FILE|NAME"
                .into(),
        )),
    }
}

fn from_source(source: &str) -> Result<Recipe, Error> {
    let path = Path::new(source);
    if path.exists() {
        let bytes = crate::cmp::read::read(
            path,
            crate::cmp::registry::MAX_FILE_BYTES,
            crate::cmp::read::Links::Follow,
        )
        .map_err(|e| Error::Usage(e.describe(path)))?;
        let text = crate::argv::utf8(bytes, "recipe")?;
        return Ok(Recipe::from_json(&text, &path.display().to_string())?);
    }
    match crate::pipe::saved::find(source)? {
        Some(saved) => Ok(Recipe {
            description: saved.recipe.description.clone(),
            steps: vec![crate::pipe::Step {
                tool: saved.name,
                params: Default::default(),
                from: None,
                into: None,
            }],
            example: None,
        }),
        None => Err(Error::Usage(format!(
            "--recipe {}: no such file, and no saved recipe of that name",
            crate::text::preview(source, 200)
        ))),
    }
}

/// `--input`: text, `@path` or `-` (read as bytes; UTF-8 is text, anything else bytes).
fn read_input(raw: &str) -> Result<Payload, Error> {
    let mut stdin_used = false;
    match crate::argv::indirect_bytes(raw, &mut stdin_used, "input")? {
        Some(bytes) => Ok(match String::from_utf8(bytes) {
            Ok(text) => Payload::Text(text),
            Err(e) => Payload::Bytes(e.into_bytes()),
        }),
        None => Ok(Payload::Text(crate::argv::literal(raw).to_string())),
    }
}
