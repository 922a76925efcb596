//! Server functions of the Changes and Files panels and of taking turns
//! back: the thread-bound workspace views, snapshots, undo, retry, edit and
//! fork-at-message. Like every server function they only call the runtime
//! service; the rules (confinement, compare-and-swap, who may call) live
//! in the runtime and the HTTP edge.

// Not imported by name: the server-fn macros define structs named after
// each function, and protocol names (`EditLastTurn`…) would collide.
use crate::error::ServiceError;
use crate::protocol as p;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

/// One directory of the thread's workspace (`None`: its root).
#[server(prefix = "/api", endpoint = "workspace_browse", output = crate::api::Json)]
pub async fn browse_workspace(
    id: String,
    path: Option<String>,
) -> Result<p::WorkspaceListing, ServiceError> {
    runtime()?.browse(id, p::WorkspacePathQuery { path }).await
}

#[server(prefix = "/api", endpoint = "workspace_file", output = crate::api::Json)]
pub async fn read_workspace_file(
    id: String,
    path: String,
) -> Result<p::WorkspaceFile, ServiceError> {
    let query = p::WorkspacePathQuery { path: Some(path) };
    runtime()?.file(id, query).await
}

/// The working tree against HEAD.
#[server(prefix = "/api", endpoint = "workspace_diff", output = crate::api::Json)]
pub async fn working_tree_diff(id: String) -> Result<p::WorkspaceDiff, ServiceError> {
    runtime()?.diff(id).await
}

#[server(prefix = "/api", endpoint = "thread_snapshots", output = crate::api::Json)]
pub async fn list_snapshots(id: String) -> Result<Vec<p::SnapshotRecord>, ServiceError> {
    runtime()?.thread_snapshots(id).await
}

#[server(prefix = "/api", endpoint = "undo", output = crate::api::Json)]
pub async fn undo_last_turn(id: String) -> Result<p::Undone, ServiceError> {
    runtime()?.undo(id).await
}

#[server(prefix = "/api", endpoint = "retry", output = crate::api::Json)]
pub async fn retry_last_turn(id: String) -> Result<(), ServiceError> {
    let request = p::RetryTurn::default();
    runtime()?.retry(id, request).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "edit_last_turn", output = crate::api::Json)]
pub async fn edit_last_prompt(id: String, prompt: String) -> Result<(), ServiceError> {
    let request = p::EditLastTurn { prompt };
    runtime()?.edit_last_turn(id, request).await.map(|_| ())
}

/// A new thread ending before `item_id`; returns its id.
#[server(prefix = "/api", endpoint = "fork_at_user_message", output = crate::api::Json)]
pub async fn fork_at_message(id: String, item_id: String) -> Result<String, ServiceError> {
    let request = p::ForkAtUserMessage { item_id };
    let forked = runtime()?.fork_at_user_message(id, request).await?;
    Ok(forked.thread.id)
}

#[server(prefix = "/api", endpoint = "restore_snapshot", output = crate::api::Json)]
pub async fn restore_files(id: String, snapshot_id: String) -> Result<p::Restored, ServiceError> {
    let request = p::RestoreSnapshot { snapshot_id };
    runtime()?.restore_snapshot(id, request).await
}

/// Applies one review finding: a turn starts (its events show the rest).
#[server(prefix = "/api", endpoint = "review_apply", output = crate::api::Json)]
pub async fn apply_finding(id: String, finding_id: String) -> Result<(), ServiceError> {
    let request = p::ApplyReview {
        finding_ids: vec![finding_id],
    };
    runtime()?.apply_review(id, request).await.map(|_| ())
}

/// Reverts an applied review action; returns the action as it now is
/// (no event says so: the page updates its item from this).
#[server(prefix = "/api", endpoint = "review_revert", output = crate::api::Json)]
pub async fn revert_action(
    id: String,
    action_id: String,
) -> Result<p::TurnItemRecord, ServiceError> {
    let request = p::RevertReview { action_id };
    let mut action = runtime()?.revert_review(id, request).await?.action;
    let turn = std::mem::take(&mut action.turn_id);
    action.trim_for_display();
    action.turn_id = turn;
    Ok(action)
}
