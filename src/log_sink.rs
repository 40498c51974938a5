//! Diagnostic lines on stderr that never block their caller. A server calls [`start`]: from
//! then on lines go through a bounded queue to one writer thread, and a line that does not fit
//! (stderr is a pipe nobody reads, or reads slowly) is dropped and counted, so one log sink
//! cannot stall request handling. The count is written as soon as stderr takes lines again,
//! and at shutdown. Before [`start`] (every other command) lines are written directly, as any
//! command-line program writes its diagnostics.

use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::Duration;

/// Lines held while stderr is not taking them (about 1 MiB of access-log lines).
const QUEUE: usize = 8192;

enum Message {
    Line(String),
    /// Answered once every line queued before it has been written.
    Flush(std::sync::mpsc::Sender<()>),
}

struct Sink {
    queue: SyncSender<Message>,
    /// Dropped since the writer last reported them.
    pending: AtomicU64,
    /// Dropped in the life of the process.
    total: AtomicU64,
}

static SINK: OnceLock<Sink> = OnceLock::new();

/// Writes `$fmt` as one line on stderr through [`line`].
#[macro_export]
macro_rules! log_line {
    ($($arg:tt)*) => {
        $crate::log_sink::line(format!($($arg)*))
    };
}

/// Routes every later [`line`] through the writer thread. Idempotent.
pub(crate) fn start() {
    SINK.get_or_init(|| {
        let (queue, lines) = sync_channel(QUEUE);
        // Without the thread, lines would only queue and then be dropped: still never blocking.
        let _ = std::thread::Builder::new()
            .name("cmpx-log".into())
            .spawn(move || write_lines(lines));
        Sink {
            queue,
            pending: AtomicU64::new(0),
            total: AtomicU64::new(0),
        }
    });
}

/// One diagnostic line. Never blocks once [`start`] ran; never panics (a closed stderr loses
/// the line, as nothing else could be done with it).
pub(crate) fn line(text: String) {
    match SINK.get() {
        Some(sink) => match sink.queue.try_send(Message::Line(text)) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                sink.pending.fetch_add(1, Ordering::Relaxed);
                sink.total.fetch_add(1, Ordering::Relaxed);
            }
        },
        None => {
            let _ = writeln!(std::io::stderr().lock(), "{text}");
        }
    }
}

/// Lines dropped so far because stderr did not take them.
pub(crate) fn dropped() -> u64 {
    SINK.get().map_or(0, |s| s.total.load(Ordering::Relaxed))
}

/// Waits up to `limit` for the queued lines to be written (at shutdown); false when stderr did
/// not take them in time (the process may then exit with them unwritten).
pub(crate) fn flush(limit: Duration) -> bool {
    let Some(sink) = SINK.get() else {
        return true;
    };
    let (done, wait) = std::sync::mpsc::channel();
    if sink.queue.try_send(Message::Flush(done)).is_err() {
        return false;
    }
    wait.recv_timeout(limit).is_ok()
}

fn write_lines(lines: Receiver<Message>) {
    let stderr = std::io::stderr();
    for message in lines {
        let sink = SINK.get();
        if let Some(n) = sink.map(|s| s.pending.swap(0, Ordering::Relaxed))
            && n > 0
        {
            let _ = writeln!(
                stderr.lock(),
                "cmpx: {n} log line{} dropped: standard error was not being read",
                if n == 1 { " was" } else { "s were" }
            );
        }
        match message {
            Message::Line(text) => {
                let _ = writeln!(stderr.lock(), "{text}");
            }
            Message::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}
