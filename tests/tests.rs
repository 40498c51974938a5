//! The integration tests, one binary: each file beside this one is a module (`serve::…`,
//! `pages::…`), so the crate links once instead of once per file. Run one with
//! `cargo test --test integration serve::`, or `cargo nextest run -E 'test(/^serve::/)'`.

mod common;

mod adapters;
mod agent_path;
mod btcp;
mod btcp_browser;
mod capabilities;
mod cli;
mod consent;
mod containment;
mod contracts;
mod discovery;
mod docs;
mod export;
mod folders;
mod hardening;
mod json_stream;
mod list;
mod literal_agent;
mod mcp;
mod mcp_sdk;
mod pages;
mod pipe;
mod policy;
mod resolve;
mod resolve_accuracy;
mod resolve_index;
mod schemas;
mod serve;
mod sessions;
mod streaming;
mod versions;
