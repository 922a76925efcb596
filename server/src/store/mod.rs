//! The durable runtime store: SQLite (WAL) through sqlx, versioned
//! migrations, and a single serialized writer that allocates the global event
//! sequence. Readers use the pool concurrently.

pub mod agent_runs;
pub mod automations;
mod creations;
pub mod devices;
pub mod events;
pub mod fleet;
pub mod forwarded;
pub mod process_lock;
mod readers;
mod seq;
pub mod snapshots;
pub mod tasks;
pub mod thread_detail;
pub mod threads;
pub mod turns;
pub mod usage;
mod watch;

pub use events::{NewEvent, StoredEvent};
pub use threads::{ArchiveScope, ThreadRow};

use seq::SeqAllocator;
use sqlx::{
    migrate::MigrateError,
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous},
    Sqlite, SqlitePool, Transaction,
};
use std::{path::Path, sync::Arc, time::Duration};
use tokio::sync::{broadcast, Mutex, MutexGuard};

pub const DATABASE_FILE: &str = "codewhale.db";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "the store at {path} was written by a newer codewhale (schema version {version}); \
         upgrade codewhale or point CODEWHALE_HOME elsewhere"
    )]
    NewerSchema { path: String, version: i64 },
    #[error("cannot open the store at {path}: {source}")]
    Open { path: String, source: sqlx::Error },
    #[error("cannot migrate the store at {path}: {source}")]
    Migrate { path: String, source: MigrateError },
    #[error("cannot lock {path}: {source}")]
    Lock {
        path: String,
        source: std::io::Error,
    },
    #[error("store error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The task writing it went away first: the runtime is shutting down.
    #[error("the write was abandoned before it committed")]
    Abandoned,
}

/// A committed event, announced to live subscribers. Events this process
/// commits are announced at commit and carry the event itself (when small),
/// so a subscriber that is caught up delivers it without reading the store.
/// Those of other processes sharing the store are announced when `watch`
/// sees them (and ours again) as a wake-up only: the subscriber reads them
/// from the store, from its own cursor, as it does after a gap or a lag.
#[derive(Clone, Debug)]
pub struct Committed {
    pub thread_id: Arc<str>,
    pub seq: i64,
    pub event: Option<Arc<LiveEvent>>,
}

/// An event carried in the broadcast, with the seq of its thread's event
/// before it: a subscriber whose cursor is exactly there has missed
/// nothing and may deliver it as is.
#[derive(Debug)]
pub struct LiveEvent {
    pub previous_in_thread: i64,
    pub event: StoredEvent,
    /// The wire form, made by the first subscriber that needs it and shared
    /// by the rest (`None`: it could not be made; read the store instead).
    pub rendered: std::sync::OnceLock<Option<Arc<str>>>,
}

/// Events with bigger payloads are announced as wake-ups only, so the
/// broadcast's ring of recent events stays small in memory.
const MAX_CARRIED_PAYLOAD: usize = 16 * 1024;
/// Ring size of the broadcast: a subscriber further behind than this is
/// told it lagged and catches up from the store.
const LIVE_CAPACITY: usize = 1024;

pub struct Store {
    pool: SqlitePool,
    writer: Mutex<SeqAllocator>,
    live: broadcast::Sender<Committed>,
    watcher: watch::Watcher,
    creations: creations::Waiting,
    readers: readers::Readers,
}

impl Store {
    /// Opens (creating if needed) `<home>/codewhale.db` and migrates it.
    pub async fn open(home: &Path) -> Result<Self, StoreError> {
        Ok(Self::open_holding(home).await?.0)
    }

