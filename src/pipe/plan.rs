//! Checking a recipe before anything runs: every step's tool exists (saved recipes expanded,
//! cycles refused), its parameters pass the tool's own validation, its hand-off names a real
//! parameter, and the policy lets it run. A plan that comes out of here runs step by step.

use super::recipe::{DEFAULT_FROM, MAX_STEPS, Recipe, Step};
use super::saved;
use crate::cmp::Intent;
use crate::ctp::{ErrorCode, ParamType, ToolDefinition, ToolError};
use crate::exec::invoke::Target;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// What the caller allows and what the run touches, for the policy decision of each step.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    pub allow_adapters: bool,
    pub yes: bool,
    pub interactive: bool,
    /// Whether the recipe is given an input (it goes to the first step's main input).
    pub has_input: bool,
    /// The file the input is read from (`@path`), for the first step's `fs:read`.
    pub input_file: Option<PathBuf>,
    /// Where the last step's output goes, for its `fs:write`.
    pub output_file: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub steps: Vec<Planned>,
}

#[derive(Debug, Clone)]
pub(crate) struct Planned {
    /// Where the step sits: `3`, or `2.1` for the first step of the saved recipe at step 2.
    pub label: String,
    /// The top-level step it belongs to (1-based).
    pub top: usize,
    pub tool: String,
    pub kind: Kind,
    /// The fixed parameters, as given (the executor normalises them again when it runs).
    pub params: Map<String, Value>,
    /// The previous step's field this step takes.
    pub from: String,
    /// The parameter it goes to; `None` for a first step given no input.
    pub into: Option<String>,
    /// The files the step reads and writes itself (the recipe's input file for the first,
    /// its output file for the last), for the policy decision when it runs.
    pub reads: Vec<PathBuf>,
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Builtin(Box<ToolDefinition>),
    Installed(Box<Target>),
}

/// The failure of a step: its message prefixed with the step, its data extended with
/// `failedStep` and `tool` so a program can tell which one.
pub(crate) fn step_error(label: &str, top: usize, tool: &str, e: ToolError) -> ToolError {
    let mut data = match e.data {
        Some(Value::Object(map)) => map,
        Some(other) => Map::from_iter([("detail".to_string(), other)]),
        None => Map::new(),
    };
    data.insert("failedStep".into(), json!(top));
    data.insert("tool".into(), json!(tool));
    ToolError {
        code: e.code,
        message: format!("step {label} ({tool}): {}", e.message),
        data: Some(Value::Object(data)),
    }
}

/// Checks `recipe` whole and returns what to run, or the first problem with the step named.
pub(crate) fn plan(recipe: &Recipe, options: &Options) -> Result<Plan, ToolError> {
    plan_as(recipe, options, None)
}

/// [`plan`] for a recipe about to be saved as `name`: a step reaching `name` is a cycle.
pub(crate) fn plan_as(
    recipe: &Recipe,
    options: &Options,
    name: Option<&str>,
) -> Result<Plan, ToolError> {
    let mut steps = Vec::new();
    let mut stack: Vec<String> = name.map(str::to_string).into_iter().collect();
    expand(recipe, options, "", None, &mut stack, &mut steps)?;
    let last = steps.len().saturating_sub(1);
    for (i, step) in steps.iter_mut().enumerate() {
        let e = |e| step_error(&step.label, step.top, &step.tool, e);
        if i == 0 && !options.has_input {
            step.into = None;
        }
        check_params(step).map_err(e)?;
        let reads = if i == 0 {
            options.input_file.iter().cloned().collect()
        } else {
            Vec::new()
        };
        let output = (i == last)
            .then_some(options.output_file.as_deref())
            .flatten();
        check_policy(step, &reads, output, options).map_err(e)?;
        step.reads = reads;
        step.output = output.map(Path::to_path_buf);
    }
    Ok(Plan { steps })
}

