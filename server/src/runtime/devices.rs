//! Paired devices and the one-time pairing capabilities that create them.
//! Every rule about them lives here: how long a capability lives, that it
//! works once, what a device may be called, and that revoking one ends its
//! open event streams at once. The session cookie a device holds is the
//! HTTP edge's (tower-sessions); this module only knows device ids.

use super::{error::RuntimeError, ids};
use crate::{
    clock::{self, Clock},
    random::random_secret,
    store::{
        devices::{self, DeviceRow},
        Store,
    },
};
use protocol::DeviceRecord;
use sha2::{Digest, Sha256};
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};
use tokio::sync::broadcast;

pub const DEVICE: &str = "dev_";
const CAPABILITY_PREFIX: &str = "cwpair_";
/// 24 bytes = 192 bits from the OS RNG.
const CAPABILITY_BYTES: usize = 24;
pub const DEFAULT_PAIRING_TTL: Duration = Duration::from_secs(5 * 60);
pub const MAX_PAIRING_TTL: Duration = Duration::from_secs(60 * 60);
/// Unredeemed capabilities kept at once; minting more drops the oldest.
const MAX_PENDING: usize = 32;
/// The longest device name or pairing label, counted as given.
pub const MAX_NAME_CHARS: usize = 80;
/// How often an open device response asks the store whether its device is
/// still paired (another process may have revoked it).
const RECHECK: Duration = Duration::from_millis(800);
/// A device's last-seen time and address are written at most this often.
pub const SEEN_INTERVAL: Duration = Duration::from_secs(60);

pub struct Devices {
    store: Arc<Store>,
    clock: Clock,
    /// SHA-256 of each unredeemed capability → what it becomes.
    pending: Mutex<HashMap<[u8; 32], Pending>>,
    revoked: broadcast::Sender<String>,
    /// When each device was last written as seen (this process).
    seen: Mutex<HashMap<String, Instant>>,
}

struct Pending {
    expires: Instant,
    label: Option<String>,
}

/// A freshly minted capability: the secret for the pairing URL.
pub struct Minted {
    pub capability: String,
    pub expires_at: String,
    pub label: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum PairingRefusal {
    Malformed,
    /// Unknown, already used, or expired: deliberately indistinguishable.
    Unavailable,
}

/// Who manages devices: the computer codewhale runs on (its workbench, a
/// runtime-token holder), or a paired device, which sees and manages only
/// itself (a lost phone must not revoke or rename the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manager<'a> {
    Computer,
    Device(&'a str),
}

impl<'a> Manager<'a> {
    fn may_manage(self, id: &str) -> Result<(), RuntimeError> {
        match self {
            Manager::Device(own) if own != id => Err(RuntimeError::Forbidden(
                "a paired device manages only itself; use the computer running codewhale".into(),
            )),
            _ => Ok(()),
        }
    }

    fn current(self) -> Option<&'a str> {
        match self {
            Manager::Device(id) => Some(id),
            Manager::Computer => None,
        }
    }
}

/// What a device presented on a request, after checking it still exists.
pub enum Seen {
    Revoked,
    /// `slide` is true when its session expiry should move forward now.
    Known {
        slide: bool,
    },
}

impl Devices {
    pub fn new(store: Arc<Store>, clock: Clock) -> Self {
        let (revoked, _) = broadcast::channel(64);
        Self {
            store,
            clock,
            pending: Mutex::default(),
            revoked,
            seen: Mutex::default(),
        }
    }

