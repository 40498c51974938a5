//! Upgraded WebSocket connections. hyper hands an upgraded socket to its own task, so the
//! accept loop's drain never sees it: this counts the open ones, tells them when the server
//! stops, and lets shutdown wait (briefly) until their close frames are out, so a client sees
//! 1001 (going away) rather than a connection that just drops (1006).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{Notify, watch};

/// The open sockets and the server's stop signal to them.
pub(super) struct Sockets {
    stop: watch::Sender<bool>,
    open: AtomicUsize,
    closed: Notify,
}

/// One open socket; dropping it counts the socket closed.
pub(super) struct Open {
    sockets: Arc<Sockets>,
    stop: watch::Receiver<bool>,
}

impl Sockets {
    pub(super) fn new() -> Arc<Sockets> {
        Arc::new(Sockets {
            stop: watch::channel(false).0,
            open: AtomicUsize::new(0),
            closed: Notify::new(),
        })
    }

    /// Counts a socket open until the returned guard is dropped.
    pub(super) fn open(self: &Arc<Self>) -> Open {
        self.open.fetch_add(1, Ordering::SeqCst);
        Open {
            sockets: self.clone(),
            stop: self.stop.subscribe(),
        }
    }

    /// Tells every socket, open or opened later, that the server is stopping.
    pub(super) fn stop(&self) {
        self.stop.send_replace(true);
    }

    /// Waits until every socket has closed, or `limit` has passed; how many are still open.
    pub(super) async fn closed(&self, limit: Duration) -> usize {
        let all_closed = async {
            loop {
                let notified = self.closed.notified();
                if self.open.load(Ordering::SeqCst) == 0 {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(limit, all_closed).await;
        self.open.load(Ordering::SeqCst)
    }
}

impl Open {
    /// Resolves once the server is stopping (at once if it already is).
    pub(super) async fn stopping(&mut self) {
        // An error means the sender is gone, which only happens as the server ends.
        let _ = self.stop.wait_for(|stopping| *stopping).await;
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.sockets.open.fetch_sub(1, Ordering::SeqCst);
        self.sockets.closed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn shutdown_waits_for_open_sockets_and_no_longer() {
        let sockets = Sockets::new();
        assert_eq!(sockets.closed(Duration::from_millis(10)).await, 0);
        let mut open = sockets.open();
        sockets.stop();
        // A socket told to stop closes; the wait ends when it has.
        let closing = tokio::spawn(async move {
            open.stopping().await;
            drop(open);
        });
        assert_eq!(sockets.closed(Duration::from_secs(30)).await, 0);
        closing.await.unwrap();
        // One that never closes holds shutdown for the limit only.
        let _stuck = sockets.open();
        assert_eq!(sockets.closed(Duration::from_millis(50)).await, 1);
        // A socket opened after the stop learns of it at once.
        let mut late = sockets.open();
        tokio::time::timeout(Duration::from_secs(30), late.stopping())
            .await
            .unwrap();
    }
}
