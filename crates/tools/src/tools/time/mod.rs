//! Time: timestamps and time zones, calendar arithmetic, durations and ETAs, cron schedules.

pub(super) mod cron;
pub(super) mod dates;
pub(super) mod durations;
pub(super) mod timestamps;
