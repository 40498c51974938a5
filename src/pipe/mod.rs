//! Recipes (`cmpx pipe`): tools chained in one call. A recipe is checked whole before any step
//! runs (`plan`), then each step runs through the one executor with the previous step's output
//! handed on as text, bytes or JSON (`handoff`). The same recipe shape serves the command line,
//! MCP and HTTP (`schema`); saved recipes are CMP folders (`saved`, `save`).

pub mod bundled;
pub mod call;
pub mod handoff;
pub mod list;
pub mod parse;
pub mod plan;
pub mod recipe;
pub mod run;
pub mod save;
pub mod saved;
pub mod schema;
pub mod stream;

pub use recipe::{Recipe, Step};
