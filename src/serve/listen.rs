//! The accept loop and the life of each connection: hyper serves it with a deadline for request
//! headers; a connection with no request in flight is closed when idle too long; connections
//! are capped per client and in all (the longest-idle one makes room for a new one, or the new
//! one is turned away); and at shutdown idle connections close at once, the rest are drained
//! for [`DRAIN`], then cut off.

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How long a client may take to send a request's headers (the first request's, and each
/// next one's on a kept-alive connection once it has started).
pub(super) const HEADER_READ: Duration = Duration::from_secs(10);
/// A connection with no request in flight for this long is closed.
pub(super) const IDLE: Duration = Duration::from_secs(30);
/// Largest request head (start line and headers).
const MAX_HEADER_BYTES: usize = 64 << 10;
/// Connections one client address may hold at once.
pub(super) const PER_CLIENT: usize = 256;
/// Connections in all, at most; less when the descriptor limit is lower (see [`total_cap`]).
const TOTAL: usize = 4096;
/// Descriptors kept free for what calls open (worker pipes, files, the policy).
const RESERVED_FDS: u64 = 256;
/// After SIGINT/SIGTERM, how long requests in flight may take to finish before their
/// connections are cut (and the calls they started cancelled).
pub(super) const DRAIN: Duration = Duration::from_secs(10);

/// One open connection, as the caps and the idle sweep see it.
struct Conn {
    peer: IpAddr,
    /// Requests whose response has not been fully sent yet.
    busy: AtomicUsize,
    /// Milliseconds since [`Table::epoch`] of the last request's start or end.
    last: AtomicU64,
    /// Set to end the connection now (evicted or idle).
    close: tokio::sync::Notify,
}

struct Table {
    epoch: Instant,
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
    total_cap: usize,
    per_client: usize,
}

