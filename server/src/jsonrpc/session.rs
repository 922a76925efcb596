//! One stdio connection's state: the runtime it drives, the line queue to
//! stdout, its event subscriptions and the switch `shutdown` flips.

use super::methods::{ENDED_NOTIFICATION, EVENT_NOTIFICATION};
use crate::runtime::{stream::Frame, Runtime};
use serde_json::Value;
use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};
use tokio::{
    sync::{mpsc, oneshot, watch},
    task::AbortHandle,
};

pub struct Session {
    runtime: Arc<Runtime>,
    /// Lines for stdout, written in the order they are queued.
    out: mpsc::Sender<String>,
    subscriptions: Mutex<HashMap<String, AbortHandle>>,
    next_subscription: AtomicU64,
    config_view: Value,
    stopping: watch::Sender<bool>,
}

impl Session {
    pub fn new(runtime: Arc<Runtime>, out: mpsc::Sender<String>, config_view: Value) -> Arc<Self> {
        Arc::new(Self {
            runtime,
            out,
            subscriptions: Mutex::new(HashMap::new()),
            next_subscription: AtomicU64::new(1),
            config_view,
            stopping: watch::channel(false).0,
        })
    }

    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    pub fn config_view(&self) -> &Value {
        &self.config_view
    }

    /// Queues a line for stdout; false once the writer is gone.
    pub async fn send(&self, line: String) -> bool {
        self.out.send(line).await.is_ok()
    }

    /// Flipped when a client asked to shut down.
    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.stopping.subscribe()
    }

    /// `shutdown`: interrupts every running turn (waiting until they end),
    /// ends the subscriptions, then tells the reading loop to stop.
    pub async fn shutdown(&self) -> usize {
        let interrupted = self.runtime.interrupt_all().await;
        // Nothing follows the reply: subscriptions end here.
        self.end_subscriptions();
        self.stopping.send_replace(true);
        interrupted
    }

    /// Sends a subscription's frames as `thread/event` notifications once
    /// `after` fires (when the subscribe reply is queued), so the reply
    /// comes first. The envelope is the SSE frame's data, unchanged.
    pub fn forward(
        self: &Arc<Self>,
        mut frames: mpsc::Receiver<Frame>,
    ) -> (String, oneshot::Sender<()>) {
        let n = self.next_subscription.fetch_add(1, Ordering::Relaxed);
        let id = format!("sub_{n}");
        let (after, replied) = oneshot::channel::<()>();
        let session = Arc::clone(self);
        let key = id.clone();
        let mut subscriptions = self.lock();
        let task = tokio::spawn(async move {
            let _ = replied.await;
            while let Some(frame) = frames.recv().await {
                let line = format!(
                    r#"{{"jsonrpc":"2.0","method":"{EVENT_NOTIFICATION}","params":{{"subscription_id":"{key}","envelope":{}}}}}"#,
                    frame.data
                );
                if !session.send(line).await {
                    return;
                }
            }
            // The stream ended without an unsubscribe (which aborts this
            // task): the runtime is stopping or a read failed. Say so, as an
            // SSE response would by ending.
            session.lock().remove(&key);
            let ended = super::wire::notification(
                ENDED_NOTIFICATION,
                serde_json::json!({ "subscription_id": key }),
            );
            session.send(ended.to_string()).await;
        });
        subscriptions.insert(id.clone(), task.abort_handle());
        (id, after)
    }

    /// Ends a subscription; false when there is none by that id.
    pub fn unsubscribe(&self, id: &str) -> bool {
        match self.lock().remove(id) {
            Some(task) => {
                task.abort();
                true
            }
            None => false,
        }
    }

    pub fn end_subscriptions(&self) {
        for (_, task) in self.lock().drain() {
            task.abort();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, AbortHandle>> {
        self.subscriptions.lock().unwrap_or_else(|p| p.into_inner())
    }
}
