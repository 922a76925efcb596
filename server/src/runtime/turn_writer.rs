//! Records a running turn's items. One writer task per turn applies the
//! engine's reports in order; adjacent text deltas of one item are coalesced
//! (up to 32 ms or about 16 KiB) into a single durable `item.delta`, and the
//! item's text is stored in the same transaction as that event.

use crate::{
    clock,
    store::{self, NewEvent, Store, StoreError},
};
use protocol::{EventPayload, ItemDeltaPayload, ItemKind, ItemPayload, ItemStatus, TurnItemRecord};
use serde_json::json;
use std::{collections::HashMap, sync::Arc, time::Duration};
use tokio::{sync::mpsc, task::JoinHandle, time::Instant};

pub const COALESCE_WINDOW: Duration = Duration::from_millis(32);
pub const COALESCE_BYTES: usize = 16 * 1024;

/// How an item ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemEnd {
    Completed,
    Failed,
    Interrupted,
}

impl ItemEnd {
    fn status(self) -> ItemStatus {
        match self {
            ItemEnd::Completed => ItemStatus::Completed,
            ItemEnd::Failed => ItemStatus::Failed,
            ItemEnd::Interrupted => ItemStatus::Interrupted,
        }
    }

    fn event(self) -> fn(ItemPayload) -> EventPayload {
        match self {
            ItemEnd::Completed => EventPayload::ItemCompleted,
            ItemEnd::Failed => EventPayload::ItemFailed,
            ItemEnd::Interrupted => EventPayload::ItemInterrupted,
        }
    }
}

enum Report {
    Start(TurnItemRecord),
    Delta {
        item_id: String,
        text: String,
    },
    End {
        item_id: String,
        end: ItemEnd,
        detail: Option<String>,
        metadata: Option<serde_json::Value>,
    },
    /// Answered once everything reported before it is written.
    Sync(tokio::sync::oneshot::Sender<()>),
}

/// The engine's handle for recording items. Cheap to clone.
#[derive(Clone)]
pub struct ItemWriter {
    turn_id: String,
    reports: mpsc::Sender<Report>,
}

impl ItemWriter {
    /// Opens an item and returns its id.
    pub async fn start(&self, kind: ItemKind, summary: impl Into<String>) -> String {
        let item = TurnItemRecord {
            id: super::ids::new(super::ids::ITEM),
            turn_id: self.turn_id.clone(),
            kind,
            status: ItemStatus::InProgress,
            summary: summary.into(),
            detail: None,
            metadata: json!({}),
            started_at: Some(clock::now()),
            ended_at: None,
        };
        let id = item.id.clone();
        self.send(Report::Start(item)).await;
        id
    }

    /// Streams text into an item (agent message or reasoning).
    pub async fn delta(&self, item_id: &str, text: impl Into<String>) {
        self.send(Report::Delta {
            item_id: item_id.to_string(),
            text: text.into(),
        })
        .await;
    }

    /// Closes an item; `detail` replaces its text when given.
    pub async fn end(
        &self,
        item_id: &str,
        end: ItemEnd,
        detail: Option<String>,
        metadata: Option<serde_json::Value>,
    ) {
        self.send(Report::End {
            item_id: item_id.to_string(),
            end,
            detail,
            metadata,
        })
        .await;
    }

    /// Waits until everything reported so far is durable (before another
    /// record refers to an item just started).
    pub async fn sync(&self) {
        let (done, written) = tokio::sync::oneshot::channel();
        self.send(Report::Sync(done)).await;
        let _ = written.await;
    }

    async fn send(&self, report: Report) {
        // The writer only stops once every ItemWriter is gone.
        let _ = self.reports.send(report).await;
    }
}

/// Starts the writer of one turn. The task ends when every `ItemWriter` is
/// dropped, after writing whatever was pending.
pub fn spawn(
    store: Arc<Store>,
    thread_id: String,
    turn_id: String,
) -> (ItemWriter, JoinHandle<Result<(), StoreError>>) {
    let (reports, inbox) = mpsc::channel(1024);
    let task = tokio::spawn(run(store, thread_id, inbox));
    (ItemWriter { turn_id, reports }, task)
}

