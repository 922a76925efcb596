//! Failed pairing attempts per peer address: a LAN neighbour guessing
//! runtime tokens through `/mobile`'s form (or pairing links) is slowed to
//! a handful of tries per window.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::Mutex,
    time::{Duration, Instant},
};

pub const MAX_FAILURES: u32 = 10;
pub const WINDOW: Duration = Duration::from_secs(10 * 60);
/// Peers remembered at once; the stalest are forgotten beyond this.
const MAX_PEERS: usize = 4096;

#[derive(Default)]
pub struct Attempts {
    failures: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

impl Attempts {
    /// False while `peer` has failed too often in the current window.
    pub fn allowed(&self, peer: IpAddr) -> bool {
        let failures = self.lock();
        failures
            .get(&peer.to_canonical())
            .is_none_or(|(count, since)| *count < MAX_FAILURES || since.elapsed() >= WINDOW)
    }

    pub fn failed(&self, peer: IpAddr) {
        let mut failures = self.lock();
        if failures.len() >= MAX_PEERS {
            failures.retain(|_, (_, since)| since.elapsed() < WINDOW);
        }
        let entry = failures
            .entry(peer.to_canonical())
            .or_insert((0, Instant::now()));
        if entry.1.elapsed() >= WINDOW {
            *entry = (0, Instant::now());
        }
        entry.0 += 1;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, (u32, Instant)>> {
        self.failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_is_stopped_after_too_many_failures() {
        let attempts = Attempts::default();
        let peer: IpAddr = "192.0.2.7".parse().unwrap();
        for _ in 0..MAX_FAILURES {
            assert!(attempts.allowed(peer));
            attempts.failed(peer);
        }
        assert!(!attempts.allowed(peer));
        assert!(attempts.allowed("192.0.2.8".parse().unwrap()));
    }
}
