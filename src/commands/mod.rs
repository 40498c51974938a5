//! One module per subcommand.

use crate::cli::{Cli, Command};
use clap::Parser;

pub fn main() -> i32 {
    let cli = Cli::parse();
    let mode = crate::output::Mode::detect(cli.json, cli.pretty);
    match cli.command {
        Command::Run { tool, params } => {
            let mut map = serde_json::Map::new();
            let mut it = params.into_iter();
            while let Some(k) = it.next() {
                if let Some(name) = k.strip_prefix("--") {
                    map.insert(
                        name.to_string(),
                        serde_json::Value::String(it.next().unwrap_or_default()),
                    );
                }
            }
            let result = crate::exec::run_builtin(&tool, &map);
            crate::output::print_result(mode, &result);
            result
                .error_code()
                .map(|c| crate::ExitCode::for_error_code(c).code())
                .unwrap_or(0)
        }
    }
}
