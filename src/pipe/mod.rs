//! Recipes (`cmpx pipe`): tools chained in one call. A recipe is checked whole before any step
//! runs (`plan`), then each step runs through the one executor with the previous step's output
//! handed on as text, bytes or JSON (`handoff`). The same recipe shape serves the command line,
//! MCP and HTTP (`schema`); saved recipes are CMP folders (`saved`, `save`).

pub(crate) mod bundled;
pub(crate) mod call;
pub(crate) mod handoff;
pub(crate) mod list;
pub(crate) mod parse;
pub(crate) mod plan;
pub(crate) mod recipe;
pub(crate) mod run;
pub(crate) mod save;
pub(crate) mod saved;
pub(crate) mod schema;
pub(crate) mod stream;

pub(crate) use recipe::{Recipe, Step};
