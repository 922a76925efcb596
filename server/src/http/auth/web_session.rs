//! `codewhale web` sign-in: one one-time bootstrap capability per process,
//! exchanged from loopback for the process's single browser session (a
//! tower-sessions session, `sessions.rs`, valid until 12 h after start).

use super::secret::{constant_time_eq, random_secret};
use crate::clock::Clock;
use std::{
    net::IpAddr,
    sync::Mutex,
    time::{Duration, Instant},
};

const CAPABILITY_PREFIX: &str = "cwwb_";
/// 32 bytes = 256 bits from the OS RNG.
const SECRET_BYTES: usize = 32;
pub const CAPABILITY_TTL: Duration = Duration::from_secs(10 * 60);
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 60 * 60);

pub struct WebAuth {
    origin: String,
    clock: Clock,
    started: Instant,
    capability: Mutex<Option<String>>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum BootstrapRefusal {
    NotLoopback,
    Malformed,
    /// Unknown, already used, or expired: deliberately indistinguishable.
    Unavailable,
}

impl WebAuth {
    /// A new sign-in for a server at `{scheme}://127.0.0.1:{port}`; returns
    /// the capability to put in the launch URL.
    pub fn new(scheme: &str, port: u16, clock: Clock) -> (Self, String) {
        let capability = random_secret(CAPABILITY_PREFIX, SECRET_BYTES);
        let auth = Self {
            origin: format!("{scheme}://127.0.0.1:{port}"),
            started: clock.now(),
            clock,
            capability: Mutex::new(Some(capability.clone())),
        };
        (auth, capability)
    }

    /// The only origin allowed on cookie-authenticated requests.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    pub fn launch_url(&self, capability: &str) -> String {
        format!("{}/__codewhale/bootstrap/{capability}", self.origin)
    }

    /// Consumes the capability; the caller then starts the session.
    pub fn exchange(&self, peer: IpAddr, presented: &str) -> Result<(), BootstrapRefusal> {
        if !peer.to_canonical().is_loopback() {
            return Err(BootstrapRefusal::NotLoopback);
        }
        if !is_well_formed(presented, CAPABILITY_PREFIX) {
            return Err(BootstrapRefusal::Malformed);
        }
        let mut slot = self
            .capability
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let expired = self.age() >= CAPABILITY_TTL;
        let matches = slot
            .as_deref()
            .is_some_and(|expected| constant_time_eq(expected, presented));
        if expired {
            // Nothing can succeed any more; drop the secret from memory.
            *slot = None;
        }
        if !matches || expired {
            return Err(BootstrapRefusal::Unavailable);
        }
        *slot = None;
        Ok(())
    }

    /// Whether the workbench session may still be used: until 12 h after start.
    pub fn session_is_live(&self) -> bool {
        self.age() < SESSION_TTL
    }

    /// How long the session has left, for its cookie.
    pub fn session_remaining(&self) -> Duration {
        SESSION_TTL.saturating_sub(self.age())
    }

    /// Time since this process started serving the workbench.
    fn age(&self) -> Duration {
        self.clock.now().saturating_duration_since(self.started)
    }
}

fn is_well_formed(value: &str, prefix: &str) -> bool {
    value.strip_prefix(prefix).is_some_and(|hex| {
        hex.len() == SECRET_BYTES * 2 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    #[test]
    fn capability_is_single_use() {
        let (auth, cap) = WebAuth::new("http", 7878, Clock::default());
        auth.exchange(LOOPBACK, &cap).unwrap();
        assert!(auth.session_is_live());
        assert_eq!(
            auth.exchange(LOOPBACK, &cap),
            Err(BootstrapRefusal::Unavailable)
        );
    }

    #[test]
    fn ipv4_mapped_loopback_is_loopback() {
        let (auth, cap) = WebAuth::new("http", 7878, Clock::default());
        let mapped = IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped());
        assert!(auth.exchange(mapped, &cap).is_ok());
        let (auth, cap) = WebAuth::new("http", 7878, Clock::default());
        assert!(auth.exchange(IpAddr::V6(Ipv6Addr::LOCALHOST), &cap).is_ok());
    }

    #[test]
    fn session_ends_twelve_hours_after_start() {
        let clock = Clock::default();
        let (auth, cap) = WebAuth::new("http", 7878, clock.clone());
        auth.exchange(LOOPBACK, &cap).unwrap();
        clock.advance(SESSION_TTL - Duration::from_secs(1));
        assert!(auth.session_is_live());
        clock.advance(Duration::from_secs(1));
        assert!(!auth.session_is_live());
    }

    #[test]
    fn well_formedness() {
        let good = format!("cwwb_{}", "a".repeat(64));
        assert!(is_well_formed(&good, "cwwb_"));
        assert!(!is_well_formed(&good.to_uppercase(), "cwwb_"));
        assert!(!is_well_formed("cwwb_abc", "cwwb_"));
        assert!(!is_well_formed(
            &format!("cwws_{}", "a".repeat(64)),
            "cwwb_"
        ));
        assert!(!is_well_formed(
            &format!("cwwb_{}", "g".repeat(64)),
            "cwwb_"
        ));
    }
}
