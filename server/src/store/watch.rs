//! Wake-ups for events other processes commit to this store (a `codewhale
//! web` and an editor's `codewhale acp` sharing `$CODEWHALE_HOME`): one
//! cheap indexed poll per interval for the whole process, not per
//! subscriber. These are wake-ups without the event: subscribers re-read
//! from their own cursor, so a wake-up for an event they already have costs
//! a comparison.

use super::Committed;
use sqlx::SqlitePool;
use std::{sync::Arc, time::Duration};
use tokio::{
    sync::{broadcast::WeakSender, Notify},
    task::JoinHandle,
};

const INTERVAL: Duration = Duration::from_millis(200);
const BATCH: i64 = 1_000;

/// The running watcher; `stop` ends it before the store closes (a poll
/// racing `close` could leave the last connection, and the WAL checkpoint
/// it does, to after `close` returned).
pub struct Watcher {
    stop: Arc<Notify>,
    task: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl Watcher {
    pub async fn stop(&self) {
        self.stop.notify_one();
        let task = self.task.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(task) = task {
            let _ = task.await;
        }
    }
}

/// Starts the watcher from the newest event now stored. It ends when the
/// store is dropped or `stop`ped.
/// Watches for commits after `newest` (the newest committed seq now).
pub fn spawn(pool: SqlitePool, live: WeakSender<Committed>, newest: i64) -> Watcher {
    let mut seen = newest;
    let stop = Arc::new(Notify::new());
    let stopped = stop.clone();
    let task = tokio::spawn(async move {
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + INTERVAL, INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = stopped.notified() => return,
            }
            let Some(live) = live.upgrade() else { return };
            if pool.is_closed() {
                return;
            }
            let rows: Vec<(i64, String)> = match sqlx::query_as(
                "SELECT seq, thread_id FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2",
            )
            .bind(seen)
            .bind(BATCH)
            .fetch_all(&pool)
            .await
            {
                Ok(rows) => rows,
                Err(_) if pool.is_closed() => return,
                Err(error) => {
                    tracing::warn!(%error, "watching the store for other processes' events failed");
                    continue;
                }
            };
            for (seq, thread_id) in rows {
                seen = seq;
                if live.receiver_count() > 0 {
                    let _ = live.send(Committed {
                        thread_id: Arc::from(thread_id),
                        seq,
                        event: None,
                    });
                }
            }
        }
    });
    Watcher {
        stop,
        task: std::sync::Mutex::new(Some(task)),
    }
}