    /// The clock pairing links and last-seen intervals are measured with
    /// (tests move it forward).
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Mints a single-use capability that expires after `ttl` (default 5
    /// minutes, at most an hour).
    pub fn mint(
        &self,
        ttl: Option<Duration>,
        label: Option<String>,
    ) -> Result<Minted, RuntimeError> {
        let ttl = ttl.unwrap_or(DEFAULT_PAIRING_TTL);
        if ttl.is_zero() || ttl > MAX_PAIRING_TTL {
            return Err(RuntimeError::invalid(
                "a pairing link lives between 1 second and 1 hour",
            ));
        }
        let label = label.map(|l| valid_name(&l)).transpose()?;
        let capability = random_secret(CAPABILITY_PREFIX, CAPABILITY_BYTES);
        let now = self.clock.now();
        let mut pending = lock(&self.pending);
        pending.retain(|_, p| p.expires > now);
        if pending.len() >= MAX_PENDING {
            if let Some(oldest) = pending
                .iter()
                .min_by_key(|(_, p)| p.expires)
                .map(|(k, _)| *k)
            {
                pending.remove(&oldest);
            }
        }
        pending.insert(
            digest(&capability),
            Pending {
                expires: now + ttl,
                label: label.clone(),
            },
        );
        let expires_at = chrono::Utc::now() + ttl;
        Ok(Minted {
            capability,
            expires_at: expires_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            label,
        })
    }

    /// Consumes a capability (whatever happens next, it never works again)
    /// and returns the label it was minted with.
    pub fn redeem(&self, presented: &str) -> Result<Option<String>, PairingRefusal> {
        let well_formed = presented
            .strip_prefix(CAPABILITY_PREFIX)
            .is_some_and(|hex| {
                hex.len() == CAPABILITY_BYTES * 2
                    && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            });
        if !well_formed {
            return Err(PairingRefusal::Malformed);
        }
        // Looked up by hash: no secret is compared byte by byte.
        let pending = lock(&self.pending).remove(&digest(presented));
        match pending {
            Some(p) if p.expires > self.clock.now() => Ok(p.label),
            _ => Err(PairingRefusal::Unavailable),
        }
    }

    /// Records a newly paired device, named by its label or its User-Agent.
    pub async fn create(
        &self,
        label: Option<String>,
        user_agent: Option<&str>,
        address: &str,
    ) -> Result<DeviceRecord, RuntimeError> {
        let now = clock::now();
        let user_agent = user_agent.map(|ua| ua.chars().take(512).collect::<String>());
        let row = DeviceRow {
            id: ids::new(DEVICE),
            name: label.unwrap_or_else(|| name_from_user_agent(user_agent.as_deref())),
            user_agent,
            created_at: now.clone(),
            last_seen_at: now,
            last_address: Some(address.to_string()),
        };
        devices::insert(self.store.pool(), &row).await?;
        lock(&self.seen).insert(row.id.clone(), self.clock.now());
        Ok(record(row, None))
    }

    /// Checks that a device presenting its session still exists, and
    /// records when and from where it was seen (at most once a minute, or
    /// at once when its address changed).
    pub async fn seen(&self, id: &str, address: &str) -> Result<Seen, RuntimeError> {
        let Some(row) = devices::get(self.store.pool(), id).await? else {
            lock(&self.seen).remove(id);
            return Ok(Seen::Revoked);
        };
        let now = self.clock.now();
        let due = lock(&self.seen)
            .get(id)
            .is_none_or(|at| now.saturating_duration_since(*at) >= SEEN_INTERVAL);
        let moved = row.last_address.as_deref() != Some(address);
        if due || moved {
            devices::touch(self.store.pool(), id, &clock::now(), address).await?;
            lock(&self.seen).insert(id.to_string(), now);
        }
        Ok(Seen::Known { slide: due })
    }

    /// Every device for the computer; only itself for a device.
    pub async fn list(&self, by: Manager<'_>) -> Result<Vec<DeviceRecord>, RuntimeError> {
        let rows = devices::list(self.store.pool()).await?;
        Ok(rows
            .into_iter()
            .filter(|row| by.may_manage(&row.id).is_ok())
            .map(|row| record(row, by.current()))
            .collect())
    }

    pub async fn rename(
        &self,
        by: Manager<'_>,
        id: &str,
        name: &str,
    ) -> Result<DeviceRecord, RuntimeError> {
        let id = ids::parse(DEVICE, id, "device")?;
        by.may_manage(id)?;
        let name = valid_name(name)?;
        if !devices::rename(self.store.pool(), id, &name).await? {
            return Err(not_found());
        }
        let row = devices::get(self.store.pool(), id)
            .await?
            .ok_or_else(not_found)?;
        Ok(record(row, by.current()))
    }

    /// Forgets a device: its next request is unauthenticated and its open
    /// event streams end (`revoked` wakes them).
    pub async fn revoke(&self, by: Manager<'_>, id: &str) -> Result<(), RuntimeError> {
        let id = ids::parse(DEVICE, id, "device")?;
        by.may_manage(id)?;
        if !devices::delete(self.store.pool(), id).await? {
            return Err(not_found());
        }
        lock(&self.seen).remove(id);
        // No receivers is fine: nothing of that device is streaming.
        let _ = self.revoked.send(id.to_string());
        Ok(())
    }

    /// Resolves once device `id` is revoked (immediately if it already is):
    /// at once when this process revokes it, within `RECHECK` when another
    /// process sharing the store does.
    pub fn revoked(&self, id: String) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut revocations = self.revoked.subscribe();
        let store = self.store.clone();
        let gone = move |store: Arc<Store>, id: String| async move {
            matches!(devices::get(store.pool(), &id).await, Ok(None))
        };
        async move {
            let mut recheck = tokio::time::interval(RECHECK);
            loop {
                tokio::select! {
                    received = revocations.recv() => match received {
                        Ok(revoked) if revoked == id => return,
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                        // The runtime is gone; so is the server.
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                    // The first tick is immediate: a revocation between the
                    // request's check and this subscription is seen too.
                    _ = recheck.tick() => {
                        if gone(store.clone(), id.clone()).await {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Drops device sessions past their expiry.
    pub async fn delete_expired_sessions(&self) -> Result<u64, RuntimeError> {
        Ok(devices::delete_expired_sessions(self.store.pool()).await?)
    }
}

fn record(row: DeviceRow, current: Option<&str>) -> DeviceRecord {
    DeviceRecord {
        current: current == Some(row.id.as_str()),
        id: row.id,
        name: row.name,
        user_agent: row.user_agent,
        created_at: row.created_at,
        last_seen_at: row.last_seen_at,
        last_address: row.last_address,
    }
}

fn not_found() -> RuntimeError {
    RuntimeError::NotFound("device not found".into())
}

fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Characters a device name may not hold: control characters, and the
/// invisible ones that reorder or hide text (a name must read as what it
/// is).
pub fn forbidden_in_name(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}')
}

/// A name as sent is checked (length, characters), then stored trimmed;
/// one that is only blanks is refused. The API document states the same.
fn valid_name(name: &str) -> Result<String, RuntimeError> {
    let trimmed = name.trim();
    if trimmed.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(RuntimeError::invalid(format!(
            "a device name has 1 to {MAX_NAME_CHARS} characters"
        )));
    }
    if name.chars().any(forbidden_in_name) {
        return Err(RuntimeError::invalid(
            "a device name cannot contain control or invisible formatting characters",
        ));
    }
    Ok(trimmed.to_string())
}

/// "Safari on iPhone", "Chrome on Android", … from a User-Agent.
pub fn name_from_user_agent(user_agent: Option<&str>) -> String {
    let ua = user_agent.unwrap_or_default();
    let platform = [
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Android", "Android"),
        ("Mac OS X", "Mac"),
        ("Windows", "Windows"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find(|(needle, _)| ua.contains(needle))
    .map(|(_, name)| name);
    // Order matters: Chrome's UA names Safari, Edge's names Chrome.
    let browser = [
        ("EdgA/", "Edge"),
        ("Edg/", "Edge"),
        ("FxiOS/", "Firefox"),
        ("Firefox/", "Firefox"),
        ("CriOS/", "Chrome"),
        ("SamsungBrowser/", "Samsung Internet"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    .into_iter()
    .find(|(needle, _)| ua.contains(needle))
    .map(|(_, name)| name);
    match (browser, platform) {
        (Some(b), Some(p)) => format!("{b} on {p}"),
        (None, Some(p)) => p.to_string(),
        (Some(b), None) => b.to_string(),
        (None, None) => "Unknown device".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_user_agent() {
        let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
        assert_eq!(name_from_user_agent(Some(iphone)), "Safari on iPhone");
        let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
        assert_eq!(name_from_user_agent(Some(android)), "Chrome on Android");
        assert_eq!(name_from_user_agent(None), "Unknown device");
    }

    #[test]
    fn names_are_bounded_and_printable() {
        assert_eq!(valid_name("  Kitchen iPad ").unwrap(), "Kitchen iPad");
        assert!(valid_name("").is_err());
        assert!(valid_name(&"x".repeat(81)).is_err());
        assert!(valid_name("a\u{1b}[31m").is_err());
        assert!(valid_name("Owner\u{202E}enohp").is_err());
    }
}
