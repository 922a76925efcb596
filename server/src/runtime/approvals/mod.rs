//! Approvals: a tool that writes or runs a command asks first. The request
//! is durable (approval.required) and pending in memory until a client
//! decides (`POST /v1/approvals/{id}`), the timeout passes, or the turn
//! ends. Auto-approve (thread/turn setting, or yolo mode) records the
//! request and an automatic decision.

use super::{
    ids,
    pending::{detached, turn_event as event, Ask, PendingSet, Waited},
};
use crate::{
    runtime::error::RuntimeError,
    store::{self, NewEvent, Store, StoreError},
};
use protocol::{
    ApprovalDecided, ApprovalDecidedPayload, ApprovalRequiredPayload, ApprovalTimeoutPayload,
    DecideApproval, EventPayload, ThreadUpdatedPayload,
};
use serde_json::Value;
use std::{sync::Arc, time::Duration};

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

mod forward;

/// The engine's name for a client's answer (the wire type).
pub use protocol::ApprovalDecision as Decision;

/// What a tool asks to be allowed to do.
#[derive(Clone, Debug)]
pub struct ApprovalRequest {
    pub tool_name: String,
    pub description: String,
    pub intent_summary: String,
}

pub struct Approvals {
    pending: PendingSet<Decision>,
    timeout: Duration,
}

impl Approvals {
    /// Whether an approval can be answered at all (a zero wait, as in
    /// `codewhale exec` or `codewhale_run`, denies every one at once).
    pub fn can_be_answered(&self) -> bool {
        !self.timeout.is_zero()
    }

    pub fn new(store: Arc<Store>, timeout: Duration) -> Self {
        Self {
            pending: PendingSet::new(store),
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
        let approval_id = ids::new(ids::APPROVAL);
        let required = EventPayload::ApprovalRequired(ApprovalRequiredPayload {
            id: approval_id.clone(),
            approval_id: approval_id.clone(),
            turn_id: turn_id.to_string(),
            tool_name: request.tool_name,
            description: request.description,
            intent_summary: request.intent_summary,
        });
        if auto {
            let required = event(thread_id, turn_id, required);
            let decided = decided(&approval_id, Decision::Allow, |p| p.auto = Some(true));
            let decided = event(thread_id, turn_id, decided);
            self.pending.commit(vec![required, decided]).await?;
            return Ok(Decision::Allow);
        }
        let ask = Ask {
            id: approval_id.clone(),
            thread_id: thread_id.to_string(),
            turn_id: turn_id.to_string(),
            announce: required,
        };
        let timeout_secs = self.timeout.as_secs();
        let waited = self
            .pending
            .ask(ask, None, self.timeout, |_| {
                vec![
                    event(
                        thread_id,
                        turn_id,
                        EventPayload::ApprovalTimeout(ApprovalTimeoutPayload {
                            approval_id: approval_id.clone(),
                            timeout_secs,
                        }),
                    ),
                    event(
                        thread_id,
                        turn_id,
                        decided(&approval_id, Decision::Deny, |p| p.timeout = Some(true)),
                    ),
                ]
            })
            .await?;
        Ok(match waited {
            Some(Waited::Answered(decision)) => decision,
            _ => Decision::Deny,
        })
    }

    /// A client's decision. Unknown or already settled → 404. The
    /// settlement finishes even if the caller disconnects.
    pub async fn decide(
        self: &Arc<Self>,
        approval_id: &str,
        body: DecideApproval,
    ) -> Result<ApprovalDecided, RuntimeError> {
        let decision = body.decision;
        let approvals = Arc::clone(self);
        let approval_id = approval_id.to_string();
        detached(async move {
            approvals
                .settle(&approval_id, decision, body.remember)
                .await
        })
        .await
    }

    async fn settle(
        &self,
        approval_id: &str,
        decision: Decision,
        remember: bool,
    ) -> Result<ApprovalDecided, RuntimeError> {
        let Some(claim) = self.pending.claim(approval_id).await else {
            return forward::decide(self.pending.store(), approval_id, decision, remember).await;
        };
        let (thread_id, turn_id) = (&claim.waiting().thread_id, &claim.waiting().turn_id);
        let mut tx = self.pending.store().begin_write().await?;
        tx.append(event(
            thread_id,
            turn_id,
            decided(approval_id, decision, |p| p.remember = Some(remember)),
        ))
        .await?;
        if remember && decision == Decision::Allow {
            if let Some(mut thread) = store::threads::get(tx.conn(), thread_id).await? {
                if !thread.auto_approve {
                    thread.auto_approve = true;
                    thread.updated_at = crate::clock::now();
                    store::threads::update(tx.conn(), &thread).await?;
                    let record = protocol::ThreadRecord::from(thread);
                    tx.append(NewEvent::thread(
                        thread_id,
                        EventPayload::ThreadUpdated(ThreadUpdatedPayload {
                            thread: record,
                            changed: vec!["auto_approve".into()],
                        }),
                    ))
                    .await?;
                }
            }
        }
        tx.commit().await?;
        let delivered = claim.settle(Some(decision));
        Ok(ApprovalDecided {
            ok: true,
            approval_id: approval_id.to_string(),
            decision,
            delivered,
        })
    }

    /// Settles decisions another process took for approvals waiting here
    /// (`forward.rs`), until the runtime is dropped. Costs nothing while
    /// nothing waits.
    pub fn settle_forwarded(self: &Arc<Self>) {
        let approvals = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(forward::POLL);
            loop {
                tick.tick().await;
                let Some(approvals) = approvals.upgrade() else {
                    return;
                };
                let waiting = approvals.pending.ids().await;
                if waiting.is_empty() {
                    continue;
                }
                let store = approvals.pending.store().clone();
                for (id, decision, remember) in forward::taken_for(&store, &waiting).await {
                    if let Err(error) = approvals.settle(&id, decision, remember).await {
                        tracing::warn!(%error, approval_id = %id, "a forwarded decision could not be settled");
                    }
                }
            }
        });
    }

    /// The thread's auto_approve as stored now (false if unreadable).
    pub async fn thread_auto_approves(&self, thread_id: &str) -> bool {
        let Ok(mut conn) = self.pending.store().conn().await else {
            return false;
        };
        matches!(store::threads::get(&mut conn, thread_id).await, Ok(Some(t)) if t.auto_approve)
    }

    /// Pending approvals of a thread, for its snapshot.
    pub async fn pending_for(&self, thread_id: &str) -> Vec<Value> {
        self.pending.views_for(thread_id).await
    }

    /// Settles a finished turn's pending approvals as denied.
    pub async fn cancel_turn(&self, turn_id: &str) -> Result<usize, StoreError> {
        self.pending
            .cancel_turn(turn_id, |id, waiting| {
                vec![event(
                    &waiting.thread_id,
                    &waiting.turn_id,
                    decided(id, Decision::Deny, |p| {
                        p.canceled = Some(true);
                        p.terminal = Some(true);
                    }),
                )]
            })
            .await
    }
}

/// `approval.decided` with `decision`, and `extra` filled in.
pub(crate) fn decided(
    approval_id: &str,
    decision: Decision,
    extra: impl FnOnce(&mut ApprovalDecidedPayload),
) -> EventPayload {
    let mut payload = ApprovalDecidedPayload {
        approval_id: approval_id.to_string(),
        decision,
        remember: None,
        auto: None,
        timeout: None,
        canceled: None,
        terminal: None,
        recovered: None,
    };
    extra(&mut payload);
    EventPayload::ApprovalDecided(payload)
}
