//! The per-thread event stream: durable replay from the store in bounded
//! batches, then live delivery, with no gap and no duplicate. Live events
//! arrive through the store's broadcast carrying the event and the seq of
//! its thread's previous event: a subscriber whose cursor is exactly there
//! delivers it (rendered once for every subscriber). Anything else — a wake-up
//! without the event (another process, a big payload), an event that does
//! not follow the cursor, a lag — sends the subscriber back to the store from
//! its own cursor, so delivery stays lossless by construction.

use crate::{
    runtime::error::RuntimeError,
    store::{self, Store, StoredEvent},
};
use protocol::EVENT_SCHEMA_VERSION;
use serde::Serialize;
use serde_json::value::RawValue;
use std::sync::Arc;
use tokio::sync::{broadcast::error::RecvError, mpsc, watch};

mod replay;

/// Events per read from the store, row by row (fleet streams, and a
/// thread's when its batch cannot be packed); also how many frames wait
/// for a slow client.
pub const BATCH: i64 = 256;
pub const MAX_REPLAY_LIMIT: i64 = 4096;

/// One event ready for the wire.
#[derive(Debug)]
pub struct Frame {
    pub seq: i64,
    pub event: String,
    /// The JSON envelope (shared by every subscriber of a live event).
    pub data: Arc<str>,
}

#[derive(Serialize)]
struct Envelope<'a> {
    schema_version: u32,
    seq: i64,
    previous_seq: i64,
    event: &'a str,
    kind: &'a str,
    thread_id: &'a str,
    turn_id: Option<&'a str>,
    item_id: Option<&'a str>,
    timestamp: &'a str,
    created_at: &'a str,
    payload: &'a RawValue,
}

fn frame(event: &StoredEvent, previous_seq: i64) -> Result<Frame, store::StoreError> {
    Ok(Frame {
        seq: event.seq,
        event: event.event.clone(),
        data: envelope(event, previous_seq)?.into(),
    })
}

fn envelope(event: &StoredEvent, previous_seq: i64) -> Result<String, store::StoreError> {
    let payload: &RawValue = serde_json::from_str(&event.payload)
        .map_err(|e| store::StoreError::Corrupt(format!("event {} payload: {e}", event.seq)))?;
    let envelope = Envelope {
        schema_version: EVENT_SCHEMA_VERSION,
        seq: event.seq,
        previous_seq,
        event: &event.event,
        kind: &event.event,
        thread_id: &event.thread_id,
        turn_id: event.turn_id.as_deref(),
        item_id: event.item_id.as_deref(),
        timestamp: &event.timestamp,
        created_at: &event.timestamp,
        payload,
    };
    serde_json::to_string(&envelope).map_err(|e| store::StoreError::Corrupt(e.to_string()))
}

/// The frame of a carried live event whose thread's previous event is
/// `position`; `None` when the subscriber must read the store instead.
fn live_frame(live: &store::LiveEvent, position: i64) -> Option<Frame> {
    if live.previous_in_thread != position {
        return None;
    }
    let data = live
        .rendered
        .get_or_init(|| {
            envelope(&live.event, live.previous_in_thread)
                .ok()
                .map(Arc::from)
        })
        .clone()?;
    Some(Frame {
        seq: live.event.seq,
        event: live.event.event.clone(),
        data,
    })
}

/// How many times a subscriber fell further behind than the broadcast holds
/// and caught up from the store, since the process started (tests force
/// it; diagnostics may show it).
pub fn lag_recoveries() -> u64 {
    LAG_RECOVERIES.load(std::sync::atomic::Ordering::Relaxed)
}

static LAG_RECOVERIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Where a subscription starts.
#[derive(Clone, Copy, Debug)]
pub struct Cursor {
    pub since_seq: i64,
    /// Only the newest N events after `since_seq`.
    pub replay_limit: Option<i64>,
}

/// Opens the stream of `thread_id`. Frames arrive on the returned channel
/// (bounded: a slow client slows its own reader, nobody else) until the
/// client goes away or `shutdown` flips.
pub async fn open(
    store: Arc<Store>,
    thread_id: String,
    cursor: Cursor,
    shutdown: watch::Receiver<bool>,
) -> Result<mpsc::Receiver<Frame>, RuntimeError> {
    open_with_pauses(store, thread_id, cursor, shutdown, None).await
}