/// Appends the steps of `recipe` to `out`, saved recipes replaced by their own steps. `stack`
/// holds the saved recipes being expanded, so one that reaches itself is a cycle.
fn expand(
    recipe: &Recipe,
    options: &Options,
    prefix: &str,
    top: Option<usize>,
    stack: &mut Vec<String>,
    out: &mut Vec<Planned>,
) -> Result<(), ToolError> {
    for (i, step) in recipe.steps.iter().enumerate() {
        let label = format!("{prefix}{}", i + 1);
        let top = top.unwrap_or(i + 1);
        let fail = |e| step_error(&label, top, &step.tool, e);
        if out.len() >= MAX_STEPS {
            return Err(fail(ToolError::invalid(format!(
                "the recipe has more than {MAX_STEPS} steps once saved recipes are expanded"
            ))));
        }
        if let Some(def) = crate::catalogue::get(&step.tool) {
            let into = step
                .into
                .clone()
                .or_else(|| main_input(&def).map(str::to_string));
            if into.is_none() {
                return Err(fail(ToolError::invalid(format!(
                    "{} has no text parameter to take the previous step's output; name one with \"into\"",
                    def.id
                ))));
            }
            out.push(planned(
                step,
                label,
                top,
                Kind::Builtin(Box::new(def)),
                into,
            ));
            continue;
        }
        if let Some(found) = saved::find(&step.tool).map_err(fail)? {
            if let Some(at) = stack.iter().position(|s| *s == found.name) {
                let mut chain = stack[at..].to_vec();
                chain.push(found.name.clone());
                return Err(fail(
                    ToolError::invalid(format!(
                        "saved recipes form a cycle ({}); a recipe cannot include itself",
                        chain.join(" → ")
                    ))
                    .with_data(json!({ "cycle": chain })),
                ));
            }
            if !step.params.is_empty() || step.into.is_some() {
                return Err(fail(ToolError::invalid(
                    "a saved recipe takes no \"params\" or \"into\" (its own steps have them); give only \"from\"",
                )));
            }
            let mut inner = found.recipe.clone();
            if let (Some(from), Some(first)) = (&step.from, inner.steps.first_mut()) {
                first.from = Some(from.clone());
            }
            stack.push(found.name.clone());
            expand(&inner, options, &format!("{label}."), Some(top), stack, out)?;
            stack.pop();
            continue;
        }
        if let Some(target) = installed(&step.tool)? {
            if !options.allow_adapters {
                return Err(fail(ToolError::new(
                    ErrorCode::Unauthorized,
                    format!(
                        "{} is an installed tool that runs a program; recipes run only built-in tools and saved recipes unless --allow-adapters is given",
                        step.tool
                    ),
                )));
            }
            let into = step.into.clone().or_else(|| intent_input(&target.intent));
            out.push(planned(
                step,
                label,
                top,
                Kind::Installed(Box::new(target)),
                into,
            ));
            continue;
        }
        return Err(fail(unknown(&step.tool)));
    }
    Ok(())
}

fn planned(step: &Step, label: String, top: usize, kind: Kind, into: Option<String>) -> Planned {
    Planned {
        label,
        top,
        tool: step.tool.clone(),
        kind,
        params: step.params.clone(),
        from: step
            .from
            .clone()
            .unwrap_or_else(|| DEFAULT_FROM.to_string()),
        into,
        reads: Vec::new(),
        output: None,
    }
}

/// The parameter a tool's input goes to unless a step says otherwise: `input` when the tool
/// has one; else its first required parameter that takes text (text, textarea, json, file);
/// else its first parameter that does. The rule is stated in SPEC.md ("Recipes").
pub(crate) fn main_input(def: &ToolDefinition) -> Option<&str> {
    let takes_text = |k: ParamType| {
        matches!(
            k,
            ParamType::Text | ParamType::Textarea | ParamType::Json | ParamType::File
        )
    };
    def.parameter("input")
        .or_else(|| {
            def.parameters
                .iter()
                .find(|p| p.required && takes_text(p.kind))
        })
        .or_else(|| def.parameters.iter().find(|p| takes_text(p.kind)))
        .map(|p| p.name.as_str())
}

