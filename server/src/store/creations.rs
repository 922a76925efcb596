//! Group commit for thread creation. Writes are serialized (one writer
//! numbers every event), and a creation alone is five round trips to sqlx's
//! SQLite thread under the writer lock: `BEGIN IMMEDIATE`, the seq claim,
//! the thread, its first event, `COMMIT`. Creations that arrive while the
//! writer is busy wait here and are written together, in one transaction of
//! five round trips however many there are.
//!
//! The batch runs in a task of its own, so a caller that goes away (an HTTP
//! client that disconnects) cannot roll back the creations of the others.

use super::{NewEvent, Store, StoreError, ThreadRow, WriteTx};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// Most creations written in one transaction (each appends one event, far
/// under `seq::MAX_APPENDS_PER_WRITE`).
const MAX_BATCH: usize = 256;

type Done = oneshot::Sender<Result<(), StoreError>>;

/// Creations waiting for the writer. Invariant: while it is not empty,
/// exactly one flush task that has not taken from it yet exists.
#[derive(Default)]
pub(super) struct Waiting(Mutex<Vec<(ThreadRow, NewEvent, Done)>>);

impl Waiting {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(ThreadRow, NewEvent, Done)>> {
        // A panic while holding it cannot leave the list half-changed.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Store {
    /// Inserts `row` and appends `started` (its first event) in one
    /// transaction, shared with the creations waiting beside it: either
    /// both are committed or neither, and it fails only for its own reason
    /// (a batch that fails is written again one creation at a time).
    pub async fn create_thread(
        self: &Arc<Self>,
        row: ThreadRow,
        started: NewEvent,
    ) -> Result<(), StoreError> {
        let (done, result) = oneshot::channel();
        let first = {
            let mut waiting = self.creations.lock();
            waiting.push((row, started, done));
            waiting.len() == 1
        };
        if first {
            tokio::spawn(flush(self.clone()));
        }
        match result.await {
            Ok(outcome) => outcome,
            // The flush task was dropped: the runtime is shutting down.
            Err(_) => Err(StoreError::Abandoned),
        }
    }
}

/// Writes one batch of what is waiting. Each flush task takes once; the
/// first creation to wait after that take spawns the next one.
async fn flush(store: Arc<Store>) {
    let untaken = Untaken(Some(&store));
    let began = store.begin_write().await;
    // Taken under the writer lock (or after failing to get it): what
    // arrived while the previous transaction held it is all in this one.
    let batch = take(&store);
    untaken.disarm();
    let mut rows = Vec::with_capacity(batch.len());
    let mut events = Vec::with_capacity(batch.len());
    let mut dones = Vec::with_capacity(batch.len());
    for (row, event, done) in batch {
        rows.push(row);
        events.push(event);
        dones.push(done);
    }
    if rows.len() > 1 {
        match write(began, &rows, events.clone()).await {
            Ok(()) => {
                for done in dones {
                    // A caller that went away no longer listens; its thread
                    // is written all the same.
                    let _ = done.send(Ok(()));
                }
                return;
            }
            Err(error) => tracing::warn!(
                %error,
                creations = rows.len(),
                "a batch of thread creations failed; writing them one at a time"
            ),
        }
        // One creation's failure must not fail the others: each on its own,
        // each told its own outcome.
        for ((row, event), done) in rows.into_iter().zip(events).zip(dones) {
            let outcome = write(store.begin_write().await, &[row], vec![event]).await;
            let _ = done.send(outcome);
        }
    } else if let Some(done) = dones.pop() {
        let _ = done.send(write(began, &rows, events).await);
    }
}

/// Keeps the invariant when a flush task ends before it took its batch
/// (dropped at shutdown, or a panic): the waiting creations are dropped,
/// so their callers hear `Abandoned` and the next creation finds the list
/// empty and spawns a flush of its own, instead of every caller waiting
/// for a task that is gone.
struct Untaken<'a>(Option<&'a Store>);

impl Untaken<'_> {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for Untaken<'_> {
    fn drop(&mut self) {
        if let Some(store) = self.0 {
            store.creations.lock().clear();
        }
    }
}

/// The rows and their first events, in the transaction begun for them.
async fn write(
    began: Result<WriteTx<'_>, StoreError>,
    rows: &[ThreadRow],
    events: Vec<NewEvent>,
) -> Result<(), StoreError> {
    let mut tx = began?;
    super::threads::insert_all(tx.conn(), rows).await?;
    for row in rows {
        tx.created_thread(&row.id);
    }
    tx.append_all(events).await?;
    tx.commit().await
}

/// Takes up to `MAX_BATCH`, oldest first; when more wait, spawns the flush
/// that will take them (nobody else will: they did not find the list empty).
fn take(store: &Arc<Store>) -> Vec<(ThreadRow, NewEvent, Done)> {
    let mut waiting = store.creations.lock();
    let mut batch = std::mem::take(&mut *waiting);
    if batch.len() > MAX_BATCH {
        *waiting = batch.split_off(MAX_BATCH);
        tokio::spawn(flush(store.clone()));
    }
    batch
}

#[cfg(test)]
mod tests;
