//! `cmpx serve`: the catalogue over HTTP with axum: CTP execution endpoints and the discovery
//! documents, behind one guard (loopback by default, a bearer token otherwise, Host and
//! Origin checks, rate limits) and bounded in body size, run time, concurrency, connections
//! and time to shut down.

mod access_log;
mod body;
mod btcp;
mod btcp_agent;
mod config;
mod documents;
mod guard;
mod intake;
mod listen;
mod mcp;
mod mcp_modern;
mod pages;
mod pipe;
mod rate;
mod routes;
mod sockets;
mod tools;

pub(crate) use config::{Config, DEFAULT_PORT, parse_rate};

use crate::log_sink;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// After the drain, how long the process may take to end before it exits regardless (calls
/// cancelled, workers told to stop).
const EXIT_GRACE: Duration = Duration::from_secs(3);
/// How long shutdown waits for WebSockets to send their close frames.
const SOCKET_CLOSE: Duration = Duration::from_secs(2);

/// Runs the server until SIGINT or SIGTERM; the exit code for the process.
pub(crate) fn serve(config: Config) -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("cmpx-serve")
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: could not start the HTTP runtime: {e}");
            return crate::ExitCode::ToolFailed.code();
        }
    };
    let code = runtime.block_on(run(config));
    // Blocking calls still running (cancelled, finishing) must not hold the exit up.
    runtime.shutdown_timeout(EXIT_GRACE);
    log_sink::flush(Duration::from_secs(1));
    code
}

async fn run(config: Config) -> i32 {
    let addr = SocketAddr::new(config.bind, config.port);
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "error: cannot listen on {addr}: {e}{}",
                if e.kind() == std::io::ErrorKind::AddrInUse {
                    "; another program uses that port: choose one with --port (0 picks a free one)"
                } else {
                    ""
                }
            );
            return crate::ExitCode::ToolFailed.code();
        }
    };
    let local = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: cannot read the listening address: {e}");
            return crate::ExitCode::ToolFailed.code();
        }
    };
    // Calls reuse warm workers instead of starting a process each (limits stay per call).
    crate::exec::worker::keep_warm(config.max_concurrent);
    let state = Arc::new(routes::State::new(config, local));
    // The one line on stdout is the address, so a script can read it (`--port 0`).
    println!("http://{local}/");
    // From here on, diagnostics never block a runtime thread (a stderr nobody reads).
    log_sink::start();
    crate::log_line!(
        "cmpx serve: listening on http://{local}/ ({}; request bodies in memory at most {}); Ctrl-C stops",
        state.config.describe(),
        crate::limits::human(state.body_budget.total_bytes())
    );
    let app = routes::router(state.clone());
    listen::serve(listener, app, shutdown_signal(state.clone())).await;
    state.cancel_all();
    let open = state.sockets.closed(SOCKET_CLOSE).await;
    if open > 0 {
        crate::log_line!("cmpx serve: {open} WebSocket(s) did not close in time; dropping them");
    }
    let dropped = log_sink::dropped();
    if dropped > 0 {
        crate::log_line!(
            "cmpx serve: stopped; {dropped} log line(s) were dropped because standard error was not being read"
        );
    } else {
        crate::log_line!("cmpx serve: stopped");
    }
    crate::ExitCode::Success.code()
}

/// Resolves on SIGINT or SIGTERM. Idle connections then close and requests in flight may
/// finish for [`listen::DRAIN`]; then their connections are cut and their calls cancelled. A
/// watchdog ends the process [`EXIT_GRACE`] after that, whatever is still running.
async fn shutdown_signal(state: Arc<routes::State>) {
    let interrupt = tokio::signal::ctrl_c();
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = interrupt => {}
        _ = terminate => {}
    }
    crate::log_line!(
        "cmpx serve: shutting down; finishing requests in flight (at most {} s)",
        listen::DRAIN.as_secs()
    );
    // Browser streams and sockets never finish by themselves: let their owners go.
    state.btcp.shutdown();
    state.sockets.stop();
    let deadline = listen::DRAIN + EXIT_GRACE * 2;
    let _ = std::thread::Builder::new()
        .name("cmpx-exit".into())
        .spawn(move || {
            std::thread::sleep(deadline);
            let _ = log_sink::flush(Duration::from_millis(200));
            std::process::exit(crate::ExitCode::Success.code());
        });
}
