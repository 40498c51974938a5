//! Command-line definitions (clap derive). Parsing only; `commands` does the work.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// The flags `cmpx run` and `cmpx do` read beside a tool's own parameters.
pub(crate) const RUN_FLAGS_HELP: &str = "\
Run flags:
  --intent <n|pattern>  which intent of an installed tool (adapters, third-party folders)
  --yes                 consent to an intent that asks first (confirm/destructive); takes no value
  --dry-run             print the command an intent would run; run nothing
  --timeout <seconds>   stop the tool or program after this long (default 60)
  --output-file <path>  write the full output to a new file (never replaces one)
  --args '<json>'       all parameters at once, as a JSON object
  --json                print the JSON result even on a terminal (also CMP_AGENT=1)
  --pretty              indent the JSON result
  --help, -h            describe the tool or intent; run nothing";

#[derive(Debug, Parser)]
#[command(
    name = "cmpx",
    version,
    about = "Developer utilities for coding agents: a CTP catalogue exported as CMP folders, and the executor they point at",
    after_help = "Exit codes: 0 success, 1 tool failed, 2 usage error, 3 confirmation required, 4 not found, 5 timeout, 6 ambiguous request."
)]
pub(crate) struct Cli {
    /// Print JSON even when stdout is a terminal (also CMP_AGENT=1).
    #[arg(long, global = true)]
    pub json: bool,
    /// Indent JSON output.
    #[arg(long, global = true)]
    pub pretty: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run a tool: cmpx run <tool> [--<param> <value>]... [--args '<json>']
    ///
    /// A value `@path` reads a file, `-` reads stdin, `@@x` is the literal `@x`.
    /// `cmpx run <tool> --help` describes the tool's parameters.
    #[command(disable_help_flag = true, after_help = RUN_FLAGS_HELP)]
    Run {
        /// Tool id, e.g. json-formatter.
        #[arg(allow_hyphen_values = true)]
        tool: String,
        /// Parameters as --<name> <value>.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        params: Vec<String>,
    },
    /// Run a recipe: tools chained in one call, each step's output the next one's input.
    ///
    /// cmpx pipe 'base64-encoder mode=decode | gzip-compressor mode=decompress | json-formatter indent=4' --input @blob.txt
    /// Every step is checked before any runs. A recipe in JSON: --recipe FILE (or a saved
    /// recipe's NAME); --save NAME writes it as a CMP folder in $CMP_HOME/tools (SPEC.md "Recipes").
    Pipe {
        /// The recipe in short form: 'tool name=value … | tool …'.
        #[arg(value_name = "RECIPE")]
        recipe_text: Option<String>,
        /// A recipe JSON file, or the name of a saved recipe.
        #[arg(long, value_name = "FILE|NAME")]
        recipe: Option<String>,
        /// The first step's input: text, @path (a file, read as bytes) or - (stdin).
        #[arg(long, allow_hyphen_values = true)]
        input: Option<String>,
        /// Write the last step's output to this new file (never replaces one).
        #[arg(long, value_name = "PATH")]
        output_file: Option<PathBuf>,
        /// Allow installed tools that run programs (adapters) as steps, under the policy.
        #[arg(long)]
        allow_adapters: bool,
        /// Consent to steps that ask first; takes no value.
        #[arg(long)]
        yes: bool,
        /// Save the recipe as a tool named NAME instead of running it.
        #[arg(long, value_name = "NAME")]
        save: Option<String>,
        /// Stop the whole recipe after this many seconds (default 60).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<String>,
        /// List the recipes runnable by name (bundled and saved) with their steps; run nothing.
        #[arg(long, conflicts_with_all = ["recipe_text", "recipe", "save", "input"])]
        list: bool,
    },
    /// Write the catalogue as CMP folders (default $CMP_HOME/tools, i.e. ~/.cmp/tools).
    Export {
        /// Target directory instead of $CMP_HOME/tools.
        #[arg(long, value_name = "DIR")]
        to: Option<PathBuf>,
        /// Overwrite folders cmpx did not create or that were edited since the last export.
        #[arg(long)]
        force: bool,
        /// Report what would change without writing anything.
        #[arg(long)]
        dry_run: bool,
    },
    /// List installed tools ($CMP_HOME/tools and CMP_TOOL_PATH roots).
    List {
        /// Only tools in this domain (e.g. formatters).
        #[arg(long)]
        domain: Option<String>,
    },
    /// Show an installed tool's manifest, capability and examples.
    Show {
        /// Tool name.
        tool: String,
    },
    /// Resolve a request and run the best intent if it is a confident, unambiguous match.
    ///
    /// cmpx do <request words>... [--<param> <value>]... [--yes] [--dry-run] [--timeout S]
    #[command(disable_help_flag = true, after_help = RUN_FLAGS_HELP)]
    Do {
        /// The request words, then parameters.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, num_args = 1..)]
        words: Vec<String>,
    },
    /// Serve the catalogue and installed tools over MCP (stdio, JSON-RPC 2.0).
    Mcp {
        /// Three meta-tools (search, describe, run) instead of every tool: constant context cost.
        #[arg(long)]
        progressive: bool,
        /// Run confirm/destructive intents without asking the user.
        #[arg(long)]
        allow_destructive: bool,
        /// Tools per tools/list page.
        #[arg(long, default_value_t = 50)]
        page_size: usize,
        /// Also offer the browser tools of a BTCP session held by the `cmpx serve` at this URL
        /// (e.g. http://127.0.0.1:7878), under that server's capability policy.
        #[arg(long, requires = "btcp_session", conflicts_with = "progressive")]
        btcp_server: Option<String>,
        /// The BTCP session whose browser tools to offer (the id the browser's client uses).
        #[arg(long, requires = "btcp_server")]
        btcp_session: Option<String>,
        /// The bearer token of that server (the --token it was started with).
        #[arg(long, env = "CMPX_TOKEN", hide_env_values = true)]
        btcp_token: Option<String>,
    },
    /// Serve the catalogue over HTTP: CTP endpoints (/api/tools/{id}) and discovery documents.
    ///
    /// Listens on 127.0.0.1:7878 unless told otherwise and prints its URL on stdout. Any
    /// address other than loopback needs --token (or CMPX_TOKEN); every request must then carry
    /// 'Authorization: Bearer <token>'. SIGINT/SIGTERM stop it after requests in flight finish.
    Serve {
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = crate::serve::DEFAULT_PORT)]
        port: u16,
        /// Address to listen on; a non-loopback one needs --token.
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Require 'Authorization: Bearer <TOKEN>' on every request (at least 16 characters).
        #[arg(long, env = "CMPX_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// The URL clients reach the server by (behind a proxy); documents name it.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// Let pages on this origin call the server from a browser (repeatable).
        #[arg(long = "allow-origin", value_name = "ORIGIN")]
        allow_origins: Vec<String>,
        /// Requests per second per client: N, N/BURST, or 0 for none [default: none on
        /// loopback, 20/40 otherwise].
        #[arg(long, value_name = "RATE")]
        rate_limit: Option<String>,
        /// Tool calls run at once; more wait for a free slot.
        #[arg(long, default_value_t = 8)]
        max_concurrent: usize,
        /// How long one tool call may run, in seconds.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// Offer installed tools that run external programs (adapters) over /mcp too; their
        /// consent questions go to the MCP client as on stdio.
        #[arg(long)]
        allow_adapters: bool,
    },
    /// Validate a CMP tool folder and copy it into $CMP_HOME/tools.
    Install {
        /// The tool folder (holding cmp/ or .cmp/).
        dir: PathBuf,
        /// Replace an installed folder of the same name.
        #[arg(long)]
        force: bool,
    },
    /// Rank the installed intents that match a request in plain words.
    Resolve {
        /// The request, e.g. "pretty print this json".
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
        /// How many candidates to show.
        #[arg(long, default_value_t = 5)]
        top: usize,
        /// Only tools in this domain.
        #[arg(long)]
        domain: Option<String>,
        /// Every candidate's parameters in full, instead of the short answer.
        #[arg(long)]
        full: bool,
    },
    /// Check CTP definition files or CMP folders; with no paths, the built-in catalogue.
    ///
    /// --lock prints the tools' public surfaces (parameters, types, options, output fields)
    /// with their versions; --against OLD (a lock, a tool folder or a root of them) says what
    /// changed since and whether each version follows semver.
    Validate {
        /// Definition files (*.json), tool folders, or roots holding tool folders.
        paths: Vec<PathBuf>,
        /// Print the lock of the tools instead of checking them.
        #[arg(long, conflicts_with = "against")]
        lock: bool,
        /// Compare the tools with an older lock file or CMP folder(s).
        #[arg(long, value_name = "OLD")]
        against: Option<PathBuf>,
    },
    /// Write discovery documents for the catalogue: CTP manifest, OpenAPI, llms.txt, MCP/OpenAI/Anthropic tools.
    ///
    /// --format <name> prints one document; --out DIR writes it (or, without --format, all of
    /// them in the well-known layout). Formats: ctp-manifest, openapi, ai-tools, llms-txt,
    /// llms-full-txt, mcp, openai, anthropic; btcp (a BTCP manifest) only when named.
    Discover {
        /// The document to produce.
        #[arg(long, value_name = "NAME")]
        format: Option<String>,
        /// Write into this directory instead of printing.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Where the tools' HTTP endpoints are said to live.
        #[arg(long, value_name = "URL", default_value = crate::discovery::DEFAULT_BASE_URL)]
        base_url: String,
        /// With --out: also replace files cmpx did not write (or that were edited since).
        #[arg(long)]
        force: bool,
    },
    /// Show the capability policy, or grant, deny or revoke a capability.
    ///
    /// The policy ($CMP_HOME/policy.toml) decides what tools may touch: a denied capability
    /// never runs, not even with --yes; a granted one runs without asking; anything else asks
    /// (--yes, a typed y, or the MCP client's question) unless its risk is low.
    Policy {
        #[command(subcommand)]
        change: Option<PolicyChange>,
    },
    /// Print a catalogue tool's specification in Markdown (--all --out DIR: one file per tool).
    Doc {
        /// Tool id, e.g. json-formatter.
        tool: Option<String>,
        /// Every tool (needs --out).
        #[arg(long)]
        all: bool,
        /// Write <id>.md files into this directory instead of printing.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Internal: runs built-in tools for a parent cmpx (requests on stdin, results on stdout).
    #[command(name = "__worker", hide = true)]
    Worker,
    /// Print the snippet that tells a coding agent about CMP tools, or insert it into a file.
    AgentSetup {
        /// Put the snippet into FILE (e.g. CLAUDE.md, AGENTS.md) between its markers, replacing
        /// an older block; the rest of the file is kept.
        #[arg(long, value_name = "FILE")]
        write: Option<PathBuf>,
    },
}

/// One change to the capability policy.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum PolicyChange {
    /// Allow a capability without asking.
    Grant(PolicyRule),
    /// Never allow a capability, not even with --yes.
    Deny(PolicyRule),
    /// Remove the grant or deny rule with exactly these arguments.
    Revoke(PolicyRule),
}

#[derive(Debug, clap::Args)]
pub(crate) struct PolicyRule {
    /// A capability such as fs:write, network:fetch, dom:write, or a family such as fs:*.
    pub capability: String,
    /// Only for this tool (a catalogue id, an installed tool's name, or a browser tool's name).
    #[arg(long, value_name = "ID")]
    pub tool: Option<String>,
    /// Only for paths under this prefix (fs:* capabilities).
    #[arg(long, value_name = "PREFIX")]
    pub path: Option<PathBuf>,
}