struct Pending {
    item_id: String,
    text: String,
    since: Instant,
}

async fn run(
    store: Arc<Store>,
    thread_id: String,
    mut inbox: mpsc::Receiver<Report>,
) -> Result<(), StoreError> {
    let mut items: HashMap<String, TurnItemRecord> = HashMap::new();
    let mut pending: Option<Pending> = None;
    loop {
        let report = match &pending {
            Some(p) => {
                tokio::select! {
                    report = inbox.recv() => report,
                    () = tokio::time::sleep_until(p.since + COALESCE_WINDOW) => {
                        flush(&store, &thread_id, &mut items, pending.take()).await?;
                        continue;
                    }
                }
            }
            None => inbox.recv().await,
        };
        match report {
            None => return flush(&store, &thread_id, &mut items, pending.take()).await,
            Some(Report::Delta { item_id, text }) => match &mut pending {
                Some(p) if p.item_id == item_id => {
                    p.text.push_str(&text);
                    if p.text.len() >= COALESCE_BYTES {
                        flush(&store, &thread_id, &mut items, pending.take()).await?;
                    }
                }
                _ => {
                    flush(&store, &thread_id, &mut items, pending.take()).await?;
                    pending = Some(Pending {
                        item_id,
                        text,
                        since: Instant::now(),
                    });
                }
            },
            Some(Report::Sync(done)) => {
                flush(&store, &thread_id, &mut items, pending.take()).await?;
                let _ = done.send(());
            }
            Some(other) => {
                flush(&store, &thread_id, &mut items, pending.take()).await?;
                apply(&store, &thread_id, &mut items, other).await?;
            }
        }
    }
}

async fn flush(
    store: &Store,
    thread_id: &str,
    items: &mut HashMap<String, TurnItemRecord>,
    pending: Option<Pending>,
) -> Result<(), StoreError> {
    let Some(Pending { item_id, text, .. }) = pending else {
        return Ok(());
    };
    let Some(item) = items.get_mut(&item_id) else {
        tracing::warn!(%item_id, "delta for an unknown item dropped");
        return Ok(());
    };
    let mut tx = store.begin_write().await?;
    store::turns::append_item_text(tx.conn(), &item_id, &text).await?;
    let payload = EventPayload::ItemDelta(ItemDeltaPayload {
        delta: text.clone(),
        kind: item.kind,
    });
    tx.append(NewEvent::item(thread_id, &item.turn_id, &item_id, payload))
        .await?;
    tx.commit().await?;
    item.detail.get_or_insert_with(String::new).push_str(&text);
    Ok(())
}

async fn apply(
    store: &Store,
    thread_id: &str,
    items: &mut HashMap<String, TurnItemRecord>,
    report: Report,
) -> Result<(), StoreError> {
    let (item, event) = match report {
        Report::Start(item) => (
            item,
            EventPayload::ItemStarted as fn(ItemPayload) -> EventPayload,
        ),
        Report::End {
            item_id,
            end,
            detail,
            metadata,
        } => {
            let Some(mut item) = items.get(&item_id).cloned() else {
                tracing::warn!(%item_id, "end of an unknown item dropped");
                return Ok(());
            };
            item.status = end.status();
            item.ended_at = Some(clock::now());
            if detail.is_some() {
                item.detail = detail;
            }
            if let Some(metadata) = metadata {
                item.metadata = metadata;
            }
            (item, end.event())
        }
        Report::Delta { .. } | Report::Sync(_) => return Ok(()),
    };
    let mut tx = store.begin_write().await?;
    store::turns::upsert_item(tx.conn(), thread_id, &item).await?;
    let payload = event(ItemPayload { item: item.clone() });
    tx.append(NewEvent::item(thread_id, &item.turn_id, &item.id, payload))
        .await?;
    tx.commit().await?;
    items.insert(item.id.clone(), item);
    Ok(())
}
