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
    response::sse::{Event, KeepAlive, Sse},
    routing::{get, post},
    Router,
};
use futures::Stream;
use protocol::{CreateThread, ListThreads, PatchThread, ThreadDetail, ThreadRecord, ThreadSummary};
use serde::Deserialize;
use std::{convert::Infallible, time::Duration};
use tokio_stream::{wrappers::ReceiverStream, StreamExt};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/threads", get(list).post(create))
        .route("/v1/threads/summary", get(summary))
        .route("/v1/threads/{id}", get(detail).patch(patch))
        .route("/v1/threads/{id}/events", get(events))
        .route("/v1/threads/{id}/fork", post(fork))
        .route("/v1/threads/{id}/resume", post(resume))
}

async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListThreads>,
) -> Result<axum::Json<Vec<ThreadRecord>>, ApiError> {
    Ok(axum::Json(state.runtime.list_threads(&query).await?))
}

async fn summary(
    State(state): State<AppState>,
    Query(query): Query<ListThreads>,
) -> Result<axum::Json<Vec<ThreadSummary>>, ApiError> {
    Ok(axum::Json(state.runtime.thread_summaries(&query).await?))
}

async fn create(
    State(state): State<AppState>,
    Json(request): Json<CreateThread>,
) -> Result<(StatusCode, axum::Json<ThreadRecord>), ApiError> {
    let thread = state.runtime.create_thread(request).await?;
    Ok((StatusCode::CREATED, axum::Json(thread)))
}

async fn detail(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<ThreadDetail>, ApiError> {
    Ok(axum::Json(state.runtime.thread(&id).await?))
}

async fn patch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<PatchThread>,
) -> Result<axum::Json<ThreadRecord>, ApiError> {
    Ok(axum::Json(state.runtime.patch_thread(&id, request).await?))
}

async fn fork(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, axum::Json<ThreadRecord>), ApiError> {
    Ok((
        StatusCode::CREATED,
        axum::Json(state.runtime.fork_thread(&id).await?),
    ))
}

async fn resume(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<ThreadRecord>, ApiError> {
    Ok(axum::Json(state.runtime.resume_thread(&id).await?))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventsQuery {
    since_seq: Option<i64>,
    replay_limit: Option<i64>,
}

/// SSE. The cursor is `since_seq`, else `Last-Event-ID` (what a browser's
/// EventSource sends when it reconnects), else 0.
async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let since_seq = match query.since_seq {
        Some(seq) => seq,
        None => last_event_id(&headers)?.unwrap_or(0),
    };
    let cursor = Cursor {
        since_seq,
        replay_limit: query.replay_limit,
    };
    let frames = state.runtime.subscribe(&id, cursor).await?;
    let events = ReceiverStream::new(frames).map(|frame| {
        Ok(Event::default()
            .id(frame.seq.to_string())
            .event(frame.event)
            .data(frame.data))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

fn last_event_id(headers: &HeaderMap) -> Result<Option<i64>, ApiError> {
    headers
        .get("last-event-id")
        .map(|value| {
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<i64>().ok())
                .ok_or_else(|| ApiError::bad_request("Last-Event-ID must be an event seq"))
        })
        .transpose()
}
