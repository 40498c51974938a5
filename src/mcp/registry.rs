//! The tools an MCP client sees: every catalogue tool, then one tool per intent of every other
//! installed folder (adapters, third-party tools), in a stable order.

use crate::cmp::registry;
use crate::ctp::ToolDefinition;
use crate::discovery::mcp;
use crate::exec::invoke::Target;
use serde_json::Value;
use std::collections::HashSet;
use std::path::PathBuf;

pub enum Kind {
    Builtin(Box<ToolDefinition>),
    Intent(Box<Target>),
    /// `pipe`: a recipe call (`crate::pipe::call`).
    Pipe,
}

pub struct McpTool {
    pub name: String,
    /// The MCP tool definition (name, title, description, schemas, annotations).
    pub definition: Value,
    pub kind: Kind,
}

pub struct Registry {
    pub tools: Vec<McpTool>,
}

impl Registry {
    pub fn load(roots: &[PathBuf]) -> Registry {
        let mut tools: Vec<McpTool> = crate::catalogue::all()
            .iter()
            .map(|def| McpTool {
                name: def.id.clone(),
                definition: mcp::builtin_tool(def),
                kind: Kind::Builtin(Box::new(def.clone())),
            })
            .collect();
        tools.push(McpTool {
            name: "pipe".into(),
            definition: crate::pipe::call::mcp_definition(),
            kind: Kind::Pipe,
        });
        let mut names: HashSet<String> = tools.iter().map(|t| t.name.clone()).collect();
        let scan = registry::scan(roots);
        for s in &scan.skipped {
            crate::log_line!("cmpx mcp: skipping {}: {}", s.path.display(), s.reason);
        }
        for installed in scan
            .tools
            .iter()
            .filter(|t| crate::catalogue::get(t.name()).is_none())
        {
            let cap = match installed.capability() {
                Ok(c) => c,
                Err(e) => {
                    crate::log_line!("cmpx mcp: skipping {}: {e}", installed.dir.display());
                    continue;
                }
            };
            for (i, intent) in cap.intents.iter().enumerate() {
                let name = mcp::intent_name(installed.name(), intent, i);
                if !names.insert(name.clone()) {
                    crate::log_line!("cmpx mcp: skipping {name}: the name is taken");
                    continue;
                }
                tools.push(McpTool {
                    definition: mcp::intent_tool(&installed.manifest, intent, i),
                    name,
                    kind: Kind::Intent(Box::new(Target {
                        dir: installed.dir.clone(),
                        manifest: installed.manifest.clone(),
                        intent_index: i,
                        intent: intent.clone(),
                    })),
                });
            }
        }
        Registry { tools }
    }

    pub fn get(&self, name: &str) -> Option<&McpTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The MCP name of a resolution candidate.
    pub fn name_of(&self, c: &crate::resolve::Candidate) -> Option<String> {
        self.tools
            .iter()
            .find(|t| match &t.kind {
                Kind::Builtin(def) => def.id == c.tool,
                Kind::Intent(target) => {
                    target.manifest.name == c.tool && target.intent_index == c.intent.index
                }
                Kind::Pipe => false,
            })
            .map(|t| t.name.clone())
    }
}
