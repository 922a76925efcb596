//! Decisions for approvals another process is waiting on. Two codewhale
//! processes may share a store (a browser on `codewhale web`, an editor on
//! `codewhale acp`); an approval is pending in the memory of the process
//! running its turn. A decision taken elsewhere is left in the store, the
//! owner settles it (the one settlement rule of `pending.rs` still holds:
//! only the owner commits `approval.decided`), and the caller waits to see
//! that event.

use super::Decision;
use crate::{
    runtime::error::RuntimeError,
    store::{forwarded, Store},
};
use protocol::ApprovalDecided;
use std::{sync::Arc, time::Duration};

/// How often an owner with approvals waiting looks for forwarded decisions.
pub const POLL: Duration = Duration::from_millis(100);
/// How long a forwarding caller waits for the owner to settle.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// Forwards a decision for an approval this process does not hold. 404
/// when no running turn anywhere waits on it (unknown, or settled).
pub async fn decide(
    store: &Arc<Store>,
    approval_id: &str,
    decision: Decision,
    remember: bool,
) -> Result<ApprovalDecided, RuntimeError> {
    let not_pending = || RuntimeError::NotFound(format!("no pending approval {approval_id}"));
    let Some((thread_id, _turn)) = forwarded::waiting_elsewhere(store.pool(), approval_id).await?
    else {
        return Err(not_pending());
    };
    forwarded::put(store.pool(), approval_id, decision.as_str(), remember).await?;
    let deadline = tokio::time::Instant::now() + ANSWER_WITHIN;
    loop {
        if let Some(recorded) = forwarded::decided(store.pool(), &thread_id, approval_id).await? {
            // The owner's settlement may differ (the turn ended first: a
            // denial): report what was recorded.
            let recorded = parse(&recorded).unwrap_or(Decision::Deny);
            return Ok(ApprovalDecided {
                ok: true,
                approval_id: approval_id.to_string(),
                decision: recorded,
                delivered: recorded == decision,
            });
        }
        if tokio::time::Instant::now() >= deadline {
            forwarded::remove(store.pool(), approval_id).await?;
            return Err(RuntimeError::Conflict(format!(
                "approval {approval_id} is waiting in another codewhale process that did not \
                 take the decision; is it still running?"
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Forwarded decisions for the approvals in `waiting`, removed from the
/// store; rows for approvals that are no longer pending anywhere go too.
pub async fn taken_for(store: &Arc<Store>, waiting: &[String]) -> Vec<(String, Decision, bool)> {
    let rows = match forwarded::all(store.pool()).await {
        Ok(rows) => rows,
        Err(error) => {
            tracing::warn!(%error, "reading forwarded decisions failed");
            return Vec::new();
        }
    };
    let mut taken = Vec::new();
    for (id, decision, remember) in rows {
        if !waiting.contains(&id) {
            continue; // another process's, or its caller removes it
        }
        if let Err(error) = forwarded::remove(store.pool(), &id).await {
            tracing::warn!(%error, "removing a forwarded decision failed");
            continue;
        }
        if let Some(decision) = parse(&decision) {
            taken.push((id, decision, remember));
        }
    }
    taken
}

fn parse(decision: &str) -> Option<Decision> {
    serde_json::from_value(serde_json::Value::String(decision.to_string())).ok()
}