    /// `open`, and the connection it ran on, for the caller's own start-up
    /// reads. Start-up is on the clock (`/health` < 25 ms after exec): a
    /// pooled connection goes back to the pool from a spawned task, so the
    /// next query right after finds none idle and opens another, which
    /// costs a thread and a parse of the whole schema (~2 ms each, measured
    /// as gaps in sqlx's query log). One connection for all of it.
    pub async fn open_holding(
        home: &Path,
    ) -> Result<(Self, sqlx::pool::PoolConnection<Sqlite>), StoreError> {
        let path = home.join(DATABASE_FILE);
        let shown = path.display().to_string();
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // WAL + NORMAL survives a killed process with every committed
            // transaction intact (only an OS crash could lose the last ones).
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10))
            // sqlx hands rows from its SQLite thread to the caller through a
            // bounded channel (50 by default): a batch of rows then
            // ping-pongs between the two threads every few rows. Room for a
            // whole batch lets the worker run through it.
            .row_buffer_size(1024);
        let readers = readers::Readers::new(options.clone());
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            // A connection to a local file cannot go away between uses; the
            // default ping before every acquire is one more round trip to
            // sqlx's SQLite thread for every read and every write.
            .test_before_acquire(false)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                path: shown.clone(),
                source,
            })?;
        let mut conn = pool.acquire().await?;
        migrate(&mut conn, &shown).await?;
        let (seqs, newest) = SeqAllocator::load(&mut conn).await?;
        let (live, _) = broadcast::channel(LIVE_CAPACITY);
        let watcher = watch::spawn(pool.clone(), live.downgrade(), newest);
        let store = Self {
            pool,
            writer: Mutex::new(seqs),
            live,
            watcher,
            creations: Default::default(),
            readers,
        };
        Ok((store, conn))
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// One pooled connection for a run of reads.
    pub async fn conn(&self) -> Result<sqlx::pool::PoolConnection<Sqlite>, StoreError> {
        Ok(self.pool.acquire().await?)
    }

    /// A connection for one hot read statement (`readers`).
    pub async fn reader(&self) -> Result<readers::Reader<'_>, StoreError> {
        self.readers.get().await
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Committed> {
        self.live.subscribe()
    }

    /// Starts the one write transaction that may run at a time.
    pub async fn begin_write(&self) -> Result<WriteTx<'_>, StoreError> {
        let mut seqs = self.writer.lock().await;
        // IMMEDIATE: the write lock from the start, so no other process
        // commits between numbering and commit (seq.rs says why).
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        seqs.claim(&mut tx).await?;
        Ok(WriteTx {
            tx,
            seqs,
            live: &self.live,
            appended: Vec::new(),
            newest_in_thread: std::collections::HashMap::new(),
        })
    }

    pub async fn close(&self) {
        self.watcher.stop().await;
        self.readers.close().await;
        self.pool.close().await;
    }
}

async fn migrate(conn: &mut sqlx::SqliteConnection, path: &str) -> Result<(), StoreError> {
    // `run` takes any `Acquire`, and a future holding one is not `Send` for
    // every lifetime (sqlx's own workaround, documented on `run_direct`).
    match sqlx::migrate!("./migrations").run_direct(conn).await {
        Ok(()) => Ok(()),
        Err(MigrateError::VersionMissing(version)) => Err(StoreError::NewerSchema {
            path: path.to_string(),
            version,
        }),
        Err(source) => Err(StoreError::Migrate {
            path: path.to_string(),
            source,
        }),
    }
}

/// A write transaction plus the sequence allocator. Events appended here are
/// announced to live subscribers only after `commit` succeeds; a rollback
/// (dropping it) leaves their sequence numbers unused forever.
pub struct WriteTx<'a> {
    tx: Transaction<'static, Sqlite>,
    seqs: MutexGuard<'a, SeqAllocator>,
    live: &'a broadcast::Sender<Committed>,
    appended: Vec<Committed>,
    /// Each thread's newest seq as this transaction sees it (for
    /// `LiveEvent::previous_in_thread`); looked up once per thread.
    newest_in_thread: std::collections::HashMap<Arc<str>, i64>,
}

impl WriteTx<'_> {
    pub fn conn(&mut self) -> &mut sqlx::SqliteConnection {
        &mut self.tx
    }

    /// Says `thread_id` was created in this transaction, so it has no
    /// earlier event: its first append need not look.
    pub fn created_thread(&mut self, thread_id: &str) {
        self.newest_in_thread.insert(Arc::from(thread_id), 0);
    }

    pub async fn commit(self) -> Result<(), StoreError> {
        self.tx.commit().await?;
        for committed in self.appended {
            // No receivers is fine: nobody is listening.
            let _ = self.live.send(committed);
        }
        Ok(())
    }
}
