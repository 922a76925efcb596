//! Decisions for approvals another process is waiting on. Two codewhale
//! processes may share a store (a browser on `codewhale web`, an editor on
//! `codewhale acp`); an approval is pending in the memory of the process
//! running its turn. A decision taken elsewhere is left in the store, the
//! owner settles it (the one settlement rule of `pending.rs` still holds:
//! only the owner commits `approval.decided`), and the caller waits to see
//! that event.

use super::Decision;
use crate::{
    runtime::{error::RuntimeError, ids},
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
    // Junk ids never reach the store.
    if ids::parse(ids::APPROVAL, approval_id, "approval id").is_err() {
        return Err(not_pending());
    }
    let Some((thread_id, required_seq)) =
        forwarded::waiting_elsewhere(store.pool(), approval_id).await?
    else {
        return Err(not_pending());
    };
    forwarded::put(store.pool(), approval_id, decision.as_str(), remember).await?;
    let deadline = tokio::time::Instant::now() + ANSWER_WITHIN;
    let recorded = loop {
        let recorded =
            forwarded::decided(store.pool(), &thread_id, required_seq, approval_id).await?;
        if recorded.is_some() || tokio::time::Instant::now() >= deadline {
            break recorded;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Gone on every path: taken by the owner, left by a settlement that came
    // first (a timeout, the turn's end), or never taken.
    forwarded::remove(store.pool(), approval_id).await?;
    // The owner may have been committing as the deadline passed.
    let recorded = match recorded {
        Some(recorded) => Some(recorded),
        None => forwarded::decided(store.pool(), &thread_id, required_seq, approval_id).await?,
    };
    match recorded {
        // The owner's settlement may differ (the turn ended first: a
        // denial): report what was recorded.
        Some(recorded) => {
            let recorded = parse(&recorded).unwrap_or(Decision::Deny);
            Ok(ApprovalDecided {
                ok: true,
                approval_id: approval_id.to_string(),
                decision: recorded,
                delivered: recorded == decision,
            })
        }
        None => Err(RuntimeError::Conflict(format!(
            "approval {approval_id} is waiting in another codewhale process that did not \
             take the decision; is it still running?"
        ))),
    }
}

/// Forwarded decisions for the approvals in `waiting`, removed from the
/// store (other processes' rows are theirs; a forwarding caller always
/// removes its own).
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
