//! Requests that wait on a client: approvals, user input and
//! client-executed tool calls share one settlement rule.
//!
//! Each request has one settlement owner. Whoever claims it first (the
//! client's answer, the timeout, or the end of the turn) commits its
//! terminal event while holding the claim, and only then removes the
//! request from snapshots and hands the answer to the engine. A commit
//! that fails leaves the request pending: nothing is half accepted. A
//! second claimant finds nothing, so exactly one terminal event is durable
//! per request.

use crate::{
    runtime::error::RuntimeError,
    store::{NewEvent, Store, StoreError},
};
use protocol::EventPayload;
use serde_json::Value;
use std::{collections::HashMap, sync::Arc, time::Duration};
use tokio::sync::{oneshot, Mutex, OwnedMutexGuard};

/// A request waiting for its client.
pub struct Waiting<A> {
    pub thread_id: String,
    pub turn_id: String,
    /// What snapshots list (`pending_approvals` and friends).
    pub view: Value,
    answer: oneshot::Sender<A>,
}

type Entries<A> = HashMap<String, Waiting<A>>;

pub struct PendingSet<A> {
    store: Arc<Store>,
    entries: Arc<Mutex<Entries<A>>>,
}

/// How a wait ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Waited<A> {
    Answered(A),
    /// The timeout won; its events are durable.
    TimedOut,
    /// The turn ended (or the runtime dropped the request).
    Canceled,
}

/// Too many requests of a thread are already waiting.
#[derive(Debug, PartialEq, Eq)]
pub struct Full;

/// A request to open: its id, where it belongs, and the event announcing
/// it (whose payload is also what snapshots list).
pub struct Ask {
    pub id: String,
    pub thread_id: String,
    pub turn_id: String,
    pub announce: EventPayload,
}

