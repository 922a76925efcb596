//! Approvals: a tool that writes or runs a command asks first. The request
//! is durable (approval.required) and pending in memory until a client
//! decides (`POST /v1/approvals/{id}`), the timeout passes, or the turn
//! ends. Auto-approve (thread/turn setting, or yolo mode) records the
//! request and an automatic decision.

use super::ids;
use crate::{
    error::ApiError,
    store::{self, NewEvent, Store, StoreError},
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};
use tokio::sync::oneshot;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    Deny,
}

/// Body of `POST /v1/approvals/{approval_id}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecideApproval {
    pub decision: String,
    #[serde(default)]
    pub remember: bool,
}

/// What a tool asks to be allowed to do.
#[derive(Clone, Debug)]
pub struct ApprovalRequest {
    pub tool_name: String,
    pub description: String,
    pub intent_summary: String,
}

struct Pending {
    thread_id: String,
    turn_id: String,
    view: Value,
    answer: oneshot::Sender<Decision>,
}

pub struct Approvals {
    store: Arc<Store>,
    pending: Mutex<HashMap<String, Pending>>,
    timeout: Duration,
}

impl Approvals {
    pub fn new(store: Arc<Store>, timeout: Duration) -> Self {
        Self {
            store,
            pending: Mutex::new(HashMap::new()),
            timeout,
        }
    }

    /// Asks and waits for the decision (auto-approved when `auto`).
    pub async fn ask(
        &self,
        thread_id: &str,
        turn_id: &str,
        request: ApprovalRequest,
        auto: bool,
    ) -> Result<Decision, StoreError> {
        let approval_id = ids::new("appr_");
        let view = json!({
            "id": approval_id,
            "approval_id": approval_id,
            "turn_id": turn_id,
            "tool_name": request.tool_name,
            "description": request.description,
            "intent_summary": request.intent_summary,
        });
        let (answer, decided) = oneshot::channel();
        if !auto {
            // Pending before the event is durable: a snapshot taken at or
            // after approval.required's seq lists it.
            self.lock().insert(
                approval_id.clone(),
                Pending {
                    thread_id: thread_id.into(),
                    turn_id: turn_id.into(),
                    view: view.clone(),
                    answer,
                },
            );
        }
        self.record(thread_id, turn_id, vec![("approval.required", view)])
            .await?;
        if auto {
            let decided = json!({ "approval_id": approval_id, "decision": "allow", "auto": true });
            self.record(thread_id, turn_id, vec![("approval.decided", decided)])
                .await?;
            return Ok(Decision::Allow);
        }
        match tokio::time::timeout(self.timeout, decided).await {
            Ok(Ok(decision)) => Ok(decision),
            // Dropped without an answer: the turn is ending.
            Ok(Err(_)) => Ok(Decision::Deny),
            Err(_) => {
                if self.lock().remove(&approval_id).is_some() {
                    self.record(
                        thread_id,
                        turn_id,
                        vec![
                            ("approval.timeout", json!({ "approval_id": approval_id })),
                            ("approval.decided", json!({ "approval_id": approval_id, "decision": "deny", "timeout": true })),
                        ],
                    )
                    .await?;
                }
                Ok(Decision::Deny)
            }
        }
    }

    /// A client's decision. Unknown or already settled → 404.
    pub async fn decide(&self, approval_id: &str, body: DecideApproval) -> Result<Value, ApiError> {
        let decision = match body.decision.as_str() {
            "allow" => Decision::Allow,
            "deny" => Decision::Deny,
            other => {
                return Err(ApiError::bad_request(format!(
                    "decision must be \"allow\" or \"deny\" (got {other:?})"
                )))
            }
        };
        let pending = self
            .lock()
            .remove(approval_id)
            .ok_or_else(|| ApiError::NotFound(format!("no pending approval {approval_id}")))?;
        let mut tx = self.store.begin_write().await?;
        tx.append(event(
            &pending.thread_id,
            &pending.turn_id,
            "approval.decided",
            json!({
                "approval_id": approval_id, "decision": body.decision, "remember": body.remember,
            }),
        ))
        .await?;
        if body.remember && decision == Decision::Allow {
            if let Some(mut thread) = store::threads::get(tx.conn(), &pending.thread_id).await? {
                if !thread.auto_approve {
                    thread.auto_approve = true;
                    thread.updated_at = crate::clock::now();
                    store::threads::update(tx.conn(), &thread).await?;
                    let record = app::protocol::ThreadRecord::from(thread);
                    tx.append(NewEvent::thread(
                        &pending.thread_id,
                        "thread.updated",
                        json!({ "thread": record, "changed": ["auto_approve"] }),
                    ))
                    .await?;
                }
            }
        }
        tx.commit().await?;
        let delivered = pending.answer.send(decision).is_ok();
        Ok(
            json!({ "ok": true, "approval_id": approval_id, "decision": body.decision, "delivered": delivered }),
        )
    }

    /// Pending approvals of a thread, for its snapshot.
    pub fn pending_for(&self, thread_id: &str) -> Vec<Value> {
        self.lock()
            .values()
            .filter(|p| p.thread_id == thread_id)
            .map(|p| p.view.clone())
            .collect()
    }

    /// Drops a finished turn's pending approvals (their waiters see Deny).
    pub fn cancel_turn(&self, turn_id: &str) {
        self.lock().retain(|_, p| p.turn_id != turn_id);
    }

    async fn record(
        &self,
        thread_id: &str,
        turn_id: &str,
        events: Vec<(&'static str, Value)>,
    ) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        for (name, payload) in events {
            tx.append(event(thread_id, turn_id, name, payload)).await?;
        }
        tx.commit().await
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn event(thread_id: &str, turn_id: &str, name: &'static str, payload: Value) -> NewEvent {
    NewEvent {
        thread_id: thread_id.to_string(),
        turn_id: Some(turn_id.to_string()),
        item_id: None,
        event: name,
        payload,
    }
}
