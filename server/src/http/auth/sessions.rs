//! The one session mechanism: tower-sessions, one cookie
//! (`codewhale_web_session`: HttpOnly, SameSite=Strict, Path=/, Secure under
//! TLS). A session is either the workbench's (the loopback sign-in of
//! `codewhale web`, kept in memory: it dies with the process) or a paired
//! device's (kept in SQLite beside the devices, so a phone stays paired
//! across restarts). The device store is keyed by a SHA-256 of the session
//! id: the database never holds a secret a phone could be impersonated with.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::SqlitePool;
use tower_sessions::{
    cookie::SameSite,
    session::{Id, Record},
    session_store, MemoryStore, SessionManagerLayer, SessionStore,
};
use tower_sessions_sqlx_store::SqliteStore;

pub const SESSION_COOKIE: &str = "codewhale_web_session";
/// The key under which a session says whose it is.
pub const OWNER_KEY: &str = "owner";

/// Whose session it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Owner {
    /// The `codewhale web` browser on this machine.
    Workbench,
    /// A paired device.
    Device { id: String },
}

/// Workbench sessions in memory, device sessions in SQLite under a hash.
#[derive(Clone, Debug)]
pub struct SessionStores {
    workbench: MemoryStore,
    devices: SqliteStore,
}

impl SessionStores {
    pub fn new(pool: SqlitePool) -> Self {
        let devices = SqliteStore::new(pool)
            .with_table_name("device_sessions")
            .unwrap_or_else(|never| unreachable!("a valid table name: {never}"));
        Self {
            workbench: MemoryStore::default(),
            devices,
        }
    }

    /// The session layer over these stores; `secure` under TLS.
    pub fn layer(self, secure: bool) -> SessionManagerLayer<SessionStores> {
        SessionManagerLayer::new(self)
            .with_name(SESSION_COOKIE)
            .with_http_only(true)
            .with_same_site(SameSite::Strict)
            .with_secure(secure)
            .with_path("/")
    }
}

fn is_device(record: &Record) -> bool {
    record
        .data
        .get(OWNER_KEY)
        .and_then(|owner| owner.get("kind"))
        .is_some_and(|kind| kind == "device")
}

/// What the device store is keyed by instead of the session id itself.
fn hashed(id: &Id) -> Id {
    let digest = Sha256::digest(id.to_string().as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    Id(i128::from_le_bytes(bytes))
}

fn with_id(record: &Record, id: Id) -> Record {
    Record {
        id,
        data: record.data.clone(),
        expiry_date: record.expiry_date,
    }
}

#[async_trait]
impl SessionStore for SessionStores {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        if !is_device(record) {
            return self.workbench.create(record).await;
        }
        loop {
            let wanted = hashed(&record.id);
            let mut stored = with_id(record, wanted);
            self.devices.create(&mut stored).await?;
            if stored.id == wanted {
                return Ok(());
            }
            // The hash collided (and the store saved it under an id nobody
            // holds, which simply expires): draw another session id.
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        if is_device(record) {
            self.devices
                .save(&with_id(record, hashed(&record.id)))
                .await
        } else {
            self.workbench.save(record).await
        }
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        if let Some(record) = self.workbench.load(id).await? {
            return Ok(Some(record));
        }
        let stored = self.devices.load(&hashed(id)).await?;
        Ok(stored.map(|record| with_id(&record, *id)))
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        self.workbench.delete(id).await?;
        self.devices.delete(&hashed(id)).await
    }
}
