//! Rate limiting per client address: one token bucket each, in a map of bounded size.

use super::config::Rate;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Most client addresses tracked; past it, full buckets are forgotten first (they carry no
/// debt), so a flood of new addresses cannot grow the map without bound.
const MAX_CLIENTS: usize = 10_000;

pub(super) struct Limiter {
    rate: Rate,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

#[derive(Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Limiter {
    pub(super) fn new(rate: Rate) -> Limiter {
        Limiter {
            rate,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `client`; `Err(wait)` says how long until one is there.
    pub(super) fn take(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(&client) {
            self.forget_full(&mut buckets, now);
        }
        let rate = self.rate;
        let bucket = buckets.entry(client).or_insert(Bucket {
            tokens: rate.burst,
            at: now,
        });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate.per_second).min(rate.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let missing = 1.0 - bucket.tokens;
            Err(Duration::from_secs_f64(missing / rate.per_second))
        }
    }

    fn forget_full(&self, buckets: &mut HashMap<IpAddr, Bucket>, now: Instant) {
        let rate = self.rate;
        buckets.retain(|_, b| {
            let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
            b.tokens + elapsed * rate.per_second < rate.burst
        });
        if buckets.len() >= MAX_CLIENTS {
            // Every tracked client is in debt: the oldest entry goes.
            if let Some(oldest) = buckets.iter().min_by_key(|(_, b)| b.at).map(|(k, _)| *k) {
                buckets.remove(&oldest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_empties_then_refills() {
        let limiter = Limiter::new(Rate {
            per_second: 2.0,
            burst: 3.0,
        });
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.take(ip, t0).is_ok());
        }
        let wait = limiter.take(ip, t0).unwrap_err();
        assert_eq!(wait, Duration::from_millis(500));
        // Another client has its own bucket.
        assert!(limiter.take(other, t0).is_ok());
        // Half a second later one token is back, and only one.
        let t1 = t0 + Duration::from_millis(500);
        assert!(limiter.take(ip, t1).is_ok());
        assert!(limiter.take(ip, t1).is_err());
    }

    #[test]
    fn the_map_stays_bounded() {
        let limiter = Limiter::new(Rate {
            per_second: 1.0,
            burst: 1.0,
        });
        let t0 = Instant::now();
        for i in 0..(MAX_CLIENTS as u32 + 500) {
            let ip = IpAddr::from(std::net::Ipv4Addr::from(i));
            let _ = limiter.take(ip, t0);
        }
        assert!(limiter.buckets.lock().unwrap().len() <= MAX_CLIENTS);
    }
}
