//! What one `tools/register` may hold: the checks each tool definition passes, each looking at
//! a bounded part of the input, and the capabilities a tool name keeps over its session's life
//! (they never shrink, so registering again cannot slip a tool past the policy).

use indexmap::IndexSet;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Tools one session may register.
pub(crate) const MAX_TOOLS: usize = 100;
/// Capabilities one tool name may declare over a session's life.
pub(crate) const MAX_CAPABILITIES: usize = 32;
/// The longest capability name, in bytes.
pub(crate) const MAX_CAPABILITY_NAME: usize = 64;
/// A tool's description, in bytes.
pub(crate) const MAX_DESCRIPTION: usize = 4 << 10;
/// One tool definition as JSON (description and input schema included), in bytes.
pub(crate) const MAX_DEFINITION: usize = 16 << 10;
/// All tool definitions of one registration as JSON, in bytes.
pub(crate) const MAX_REGISTRATION: usize = 256 << 10;
/// Distinct tool names one session remembers capabilities for over its life.
pub(crate) const MAX_NAMES: usize = 4 * MAX_TOOLS;

/// How many bytes `value` takes as JSON, or `None` past `limit`: the count stops there, so a
/// huge value costs no more work than `limit` bytes.
fn json_size(value: &Value, limit: usize) -> Option<usize> {
    struct Counter {
        n: usize,
        limit: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.n += buf.len();
            if self.n > self.limit {
                return Err(std::io::Error::other("past the limit"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { n: 0, limit };
    serde_json::to_writer(&mut counter, value)
        .ok()
        .map(|()| counter.n)
}

/// The tools of a `tools/register`, checked: BTCP names (`^[a-zA-Z][a-zA-Z0-9_]*$`, at most
/// 64), unique, a description of at most [`MAX_DESCRIPTION`], an object input schema, at most
/// [`MAX_CAPABILITIES`] capability names of BTCP's shape (duplicates count once), a definition
/// of at most [`MAX_DEFINITION`] and all of them of at most [`MAX_REGISTRATION`]. Each check
/// looks at a bounded part of the input, so a huge registration is refused as fast as a small
/// one is taken. The tools come back with their capabilities deduplicated.
pub(super) fn checked_tools(tools: Option<&Value>) -> Result<Vec<Value>, String> {
    let tools = tools
        .and_then(Value::as_array)
        .ok_or("tools/register needs params.tools, an array of tool definitions")?;
    if tools.len() > MAX_TOOLS {
        return Err(format!(
            "{} tools given; a session registers at most {MAX_TOOLS}",
            tools.len()
        ));
    }
    let mut names: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut total = 0;
    let mut out = Vec::with_capacity(tools.len());
    for (i, t) in tools.iter().enumerate() {
        let name = t.get("name").and_then(Value::as_str).unwrap_or("");
        let good = name.len() <= 64
            && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !good {
            return Err(format!(
                "tools[{i}].name '{}' is not a BTCP tool name (a letter, then letters, digits or _; at most 64)",
                crate::text::preview(name, 70)
            ));
        }
        if !names.insert(name) {
            return Err(format!("tools[{i}].name '{name}' is registered twice"));
        }
        match t.get("description") {
            None | Some(Value::Null) => {}
            Some(Value::String(d)) if d.len() <= MAX_DESCRIPTION => {}
            Some(Value::String(d)) => {
                return Err(format!(
                    "tools[{i}] ({name}): the description is {} bytes; at most {MAX_DESCRIPTION} (say more in the input schema's property descriptions)",
                    d.len()
                ));
            }
            Some(_) => return Err(format!("tools[{i}] ({name}): description must be a string")),
        }
        if !t.get("inputSchema").is_some_and(Value::is_object) {
            return Err(format!("tools[{i}] ({name}) needs an inputSchema object"));
        }
        let declared = match t.get("capabilities") {
            None | Some(Value::Null) => &Vec::new(),
            Some(Value::Array(a)) if a.len() <= MAX_CAPABILITIES => a,
            Some(Value::Array(a)) => {
                return Err(format!(
                    "tools[{i}] ({name}) declares {} capabilities; a tool declares at most {MAX_CAPABILITIES}",
                    a.len()
                ));
            }
            Some(_) => {
                return Err(format!(
                    "tools[{i}] ({name}): capabilities must be an array of capability names"
                ));
            }
        };
        let mut caps: IndexSet<&str> = IndexSet::new();
        for c in declared {
            let c = c.as_str().unwrap_or("");
            if c.len() > MAX_CAPABILITY_NAME || !crate::capability::well_formed(c) {
                return Err(format!(
                    "tools[{i}] ({name}) declares '{}', which is not a capability name (category:action, at most {MAX_CAPABILITY_NAME} bytes)",
                    crate::text::preview(c, 60)
                ));
            }
            caps.insert(c);
        }
        let Some(size) = json_size(t, MAX_DEFINITION) else {
            return Err(format!(
                "tools[{i}] ({name}) is larger than {} KiB as JSON (its input schema, most likely); keep a tool definition small",
                MAX_DEFINITION >> 10
            ));
        };
        total += size;
        if total > MAX_REGISTRATION {
            return Err(format!(
                "the tools up to tools[{i}] ({name}) are larger than {} KiB as JSON together; register fewer or smaller ones",
                MAX_REGISTRATION >> 10
            ));
        }
        let mut tool = t.clone();
        if let Some(obj) = tool.as_object_mut()
            && obj.contains_key("capabilities")
        {
            obj.insert("capabilities".into(), json!(caps));
        }
        out.push(tool);
    }
    Ok(out)
}

/// Gives each tool every capability its name was registered with before in the session and
/// remembers the union; refused as a whole when a name's union would pass
/// [`MAX_CAPABILITIES`] or the session would remember more than [`MAX_NAMES`] names.
pub(super) fn widen(
    mut tools: Vec<Value>,
    declared: &mut HashMap<String, IndexSet<String>>,
) -> Result<Vec<Value>, String> {
    let mut unions: Vec<(String, IndexSet<String>)> = Vec::with_capacity(tools.len());
    for tool in &tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
        let mut union = declared.get(name).cloned().unwrap_or_default();
        union.extend(capabilities(tool));
        if union.len() > MAX_CAPABILITIES {
            return Err(format!(
                "{name} has now been registered with {} capabilities in this session; a tool keeps every capability it declared, and at most {MAX_CAPABILITIES}",
                union.len()
            ));
        }
        unions.push((name.to_string(), union));
    }
    let new = unions
        .iter()
        .filter(|(n, _)| !declared.contains_key(n))
        .count();
    if declared.len() + new > MAX_NAMES {
        return Err(format!(
            "this session has seen {} tool names; it remembers at most {MAX_NAMES} (open a new session)",
            declared.len()
        ));
    }
    for (tool, (name, union)) in tools.iter_mut().zip(unions) {
        if let Some(obj) = tool.as_object_mut() {
            obj.insert("capabilities".into(), json!(union));
        }
        declared.insert(name, union);
    }
    Ok(tools)
}

/// A BTCP tool definition's declared capabilities.
pub(crate) fn capabilities(tool: &Value) -> Vec<String> {
    tool.get("capabilities")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}
