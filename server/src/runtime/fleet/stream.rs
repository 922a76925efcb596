//! A fleet run's event stream: its log replayed from the cursor, then live,
//! with the thread streams' rules (`since_seq` / `Last-Event-ID`, a
//! `replay_limit`, a cursor ahead of the log refused). Wake-ups come from
//! this process's writes, and a poll finds another process's.

use super::store;
use crate::{
    runtime::{
        error::RuntimeError,
        stream::{Cursor, Frame, BATCH, MAX_REPLAY_LIMIT},
        Runtime,
    },
    store::fleet::FleetEventRow,
};
use protocol::{FleetEventEnvelope, EVENT_SCHEMA_VERSION};
use std::time::Duration;
use tokio::sync::mpsc;

/// How often a caught-up stream looks for another process's events.
const POLL: Duration = Duration::from_millis(500);

impl Runtime {
    /// Opens `run_id`'s stream; frames arrive until the client goes away or
    /// the server shuts down.
    pub async fn subscribe_fleet(
        &self,
        run_id: &str,
        cursor: Cursor,
    ) -> Result<mpsc::Receiver<Frame>, RuntimeError> {
        if cursor.since_seq < 0 {
            return Err(RuntimeError::invalid("since_seq must be 0 or more"));
        }
        if let Some(limit) = cursor.replay_limit {
            if !(0..=MAX_REPLAY_LIMIT).contains(&limit) {
                return Err(RuntimeError::invalid(format!(
                    "replay_limit must be between 0 and {MAX_REPLAY_LIMIT} (got {limit})"
                )));
            }
        }
        self.run_row(run_id).await?;
        let pool = self.store.pool().clone();
        let newest = store::latest_event_seq(&pool).await?;
        if cursor.since_seq > newest {
            return Err(RuntimeError::Conflict(format!(
                "since_seq {} is ahead of this server's newest fleet event ({newest}): the cursor \
                 is not from this runtime; reload the run and stream from 0",
                cursor.since_seq
            )));
        }
        // Watch before reading: a write from here on wakes us.
        let mut wake = self.fleet.events.subscribe();
        let mut position = match cursor.replay_limit {
            Some(keep) => store::tail_cursor(&pool, run_id, cursor.since_seq, keep).await?,
            None => cursor.since_seq,
        };
        let mut shutdown = self.stopped.clone();
        let run_id = run_id.to_string();
        let (tx, rx) = mpsc::channel(BATCH as usize);
        tokio::spawn(async move {
            loop {
                let batch = match store::events_after(&pool, &run_id, position, BATCH).await {
                    Ok(batch) => batch,
                    Err(error) => return tracing::error!(%error, "fleet event stream read failed"),
                };
                let caught_up = (batch.len() as i64) < BATCH;
                for event in &batch {
                    let Some(frame) = frame(event, position) else {
                        return tracing::error!(
                            seq = event.seq,
                            "a corrupt fleet event ends the stream"
                        );
                    };
                    position = event.seq;
                    if tx.send(frame).await.is_err() {
                        return;
                    }
                }
                if caught_up {
                    tokio::select! {
                        changed = wake.changed() => if changed.is_err() { return },
                        () = tokio::time::sleep(POLL) => {}
                        () = tx.closed() => return,
                        _ = shutdown.wait_for(|stopped| *stopped) => return,
                    }
                }
            }
        });
        Ok(rx)
    }
}

fn frame(event: &FleetEventRow, previous_seq: i64) -> Option<Frame> {
    let envelope = FleetEventEnvelope {
        schema_version: EVENT_SCHEMA_VERSION,
        seq: event.seq,
        previous_seq,
        event: event.event.clone(),
        kind: event.event.clone(),
        run_id: event.run_id.clone(),
        worker_id: event.worker_id.clone(),
        timestamp: event.timestamp.clone(),
        created_at: event.timestamp.clone(),
        payload: serde_json::from_str(&event.payload).ok()?,
    };
    Some(Frame {
        seq: event.seq,
        event: event.event.clone(),
        data: serde_json::to_string(&envelope).ok()?.into(),
    })
}