/// The windows where replay and live delivery could race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceWindow {
    /// Subscribed to live wake-ups, history not read yet.
    Subscribed,
    /// A batch was read from the store, not yet delivered.
    BatchRead,
    /// Caught up; about to wait for a wake-up.
    CaughtUp,
}

/// Called at each race window; tests pause there to force the races.
pub type Pauses = Arc<dyn Fn(RaceWindow) -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

/// `open`, with a hook awaited at every race window.
pub async fn open_with_pauses(
    store: Arc<Store>,
    thread_id: String,
    cursor: Cursor,
    mut shutdown: watch::Receiver<bool>,
    pauses: Option<Pauses>,
) -> Result<mpsc::Receiver<Frame>, RuntimeError> {
    let pause = move |window: RaceWindow| {
        let pauses = pauses.clone();
        async move {
            if let Some(pauses) = pauses {
                pauses(window).await;
            }
        }
    };
    if cursor.since_seq < 0 {
        return Err(RuntimeError::invalid("since_seq must be 0 or more"));
    }
    let replay_limit = match cursor.replay_limit {
        Some(limit @ 0..=MAX_REPLAY_LIMIT) => Some(limit),
        Some(other) => {
            return Err(RuntimeError::invalid(format!(
                "replay_limit must be between 0 and {MAX_REPLAY_LIMIT} (got {other})"
            )))
        }
        None => None,
    };
    super::threads::ensure_exists(&store, &thread_id).await?;
    // A cursor no event of this store ever had comes from another store (a
    // reset `$CODEWHALE_HOME`, another server): following it would silently
    // skip every event up to it.
    let newest = store::events::latest_seq(store.pool()).await?;
    if cursor.since_seq > newest {
        return Err(RuntimeError::Conflict(format!(
            "since_seq {} is ahead of this server's newest event ({newest}): the cursor is not \
             from this runtime; reload the thread (GET /v1/threads/{{id}}) and resume from its latest_seq",
            cursor.since_seq
        )));
    }
    // Subscribe before reading history: anything committed from here on
    // wakes us, anything before is in the store.
    let mut live = store.subscribe();
    pause(RaceWindow::Subscribed).await;
    let mut position = match replay_limit {
        Some(keep) => {
            store::events::tail_cursor(store.pool(), &thread_id, cursor.since_seq, keep).await?
        }
        None => cursor.since_seq,
    };
    let (tx, rx) = mpsc::channel(BATCH as usize);
    tokio::spawn(async move {
        let mut limit = replay::FIRST_LIMIT;
        loop {
            let batch = match replay::next_batch(&store, &thread_id, position, limit).await {
                Ok(batch) => batch,
                Err(error) => {
                    tracing::error!(%error, "event stream read failed");
                    return;
                }
            };
            let caught_up = batch.caught_up;
            limit = batch.next_limit;
            pause(RaceWindow::BatchRead).await;
            for frame in batch.frames {
                position = frame.seq;
                if tx.send(frame).await.is_err() {
                    return; // client gone
                }
            }
            if let Some(seq) = batch.corrupt {
                tracing::error!(seq, "skipping a corrupt event ends the stream");
                return;
            }
            if !caught_up {
                continue;
            }
            pause(RaceWindow::CaughtUp).await;
            // Deliver carried events that follow the cursor; wait for
            // something newer for this thread, the client leaving, or
            // shutdown; go back to the store on anything else.
            loop {
                tokio::select! {
                    received = live.recv() => match received {
                        Ok(c) if *c.thread_id == *thread_id && c.seq > position => {
                            let Some(frame) = c.event.as_deref().and_then(|e| live_frame(e, position)) else {
                                break;
                            };
                            position = frame.seq;
                            if tx.send(frame).await.is_err() {
                                return;
                            }
                        }
                        Ok(_) => continue,
                        Err(RecvError::Lagged(missed)) => {
                            tracing::debug!(missed, "event stream fell behind; catching up from the store");
                            LAG_RECOVERIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            break;
                        }
                        Err(RecvError::Closed) => return,
                    },
                    () = tx.closed() => return,
                    _ = shutdown.changed() => return,
                }
            }
        }
    });
    Ok(rx)
}

#[cfg(test)]
mod tests;
