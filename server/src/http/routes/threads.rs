//! `/v1/threads`: threads and their event stream (SSE).

use crate::{
    http::{
        error::ApiError,
        extract::{Json, Path, Query},
        state::AppState,
    },
    runtime::stream::Cursor,
};
use axum::{
    extract::State,
    http::{HeaderMap, StatusCode},
};
use protocol::{
    CreateThread, ErrorEnvelope, ListThreads, PatchThread, ThreadDetail, ThreadRecord,
    ThreadSummary,
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(summary))
        .routes(routes!(detail, patch))
        .routes(routes!(events))
        .routes(routes!(fork))
        .routes(routes!(resume))
}

/// Threads, newest first.
#[utoipa::path(get, path = "/v1/threads", tag = "threads", operation_id = "listThreads",
    params(ListThreads),
    responses((status = 200, description = "The threads", body = Vec<ThreadRecord>)))]
async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListThreads>,
) -> Result<axum::Json<Vec<ThreadRecord>>, ApiError> {
    Ok(axum::Json(state.runtime.list_threads(&query).await?))
}

/// Threads with their git facts (branch, head, dirty) and latest turn.
#[utoipa::path(get, path = "/v1/threads/summary", tag = "threads", operation_id = "listThreadSummaries",
    params(ListThreads),
    responses((status = 200, description = "One row per thread", body = Vec<ThreadSummary>)))]
async fn summary(
    State(state): State<AppState>,
    Query(query): Query<ListThreads>,
) -> Result<axum::Json<Vec<ThreadSummary>>, ApiError> {
    Ok(axum::Json(state.runtime.thread_summaries(&query).await?))
}

/// Creates a thread (`thread.started` is its first event).
#[utoipa::path(post, path = "/v1/threads", tag = "threads", operation_id = "createThread",
    request_body = CreateThread,
    responses(
        (status = 201, description = "The new thread", body = ThreadRecord),
        (status = 409, description = "The workspace is not a directory on this machine, or dynamic tool names clash (twice, or with a built-in tool)", body = ErrorEnvelope)))]
async fn create(
    State(state): State<AppState>,
    Json(request): Json<CreateThread>,
) -> Result<(StatusCode, axum::Json<ThreadRecord>), ApiError> {
    let thread = state.runtime.create_thread(request).await?;
    Ok((StatusCode::CREATED, axum::Json(thread)))
}

/// The thread's snapshot: records, items, pending requests and the
/// `latest_seq` to subscribe from.
#[utoipa::path(get, path = "/v1/threads/{id}", tag = "threads", operation_id = "getThread",
    params(("id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "The snapshot", body = ThreadDetail),
        (status = 404, description = "No such thread", body = ErrorEnvelope)))]
async fn detail(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<ThreadDetail>, ApiError> {
    Ok(axum::Json(state.runtime.thread(&id).await?))
}

/// Renames, archives or changes a thread's settings.
#[utoipa::path(patch, path = "/v1/threads/{id}", tag = "threads", operation_id = "updateThread",
    params(("id" = String, Path, description = "Thread id")),
    request_body = PatchThread,
    responses(
        (status = 200, description = "The thread as it is now", body = ThreadRecord),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "The workspace is not a directory on this machine", body = ErrorEnvelope)))]
async fn patch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<PatchThread>,
) -> Result<axum::Json<ThreadRecord>, ApiError> {
    Ok(axum::Json(state.runtime.patch_thread(&id, request).await?))
}

/// Copies a thread's completed history into a new thread.
#[utoipa::path(post, path = "/v1/threads/{id}/fork", tag = "threads", operation_id = "forkThread",
    params(("id" = String, Path, description = "Thread id")),
    responses(
        (status = 201, description = "The new thread", body = ThreadRecord),
        (status = 404, description = "No such thread", body = ErrorEnvelope)))]
async fn fork(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, axum::Json<ThreadRecord>), ApiError> {
    Ok((
        StatusCode::CREATED,
        axum::Json(state.runtime.fork_thread(&id).await?),
    ))
}

/// Brings a thread back to active work (unarchives it).
#[utoipa::path(post, path = "/v1/threads/{id}/resume", tag = "threads", operation_id = "resumeThread",
    params(("id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "The thread", body = ThreadRecord),
        (status = 404, description = "No such thread", body = ErrorEnvelope)))]
async fn resume(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<ThreadRecord>, ApiError> {
    Ok(axum::Json(state.runtime.resume_thread(&id).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(super) struct EventsQuery {
    /// Replay events after this seq, then follow live. Wins over `Last-Event-ID`.
    since_seq: Option<i64>,
    /// Replay only the newest this-many events after the cursor (0–4096);
    /// the first event's `previous_seq` then shows what was skipped.
    replay_limit: Option<i64>,
}

impl EventsQuery {
    /// The cursor: `since_seq`, else `Last-Event-ID`, else 0. A malformed
    /// Last-Event-ID is refused even when since_seq wins.
    pub(super) fn cursor(&self, headers: &HeaderMap) -> Result<Cursor, ApiError> {
        let last_event_id = last_event_id(headers)?;
        Ok(Cursor {
            since_seq: self.since_seq.or(last_event_id).unwrap_or(0),
            replay_limit: self.replay_limit,
        })
    }
}

/// SSE. The cursor is `since_seq`, else `Last-Event-ID` (what a browser's
/// EventSource sends when it reconnects), else 0.
#[utoipa::path(get, path = "/v1/threads/{id}/events", tag = "events", operation_id = "streamThreadEvents",
    description = include_str!("../openapi/events.md"),
    params(
        ("id" = String, Path, description = "Thread id"),
        EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The last seq received (browsers' EventSource sends it on reconnect)")),
    responses(
        (status = 200, description = "The event stream: one SSE frame per event (`id:` = seq, `event:` = name, `data:` = the envelope as JSON), `: keep-alive` comments every 15 s",
            content_type = "text/event-stream", body = crate::http::openapi::StreamFrame),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "`since_seq` is ahead of every event this server has: the cursor is from another runtime (reload the thread)", body = ErrorEnvelope)))]
async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<axum::response::Response, ApiError> {
    let frames = state
        .runtime
        .subscribe(&id, query.cursor(&headers)?)
        .await?;
    Ok(crate::http::sse::response(frames))
}

/// The most digits a `Last-Event-ID` may have: every seq fits, and so does
/// every value that is accepted (the API document says the same).
pub const MAX_LAST_EVENT_ID_DIGITS: usize = 18;

/// `Last-Event-ID`, if sent: an event seq, in decimal digits only.
fn last_event_id(headers: &HeaderMap) -> Result<Option<i64>, ApiError> {
    headers
        .get("last-event-id")
        .map(|value| {
            let digits = value.as_bytes();
            let valid = (1..=MAX_LAST_EVENT_ID_DIGITS).contains(&digits.len())
                && digits.iter().all(u8::is_ascii_digit);
            valid
                .then(|| value.to_str().ok()?.parse::<i64>().ok())
                .flatten()
                .ok_or_else(|| ApiError::bad_request("Last-Event-ID must be an event seq"))
        })
        .transpose()
}