impl Table {
    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// Admits a connection from `peer`, closing the longest-idle one when a cap is reached;
    /// `None` when every connection over the cap is busy.
    fn admit(&self, peer: IpAddr) -> Option<(u64, Arc<Conn>)> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let mine = open.values().filter(|c| c.peer == peer).count();
        if mine >= self.per_client {
            evict_idlest(&mut open, Some(peer))?;
        } else if open.len() >= self.total_cap {
            evict_idlest(&mut open, None)?;
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn {
            peer,
            busy: AtomicUsize::new(0),
            last: AtomicU64::new(self.now_ms()),
            close: tokio::sync::Notify::new(),
        });
        open.insert(id, conn.clone());
        Some((id, conn))
    }

    fn remove(&self, id: u64) {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }

    /// Closes connections idle longer than [`IDLE`].
    fn sweep(&self) {
        let now = self.now_ms();
        let idle = IDLE.as_millis() as u64;
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        for conn in open.values() {
            if conn.busy.load(Ordering::SeqCst) == 0
                && now.saturating_sub(conn.last.load(Ordering::SeqCst)) >= idle
            {
                conn.close.notify_one();
            }
        }
    }

    fn len(&self) -> usize {
        self.open.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// Closes (and forgets) the connection idle longest, of `peer` or of anyone; `None` when all
/// are busy.
fn evict_idlest(open: &mut HashMap<u64, Arc<Conn>>, peer: Option<IpAddr>) -> Option<()> {
    let (&id, _) = open
        .iter()
        .filter(|(_, c)| peer.is_none_or(|p| c.peer == p) && c.busy.load(Ordering::SeqCst) == 0)
        .min_by_key(|(_, c)| c.last.load(Ordering::SeqCst))?;
    let conn = open.remove(&id)?;
    conn.close.notify_one();
    Some(())
}

/// Marks its connection busy while a request is handled and until its response body has been
/// sent (or dropped).
struct Busy {
    conn: Arc<Conn>,
    table: Arc<Table>,
}

impl Busy {
    fn new(conn: Arc<Conn>, table: Arc<Table>) -> Busy {
        conn.busy.fetch_add(1, Ordering::SeqCst);
        conn.last.store(table.now_ms(), Ordering::SeqCst);
        Busy { conn, table }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.conn.last.store(self.table.now_ms(), Ordering::SeqCst);
        self.conn.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The connection cap: [`TOTAL`], or fewer when the descriptor limit (raised to its hard
/// maximum first) would not leave [`RESERVED_FDS`] for the calls.
fn total_cap() -> usize {
    let limit = raise_fd_limit();
    let usable = limit.saturating_sub(RESERVED_FDS).max(16);
    usize::try_from(usable).unwrap_or(TOTAL).min(TOTAL)
}

/// Raises the soft descriptor limit to the hard one; the soft limit in force afterwards.
fn raise_fd_limit() -> u64 {
    use rustix::process::{Resource, Rlimit};
    let limit = rustix::process::getrlimit(Resource::Nofile);
    // None is RLIM_INFINITY.
    let soft = limit.current.unwrap_or(u64::MAX);
    let hard = limit.maximum.unwrap_or(u64::MAX);
    if soft < hard {
        let raised = Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        // Raising the soft limit up to the hard one needs no privilege.
        if rustix::process::setrlimit(Resource::Nofile, raised).is_ok() {
            return hard;
        }
    }
    soft
}

/// Serves `app` on `listener` until `shutdown` resolves; then drains as the module says.
pub(super) async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let total = total_cap();
    let table = Arc::new(Table {
        epoch: Instant::now(),
        next_id: AtomicU64::new(0),
        open: Mutex::new(HashMap::new()),
        total_cap: total,
        per_client: PER_CLIENT.min(total),
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let sweeper = {
        let table = table.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                table.sweep();
            }
        })
    };
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of descriptors or memory: wait instead of spinning; the idle sweep
                    // and finishing requests free some.
                    crate::log_line!("cmpx serve: accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        // Reap finished connection tasks so the set does not grow with every connection.
        while connections.try_join_next().is_some() {}
        let Some((id, conn)) = table.admit(peer.ip()) else {
            // Every connection over the cap has a request in flight: turn this one away.
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        connections.spawn(connection(
            stream,
            peer,
            app.clone(),
            table.clone(),
            id,
            conn,
            stop_rx.clone(),
        ));
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let drained = tokio::time::timeout(DRAIN, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        crate::log_line!(
            "cmpx serve: {} connection(s) still busy after {} s; closing them",
            table.len(),
            DRAIN.as_secs()
        );
        // Dropping a request's future cancels the call it started.
        connections.abort_all();
        while connections.join_next().await.is_some() {}
    }
    sweeper.abort();
}

async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    app: Router,
    table: Arc<Table>,
    id: u64,
    conn: Arc<Conn>,
    mut stop: watch::Receiver<bool>,
) {
    let service = {
        let table = table.clone();
        let conn = conn.clone();
        hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            let busy = Busy::new(conn.clone(), table.clone());
            request.extensions_mut().insert(ConnectInfo(peer));
            let app = app.clone();
            async move {
                let response = tower::ServiceExt::oneshot(app, request.map(Body::new)).await?;
                // The connection stays busy until the response body is sent or dropped.
                Ok::<_, std::convert::Infallible>(response.map(|body| {
                    Body::new(body.map_frame(move |frame| {
                        let _ = &busy;
                        frame
                    }))
                }))
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ)
        .max_header_size(MAX_HEADER_BYTES)
        .keep_alive(true);
    let served = builder
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(served);
    let mut stopping = *stop.borrow();
    if stopping {
        served.as_mut().graceful_shutdown();
    }
    loop {
        tokio::select! {
            _ = served.as_mut() => break,
            () = conn.close.notified() => break,
            changed = stop.changed(), if !stopping => {
                stopping = true;
                if changed.is_ok() {
                    // Idle connections close now; a request in flight finishes first.
                    served.as_mut().graceful_shutdown();
                }
            }
        }
    }
    table.remove(id);
}
