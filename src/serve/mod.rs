//! `cmpx serve`: the catalogue over HTTP with axum: CTP execution endpoints and the discovery
//! documents, behind one guard (loopback by default, a bearer token otherwise, Host and
//! Origin checks, rate limits) and bounded in body size, run time and concurrency.

mod access_log;
mod body;
mod btcp;
mod btcp_agent;
mod config;
mod documents;
mod guard;
mod mcp;
mod mcp_modern;
mod pages;
mod pipe;
mod rate;
mod routes;
mod tools;

pub use config::{Config, DEFAULT_PORT, parse_rate};

use std::net::SocketAddr;
use std::sync::Arc;

/// Runs the server until SIGINT or SIGTERM; the exit code for the process.
pub fn serve(config: Config) -> i32 {
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
    runtime.block_on(run(config))
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
    eprintln!(
        "cmpx serve: listening on http://{local}/ ({}); Ctrl-C stops",
        state.config.describe()
    );
    let app = routes::router(state.clone());
    let served = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown_signal(state.clone()))
    .await;
    match served {
        Ok(()) => {
            eprintln!("cmpx serve: stopped");
            crate::ExitCode::Success.code()
        }
        Err(e) => {
            eprintln!("error: the server stopped: {e}");
            crate::ExitCode::ToolFailed.code()
        }
    }
}

/// Resolves on SIGINT or SIGTERM. In-flight requests then finish (axum drains them); calls
/// still running after [`config::DRAIN`] are cancelled, which stops their workers.
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
    eprintln!("cmpx serve: shutting down; finishing requests in flight");
    // Browser streams and sockets never finish by themselves: let their owners go.
    state.btcp.shutdown();
    let drain = state.clone();
    tokio::spawn(async move {
        tokio::time::sleep(config::DRAIN).await;
        drain.cancel_all();
    });
}