/// An installed intent's main input: `input`, else its first required `string` parameter.
fn intent_input(intent: &Intent) -> Option<String> {
    if intent.params.contains_key("input") {
        return Some("input".into());
    }
    intent
        .params
        .iter()
        .find(|(_, p)| p.required && p.kind == "string")
        .map(|(name, _)| name.clone())
}

fn unknown(tool: &str) -> ToolError {
    let scan = crate::cmp::registry::scan(&crate::paths::all_roots());
    let names: Vec<String> = crate::catalogue::ids()
        .map(str::to_string)
        .chain(scan.tools.iter().map(|t| t.name().to_string()))
        .collect();
    let suggestion = crate::suggest::did_you_mean(tool, names.iter().map(String::as_str));
    let hint = suggestion
        .map(|s| format!("; did you mean '{s}'?"))
        .unwrap_or_default();
    let err = ToolError::new(
        ErrorCode::NotFound,
        format!("unknown tool '{}'{hint}", crate::text::preview(tool, 60)),
    );
    match suggestion {
        Some(s) => err.with_data(json!({ "didYouMean": s })),
        None => err,
    }
}

/// The installed tool `name` with its only (or first) intent, when one is installed.
fn installed(name: &str) -> Result<Option<Target>, ToolError> {
    let scan = crate::cmp::registry::scan(&crate::paths::all_roots());
    let Some(found) = scan.find(name) else {
        return Ok(None);
    };
    let cap = found.capability().map_err(ToolError::invalid)?;
    let Some(intent) = cap.intents.first().cloned() else {
        return Ok(None);
    };
    Ok(Some(Target {
        dir: found.dir.clone(),
        manifest: found.manifest.clone(),
        intent_index: 0,
        intent,
    }))
}

/// The step's fixed parameters pass the tool's own validation: the same normalisation and
/// rules as `cmpx run`, with the hand-off parameter left to be filled at run time.
fn check_params(step: &Planned) -> Result<(), ToolError> {
    let Kind::Builtin(def) = &step.kind else {
        return Ok(());
    };
    let Some(into) = &step.into else {
        return crate::ctp::params::prepare(def, &step.params).map(drop);
    };
    if def.parameter(into).is_none() {
        let names: Vec<&str> = def.parameters.iter().map(|p| p.name.as_str()).collect();
        let hint = crate::suggest::did_you_mean(into, names.iter().copied())
            .map(|s| format!("; did you mean '{s}'?"))
            .unwrap_or_default();
        return Err(ToolError::invalid(format!(
            "\"into\" names '{}', which {} does not have{hint} (parameters: {})",
            crate::text::escape_control(into),
            def.id,
            names.join(", ")
        )));
    }
    if step.params.contains_key(into) {
        return Err(ToolError::invalid(format!(
            "parameter '{into}' receives the previous step's output; do not set it too (or send the output elsewhere with \"into\")"
        )));
    }
    // The hand-off parameter is checked when its value exists; here it is made optional and
    // unconstrained so everything else gets exactly the executor's checks.
    let mut probe = (**def).clone();
    for p in probe.parameters.iter_mut().filter(|p| p.name == *into) {
        p.required = false;
        p.validation = None;
    }
    crate::ctp::params::prepare(&probe, &step.params).map(drop)
}

/// The policy's decision before anything runs: a built-in step that needs consent is asked
/// about here (the person answers once for the whole recipe); an installed tool's step is
/// decided again when it runs, with the value handed to it, and only a deny stops it here.
fn check_policy(
    step: &Planned,
    reads: &[PathBuf],
    output: Option<&Path>,
    options: &Options,
) -> Result<(), ToolError> {
    use crate::exec::authorize::{self, Call, Decision};
    match &step.kind {
        Kind::Builtin(def) => {
            let call = Call::Builtin {
                id: &def.id,
                reads,
                output,
            };
            authorize::authorize(&call, ask(options.yes, options.interactive)).map(drop)
        }
        Kind::Installed(target) => {
            let call = Call::Intent {
                target,
                args: &step.params,
            };
            match authorize::decide(&call) {
                Decision::Refuse(e) => Err(e),
                Decision::Run(_) | Decision::Ask(_) => Ok(()),
            }
        }
    }
}

