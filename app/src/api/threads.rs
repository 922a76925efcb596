//! Server functions of the workbench: threads, turns, approvals, user
//! input. Each checks the viewer, then calls the runtime service, the same
//! code the `/v1` handlers run; errors carry the HTTP status (`ServiceError`).

// Not imported by name: the server-fn macros define structs called
// `CreateThread`, `StartTurn`… for the calls themselves.
use crate::error::ServiceError;
use crate::protocol::{self as p, ProviderModels, ThreadDetail, ThreadRecord, ThreadSummary};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
fn runtime() -> Result<std::sync::Arc<dyn crate::service::RuntimeService>, ServiceError> {
    if !crate::viewer::Viewer::current().is_authenticated() {
        return Err(ServiceError::unauthorized());
    }
    crate::service::service()
}

#[server(prefix = "/api", endpoint = "threads")]
pub async fn list_threads(
    archived: bool,
    search: String,
) -> Result<Vec<ThreadSummary>, ServiceError> {
    let filter = crate::service::ThreadFilter {
        archived,
        search: Some(search),
    };
    runtime()?.threads(filter).await
}

#[server(prefix = "/api", endpoint = "thread")]
pub async fn load_thread(id: String) -> Result<ThreadDetail, ServiceError> {
    let mut detail = runtime()?.thread(id).await?;
    for item in &mut detail.items {
        item.trim_for_display();
    }
    Ok(detail)
}

#[server(prefix = "/api", endpoint = "providers")]
pub async fn list_providers() -> Result<Vec<ProviderModels>, ServiceError> {
    Ok(runtime()?.providers())
}

#[server(prefix = "/api", endpoint = "create_thread")]
pub async fn create_thread(request: p::CreateThread) -> Result<ThreadRecord, ServiceError> {
    runtime()?.create_thread(request).await
}

#[server(prefix = "/api", endpoint = "update_thread")]
pub async fn update_thread(
    id: String,
    patch: p::PatchThread,
) -> Result<ThreadRecord, ServiceError> {
    runtime()?.patch_thread(id, patch).await
}

#[server(prefix = "/api", endpoint = "fork_thread")]
pub async fn fork_thread(id: String) -> Result<ThreadRecord, ServiceError> {
    runtime()?.fork_thread(id).await
}

#[server(prefix = "/api", endpoint = "start_turn")]
pub async fn start_turn(id: String, prompt: String) -> Result<p::TurnStarted, ServiceError> {
    let request = p::StartTurn {
        prompt,
        ..Default::default()
    };
    runtime()?.start_turn(id, request).await
}

#[server(prefix = "/api", endpoint = "steer_turn")]
pub async fn steer_turn(id: String, turn: String, prompt: String) -> Result<(), ServiceError> {
    let request = p::SteerTurn { prompt };
    runtime()?.steer_turn(id, turn, request).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "interrupt_turn")]
pub async fn interrupt_turn(id: String, turn: String) -> Result<(), ServiceError> {
    runtime()?.interrupt_turn(id, turn).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "decide_approval")]
pub async fn decide_approval(id: String, allow: bool, remember: bool) -> Result<(), ServiceError> {
    runtime()?.decide_approval(id, allow, remember).await
}

#[server(prefix = "/api", endpoint = "answer_user_input")]
pub async fn answer_user_input(
    thread: String,
    input: String,
    answers: p::AnswerUserInput,
) -> Result<(), ServiceError> {
    runtime()?.answer_user_input(thread, input, answers).await
}
