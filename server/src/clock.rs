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