impl<A: Send + 'static> PendingSet<A> {
    pub fn new(store: Arc<Store>) -> Self {
        Self {
            store,
            entries: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Opens `ask` and waits for its one settlement; `Ok(None)` when the
    /// thread already has `per_thread_limit` requests waiting.
    pub async fn ask(
        &self,
        ask: Ask,
        per_thread_limit: Option<usize>,
        timeout: Duration,
        on_timeout: impl FnOnce(&Waiting<A>) -> Vec<NewEvent>,
    ) -> Result<Option<Waited<A>>, StoreError> {
        let view = ask.announce.clone().into_value();
        let announce = NewEvent::turn(&ask.thread_id, &ask.turn_id, ask.announce);
        let waiting = (ask.thread_id, ask.turn_id, view);
        let opened = self.open(&ask.id, waiting, vec![announce], per_thread_limit);
        let Ok(receiver) = opened.await? else {
            return Ok(None);
        };
        self.wait(&ask.id, receiver, timeout, on_timeout)
            .await
            .map(Some)
    }

    /// Makes `id` pending and commits its request events. It is listed
    /// before the events are durable, so a snapshot taken at or after them
    /// shows it.
    async fn open(
        &self,
        id: &str,
        waiting: (String, String, Value),
        events: Vec<NewEvent>,
        per_thread_limit: Option<usize>,
    ) -> Result<Result<oneshot::Receiver<A>, Full>, StoreError> {
        let (thread_id, turn_id, view) = waiting;
        let (answer, receiver) = oneshot::channel();
        {
            let mut entries = self.entries.lock().await;
            if let Some(limit) = per_thread_limit {
                if entries
                    .values()
                    .filter(|w| w.thread_id == thread_id)
                    .count()
                    >= limit
                {
                    return Ok(Err(Full));
                }
            }
            entries.insert(
                id.to_string(),
                Waiting {
                    thread_id,
                    turn_id,
                    view,
                    answer,
                },
            );
        }
        if let Err(error) = self.commit(events).await {
            self.entries.lock().await.remove(id);
            return Err(error);
        }
        Ok(Ok(receiver))
    }

    /// Waits for the answer; when `timeout` passes first and the timeout
    /// wins the claim, commits `on_timeout` (built from the request).
    async fn wait(
        &self,
        id: &str,
        mut receiver: oneshot::Receiver<A>,
        timeout: Duration,
        on_timeout: impl FnOnce(&Waiting<A>) -> Vec<NewEvent>,
    ) -> Result<Waited<A>, StoreError> {
        if let Ok(answer) = tokio::time::timeout(timeout, &mut receiver).await {
            return Ok(answer.map_or(Waited::Canceled, Waited::Answered));
        }
        match self.claim(id).await {
            Some(claim) => {
                let events = on_timeout(claim.waiting());
                self.commit(events).await?;
                claim.settle(None);
                Ok(Waited::TimedOut)
            }
            // Someone else owns the settlement: its outcome arrives here.
            None => Ok(receiver.await.map_or(Waited::Canceled, Waited::Answered)),
        }
    }

    /// The ids of every request pending here.
    pub async fn ids(&self) -> Vec<String> {
        self.entries.lock().await.keys().cloned().collect()
    }

    /// Takes the settlement of `id`, or `None` when it is not pending (or
    /// another settlement holds it and will remove it).
    pub async fn claim(&self, id: &str) -> Option<Claim<A>> {
        let guard = self.entries.clone().lock_owned().await;
        guard.contains_key(id).then(|| Claim {
            guard,
            id: id.to_string(),
        })
    }

    /// Settles every request of a finished turn with `events_for` (one
    /// transaction), then drops them: their waiters see `Canceled`.
    pub async fn cancel_turn(
        &self,
        turn_id: &str,
        events_for: impl Fn(&str, &Waiting<A>) -> Vec<NewEvent>,
    ) -> Result<usize, StoreError> {
        let mut entries = self.entries.lock().await;
        let ids: Vec<String> = entries
            .iter()
            .filter(|(_, w)| w.turn_id == turn_id)
            .map(|(id, _)| id.clone())
            .collect();
        if ids.is_empty() {
            return Ok(0);
        }
        let events = ids
            .iter()
            .flat_map(|id| events_for(id, &entries[id]))
            .collect();
        let committed = self.commit(events).await;
        // Removed even when the commit failed: the turn is over and nothing
        // would ever settle them. Recovery reconciles after a restart.
        for id in &ids {
            entries.remove(id);
        }
        committed.map(|()| ids.len())
    }

    /// The views of a thread's pending requests, for its snapshot.
    pub async fn views_for(&self, thread_id: &str) -> Vec<Value> {
        let entries = self.entries.lock().await;
        let mut views: Vec<&Waiting<A>> = entries
            .values()
            .filter(|w| w.thread_id == thread_id)
            .collect();
        views.sort_by(|a, b| a.view["id"].as_str().cmp(&b.view["id"].as_str()));
        views.into_iter().map(|w| w.view.clone()).collect()
    }

    pub async fn commit(&self, events: Vec<NewEvent>) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let mut tx = self.store.begin_write().await?;
        for event in events {
            tx.append(event).await?;
        }
        tx.commit().await
    }
}

/// The exclusive right to settle one request; dropping it leaves the
/// request pending.
pub struct Claim<A> {
    guard: OwnedMutexGuard<Entries<A>>,
    id: String,
}

impl<A> Claim<A> {
    pub fn waiting(&self) -> &Waiting<A> {
        &self.guard[&self.id]
    }

    /// Call once the terminal event is durable: removes the request and
    /// hands `answer` to its waiter. Returns whether the waiter was there.
    pub fn settle(mut self, answer: Option<A>) -> bool {
        let Some(waiting) = self.guard.remove(&self.id) else {
            return false;
        };
        match answer {
            Some(answer) => waiting.answer.send(answer).is_ok(),
            None => false,
        }
    }
}

/// Runs a settlement to its end even if the HTTP caller goes away.
pub async fn detached<V: Send + 'static>(
    work: impl std::future::Future<Output = Result<V, RuntimeError>> + Send + 'static,
) -> Result<V, RuntimeError> {
    tokio::spawn(work).await.unwrap_or_else(|join| {
        tracing::error!(%join, "a settlement task failed");
        Err(RuntimeError::Unsettled)
    })
}

/// A request or lifecycle event of one turn.
pub fn turn_event(thread_id: &str, turn_id: &str, payload: EventPayload) -> NewEvent {
    NewEvent::turn(thread_id, turn_id, payload)
}
