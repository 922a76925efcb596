//! Server functions of the workbench: threads, turns, approvals, user
//! input. Each calls the runtime service — the same operations the `/v1`
//! handlers call — which the server provides to signed-in viewers only;
//! errors carry the kind and HTTP status (`ServiceError`).

// Not imported by name: the server-fn macros define structs called
// `CreateThread`, `StartTurn`… for the calls themselves.
use crate::error::ServiceError;
use crate::protocol::{
    self as p, ProviderModels, ThreadDetail, ThreadRecord, ThreadSummary, TurnItemRecord,
};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

/// The rail's list: active or archived threads, newest first.
#[server(prefix = "/api", endpoint = "threads", output = crate::api::Json)]
pub async fn list_threads(
    archived: bool,
    search: String,
) -> Result<Vec<ThreadSummary>, ServiceError> {
    let query = p::ListThreads {
        limit: Some(200),
        search: Some(search),
        archived_only: archived,
        include_archived: false,
    };
    runtime()?.threads(query).await
}

/// A thread as its page opens: the snapshot holding only the items from
/// `from` on (the newest `live::WINDOW` when `from` is not given), and how
/// many come before them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThreadPage {
    pub detail: ThreadDetail,
    pub earlier: usize,
}

#[server(prefix = "/api", endpoint = "thread", output = crate::api::Json)]
pub async fn load_thread(id: String, from: Option<usize>) -> Result<ThreadPage, ServiceError> {
    let mut detail = runtime()?.thread(id).await?;
    let count = detail.items.len();
    let start = from
        .unwrap_or_else(|| count.saturating_sub(crate::live::WINDOW))
        .min(count);
    detail.items.drain(..start);
    trim_for_display(&mut detail.items);
    Ok(ThreadPage {
        detail,
        earlier: start,
    })
}

/// The thread's items `start..end` (clamped to what it holds), in order.
#[server(prefix = "/api", endpoint = "thread_items", output = crate::api::Json)]
pub async fn load_items(
    id: String,
    start: usize,
    end: usize,
) -> Result<Vec<TurnItemRecord>, ServiceError> {
    let mut items = runtime()?.thread_items(id, start, end).await?;
    trim_for_display(&mut items);
    Ok(items)
}

/// Leaves out what the workbench never shows. The Changes panel groups
/// file changes by turn and the transcript marks undone turns' messages:
/// those two kinds keep their turn.
#[cfg(feature = "ssr")]
fn trim_for_display(items: &mut [TurnItemRecord]) {
    for item in items {
        let turn = std::mem::take(&mut item.turn_id);
        item.trim_for_display();
        if matches!(
            item.kind,
            p::ItemKind::FileChange | p::ItemKind::UserMessage
        ) {
            item.turn_id = turn;
        }
    }
}

#[server(prefix = "/api", endpoint = "providers", output = crate::api::Json)]
pub async fn list_providers() -> Result<Vec<ProviderModels>, ServiceError> {
    Ok(runtime()?.providers())
}

#[server(prefix = "/api", endpoint = "create_thread", output = crate::api::Json)]
pub async fn create_thread(request: p::CreateThread) -> Result<ThreadRecord, ServiceError> {
    runtime()?.create_thread(request).await
}

#[server(prefix = "/api", endpoint = "update_thread", output = crate::api::Json)]
pub async fn update_thread(
    id: String,
    patch: p::PatchThread,
) -> Result<ThreadRecord, ServiceError> {
    runtime()?.patch_thread(id, patch).await
}

#[server(prefix = "/api", endpoint = "fork_thread", output = crate::api::Json)]
pub async fn fork_thread(id: String) -> Result<ThreadRecord, ServiceError> {
    runtime()?.fork_thread(id).await
}

#[server(prefix = "/api", endpoint = "start_turn", output = crate::api::Json)]
pub async fn start_turn(id: String, prompt: String) -> Result<p::TurnStarted, ServiceError> {
    let request = p::StartTurn {
        prompt,
        ..Default::default()
    };
    runtime()?.start_turn(id, request).await
}

#[server(prefix = "/api", endpoint = "steer_turn", output = crate::api::Json)]
pub async fn steer_turn(id: String, turn: String, prompt: String) -> Result<(), ServiceError> {
    let request = p::SteerTurn { prompt };
    runtime()?.steer_turn(id, turn, request).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "interrupt_turn", output = crate::api::Json)]
pub async fn interrupt_turn(id: String, turn: String) -> Result<(), ServiceError> {
    runtime()?.interrupt_turn(id, turn).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "decide_approval", output = crate::api::Json)]
pub async fn decide_approval(
    id: String,
    decision: p::ApprovalDecision,
    remember: bool,
) -> Result<(), ServiceError> {
    let body = p::DecideApproval { decision, remember };
    runtime()?.decide_approval(id, body).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "answer_user_input", output = crate::api::Json)]
pub async fn answer_user_input(
    thread: String,
    input: String,
    answers: p::AnswerUserInput,
) -> Result<(), ServiceError> {
    runtime()?
        .answer_user_input(thread, input, answers)
        .await
        .map(|_| ())
}