/// How a recipe's steps obtain consent: at the terminal for `cmpx pipe`, given with `--yes`,
/// otherwise (an MCP client, an HTTP request) not at all.
pub(crate) fn ask(yes: bool, interactive: bool) -> crate::exec::authorize::Ask<'static> {
    use crate::exec::authorize::Ask;
    match (interactive, yes) {
        (true, yes) => Ask::Terminal { yes },
        (false, true) => Ask::Given,
        (false, false) => Ask::Never {
            why: "a recipe run here cannot ask the person",
            hint: "The person can let it run without asking with `cmpx policy grant <capability> --tool <tool>`, or run the recipe themselves with `cmpx pipe … --yes`.",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(id: &str) -> ToolDefinition {
        crate::catalogue::get(id).unwrap()
    }

    #[test]
    fn the_main_input_is_input_else_the_first_required_text_parameter() {
        assert_eq!(main_input(&def("json-formatter")), Some("input"));
        assert_eq!(main_input(&def("jwt-decoder")), Some("token"));
        assert_eq!(main_input(&def("jq-processor")), Some("input"));
        assert_eq!(main_input(&def("regex-tester")), Some("pattern"));
        assert_eq!(main_input(&def("file-type-detector")), Some("file"));
    }

    fn recipe(v: Value) -> Recipe {
        Recipe::from_value(v, "r").unwrap()
    }

    fn opts() -> Options {
        Options {
            has_input: true,
            ..Options::default()
        }
    }

    #[test]
    fn a_bad_parameter_names_its_step() {
        let r = recipe(json!([
            {"tool": "base64-encoder", "params": {"mode": "decode"}},
            {"tool": "gzip-compressor", "params": {"mode": "decompress"}},
            {"tool": "json-formatter", "params": {"indent": "5"}}
        ]));
        let e = plan(&r, &opts()).unwrap_err();
        assert_eq!(e.code, ErrorCode::ConstraintViolation);
        assert!(
            e.message
                .starts_with("step 3 (json-formatter): parameter 'indent'"),
            "{}",
            e.message
        );
        assert_eq!(e.data.unwrap()["failedStep"], 3);
    }

    #[test]
    fn unknown_tools_and_parameters_get_suggestions() {
        let e = plan(&recipe(json!([{"tool": "json-formater"}])), &opts()).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert_eq!(
            e.message,
            "step 1 (json-formater): unknown tool 'json-formater'; did you mean 'json-formatter'?"
        );
        let e = plan(
            &recipe(json!([{"tool": "json-formatter", "params": {"indnet": 4}}])),
            &opts(),
        )
        .unwrap_err();
        assert!(e.message.contains("did you mean 'indent'"), "{}", e.message);
        let e = plan(
            &recipe(json!([{"tool": "json-formatter", "into": "inptu"}])),
            &opts(),
        )
        .unwrap_err();
        assert!(e.message.contains("did you mean 'input'"), "{}", e.message);
    }

    #[test]
    fn the_hand_off_parameter_is_left_to_the_run() {
        // find-replace requires `find` (given) and `input` (the hand-off).
        let r = recipe(json!([{"tool": "find-replace", "params": {"find": "a"}}]));
        assert!(plan(&r, &opts()).is_ok());
        let r = recipe(json!([{"tool": "find-replace", "params": {"replace": "a"}}]));
        assert_eq!(
            plan(&r, &opts()).unwrap_err().code,
            ErrorCode::MissingRequired
        );
        let r = recipe(json!([{"tool": "json-formatter", "params": {"input": "{}"}}]));
        assert!(
            plan(&r, &opts())
                .unwrap_err()
                .message
                .contains("do not set it too")
        );
        // Without an input, the first step takes its own parameters whole.
        let r = recipe(json!([{"tool": "json-formatter", "params": {"input": "{}"}}]));
        assert!(plan(&r, &Options::default()).is_ok());
    }
}
