//! Timestamps: RFC 3339, UTC, millisecond precision ("2026-02-11T20:18:49.123Z").

pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

/// A monotonic time source that tests can move forward instead of waiting.
/// Production code never advances it, so it is `Instant::now()`.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    offset: Arc<Mutex<Duration>>,
}

impl Clock {
    pub fn now(&self) -> Instant {
        Instant::now() + *self.offset.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn advance(&self, by: Duration) {
        *self.offset.lock().unwrap_or_else(|p| p.into_inner()) += by;
    }
}

impl Clock {
    /// Wall time, moved by `advance` like `now`: what schedules read.
    pub fn wall(&self) -> chrono::DateTime<chrono::Utc> {
        let offset = *self.offset.lock().unwrap_or_else(|p| p.into_inner());
        chrono::Utc::now() + chrono::TimeDelta::from_std(offset).unwrap_or(chrono::TimeDelta::MAX)
    }
}

/// A wall time as the store keeps it (see `now`).
pub fn format(time: chrono::DateTime<chrono::Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
