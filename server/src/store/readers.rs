//! Connections for the hottest reads (a thread's detail, listings), kept
//! outside the pool. A pooled connection goes back from a spawned task that
//! first pings it: one more round trip to its SQLite thread, and two
//! context switches, on every request, which on a detail request were as
//! much as the read itself. A reader is a connection behind a mutex: taking
//! and giving it back cost nothing.
//!
//! Readers run single statements (one statement reads one WAL snapshot,
//! which is what these reads are for), save the rare read transaction of
//! `thread_detail`'s fallback: one dropped halfway is rolled back before
//! the reader's next statement (sqlx queues the rollback on drop). They
//! are opened on first use, so start-up opens none, and are `query_only`.

use super::StoreError;
use sqlx::{sqlite::SqliteConnectOptions, ConnectOptions, SqliteConnection};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

/// Enough for two cores to keep busy while a long read (a thread of
/// thousands of items) holds one.
const READERS: usize = 4;

pub(super) struct Readers {
    options: SqliteConnectOptions,
    slots: Vec<Mutex<Option<SqliteConnection>>>,
    next: AtomicUsize,
    closed: AtomicBool,
}

pub type Reader<'a> = MappedMutexGuard<'a, SqliteConnection>;

impl Readers {
    pub(super) fn new(options: SqliteConnectOptions) -> Self {
        Self {
            // Reads only, by construction: a write here would skip the
            // writer lock and the seq numbering.
            options: options.pragma("query_only", "1"),
            slots: (0..READERS).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
        }
    }

    /// A free reader, else the next one to come free in turn.
    pub(super) async fn get(&self) -> Result<Reader<'_>, StoreError> {
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let free = (0..READERS).find_map(|i| self.slots[(start + i) % READERS].try_lock().ok());
        let mut slot: MutexGuard<'_, _> = match free {
            Some(slot) => slot,
            None => self.slots[start % READERS].lock().await,
        };
        // Checked with the slot held: `close` empties every slot after
        // setting it, so no reader is opened again once the store closed.
        if self.closed.load(Ordering::Acquire) {
            return Err(sqlx::Error::PoolClosed.into());
        }
        if slot.is_none() {
            *slot = Some(self.options.connect().await?);
        }
        Ok(MutexGuard::map(slot, |slot| {
            slot.as_mut().expect("opened just above")
        }))
    }

    /// Closes the readers that were opened.
    pub(super) async fn close(&self) {
        self.closed.store(true, Ordering::Release);
        for slot in &self.slots {
            if let Some(conn) = slot.lock().await.take() {
                let _ = sqlx::Connection::close(conn).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::store::Store;
    use std::{sync::Arc, time::Duration};

    async fn count(store: &Store) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM threads")
            .fetch_one(&mut *store.reader().await.unwrap())
            .await
            .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn more_readers_than_connections_all_read_and_see_commits() {
        let home = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(home.path()).await.unwrap());
        assert_eq!(count(&store).await, 0);
        sqlx::query(
            "INSERT INTO threads (id, created_at, updated_at) VALUES ('thr_1', 'now', 'now')",
        )
        .execute(store.pool())
        .await
        .unwrap();
        let reads: Vec<_> = (0..64)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move { count(&store).await })
            })
            .collect();
        for read in reads {
            assert_eq!(read.await.unwrap(), 1);
        }
        store.close().await;
    }

    #[tokio::test]
    async fn a_read_given_up_halfway_leaves_its_reader_usable() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(home.path()).await.unwrap();
        // A statement slow enough to be abandoned while it runs.
        let slow = async {
            let mut reader = store.reader().await.unwrap();
            sqlx::query_scalar::<_, i64>(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000)
                 SELECT COUNT(*) FROM n",
            )
            .fetch_one(&mut *reader)
            .await
        };
        assert!(tokio::time::timeout(Duration::from_millis(5), slow)
            .await
            .is_err());
        // Every reader, the abandoned one among them, answers the next read.
        for _ in 0..super::READERS * 2 {
            assert_eq!(count(&store).await, 0);
        }
    }

    #[tokio::test]
    async fn readers_refuse_writes_and_are_gone_once_the_store_closed() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(home.path()).await.unwrap();
        let write = sqlx::query(
            "INSERT INTO threads (id, created_at, updated_at) VALUES ('thr_1', 'now', 'now')",
        )
        .execute(&mut *store.reader().await.unwrap())
        .await;
        assert!(write.is_err(), "a reader wrote: {write:?}");
        assert_eq!(count(&store).await, 0);
        store.close().await;
        assert!(matches!(
            store.reader().await.err(),
            Some(crate::store::StoreError::Sqlx(sqlx::Error::PoolClosed))
        ));
    }
}
