//! Every request body is read whole before a route sees it, the same way on every route:
//! refused at once when its declared length is over the input limit, read under a deadline (a
//! stalled or trickled body holds no run slot, and no more memory than what arrived), and
//! counted against the server's budget for bodies in memory (run slots × input limit), held
//! until the route has answered.

use super::guard;
use super::routes::State;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::ctp::ErrorCode;

/// How long a whole request body may take to arrive.
pub(super) const BODY_DEADLINE: Duration = Duration::from_secs(60);
/// How long a body waits for room in the budget before the request is turned away (503).
const BUDGET_WAIT: Duration = Duration::from_secs(10);

/// The bytes of request bodies the server holds at once, in KiB permits.
pub(super) struct Budget {
    kib: Arc<Semaphore>,
    total_kib: u64,
}

impl Budget {
    /// Room for `slots` bodies of `max_body` bytes each.
    pub(super) fn new(slots: usize, max_body: u64) -> Budget {
        let total_kib = (slots as u64)
            .saturating_mul(max_body.div_ceil(1024))
            .clamp(1, u64::from(u32::MAX).min(Semaphore::MAX_PERMITS as u64));
        Budget {
            kib: Arc::new(Semaphore::new(total_kib as usize)),
            total_kib,
        }
    }

    pub(super) fn total_bytes(&self) -> u64 {
        self.total_kib * 1024
    }
}

pub(super) async fn read_whole(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    request: Request,
    next: Next,
) -> Response {
    let max = state.config.max_body;
    let headers = request.headers();
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let chunked = headers.contains_key(header::TRANSFER_ENCODING);
    if declared.is_some_and(|n| n > max) {
        return *super::body::too_large(max);
    }
    if !chunked && declared.unwrap_or(0) == 0 {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let budget = &state.body_budget;
    let read = tokio::time::timeout(BODY_DEADLINE, read(body, max, declared, budget)).await;
    let (bytes, _held) = match read {
        Ok(Ok(done)) => done,
        Ok(Err(refusal)) => return *refusal,
        Err(_) => {
            return timed_out(format!(
                "the request body did not arrive within {} s; send it whole, without pauses",
                BODY_DEADLINE.as_secs()
            ));
        }
    };
    // `_held` keeps the body's share of the budget until the route has answered.
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The body's bytes and the budget they hold.
async fn read(
    mut body: Body,
    max: u64,
    declared: Option<u64>,
    budget: &Budget,
) -> Result<(axum::body::Bytes, Option<OwnedSemaphorePermit>), guard::Refusal> {
    let mut held: Option<OwnedSemaphorePermit> = None;
    let mut held_kib: u64 = 0;
    let take = |want_kib: u64| {
        let kib = budget.kib.clone();
        async move {
            let n = u32::try_from(want_kib).unwrap_or(u32::MAX);
            tokio::time::timeout(BUDGET_WAIT, kib.acquire_many_owned(n))
                .await
                .ok()
                .and_then(Result::ok)
        }
    };
    let mut data: Vec<u8> = Vec::with_capacity(
        declared
            .unwrap_or(0)
            .min(max)
            .min(8 << 20)
            .try_into()
            .unwrap_or(0),
    );
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            Box::new(guard::refuse(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidInput,
                format!("could not read the request body: {e}"),
            ))
        })?;
        let Ok(chunk) = frame.into_data() else {
            continue;
        };
        let total = data.len() as u64 + chunk.len() as u64;
        if total > max {
            return Err(super::body::too_large(max));
        }
        let need_kib = total.div_ceil(1024);
        if need_kib > held_kib {
            let more = take(need_kib - held_kib).await.ok_or_else(busy)?;
            held_kib = need_kib;
            match held.as_mut() {
                Some(h) => h.merge(more),
                None => held = Some(more),
            }
        }
        data.extend_from_slice(&chunk);
    }
    Ok((data.into(), held))
}

fn busy() -> guard::Refusal {
    let mut response = guard::refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::RateLimited,
        format!(
            "the server holds as many request bodies as its memory budget allows and none ended within {} s; try again shortly",
            BUDGET_WAIT.as_secs()
        ),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    Box::new(response)
}

fn timed_out(message: String) -> Response {
    let mut response = guard::refuse(StatusCode::REQUEST_TIMEOUT, ErrorCode::Timeout, message);
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
