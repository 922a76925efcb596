//! `/v1/sessions`: conversations saved as files, and a thread saved as one
//! (`POST /v1/threads/{id}/persist-session`).

use crate::http::{
    error::ApiError,
    extract::{Json, Path, Query},
    state::AppState,
};
use axum::{extract::State, http::StatusCode};
use protocol::{
    ErrorEnvelope, ListSessions, PersistSession, SessionDetail, SessionMetadata, Sessions,
    ThreadRecord,
};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(get_one, delete))
        .routes(routes!(resume_thread))
        .routes(routes!(persist))
}

/// Saved sessions, newest first; unreadable files are skipped.
#[utoipa::path(get, path = "/v1/sessions", tag = "sessions", operation_id = "listSessions",
    params(ListSessions),
    responses(
        (status = 200, description = "The sessions", body = Sessions),
        (status = 400, description = "A limit out of range", body = ErrorEnvelope)))]
async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListSessions>,
) -> Result<axum::Json<Sessions>, ApiError> {
    Ok(axum::Json(state.runtime.list_sessions(query).await?))
}

/// The session: its metadata, messages and system prompt.
#[utoipa::path(get, path = "/v1/sessions/{id}", tag = "sessions", operation_id = "getSession",
    params(("id" = String, Path, description = "The session's id")),
    responses(
        (status = 200, description = "The session", body = SessionDetail),
        (status = 404, description = "No such session", body = ErrorEnvelope),
        (status = 409, description = "The file is not a session codewhale can read", body = ErrorEnvelope)))]
async fn get_one(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<SessionDetail>, ApiError> {
    Ok(axum::Json(state.runtime.session(&id).await?))
}

#[utoipa::path(delete, path = "/v1/sessions/{id}", tag = "sessions", operation_id = "deleteSession",
    params(("id" = String, Path, description = "The session's id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such session", body = ErrorEnvelope)))]
async fn delete(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.runtime.delete_session(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A new thread carrying the session's conversation (finished turns), in
/// its workspace if that still exists.
#[utoipa::path(post, path = "/v1/sessions/{id}/resume-thread", tag = "sessions", operation_id = "resumeSessionThread",
    params(("id" = String, Path, description = "The session's id")),
    responses(
        (status = 201, description = "The new thread", body = ThreadRecord),
        (status = 404, description = "No such session", body = ErrorEnvelope),
        (status = 409, description = "The file is not a session codewhale can read", body = ErrorEnvelope)))]
async fn resume_thread(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, axum::Json<ThreadRecord>), ApiError> {
    let thread = state.runtime.resume_session_as_thread(&id).await?;
    Ok((StatusCode::CREATED, axum::Json(thread)))
}

/// Saves the thread's conversation (the messages its model still sees, and
/// its system prompt) as a new session.
#[utoipa::path(post, path = "/v1/threads/{id}/persist-session", tag = "sessions", operation_id = "persistSession",
    params(("id" = String, Path, description = "The thread's id")),
    request_body = PersistSession,
    responses(
        (status = 201, description = "Saved", body = SessionMetadata),
        (status = 400, description = "A malformed thread id", body = ErrorEnvelope),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "The thread has no messages yet", body = ErrorEnvelope)))]
async fn persist(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<PersistSession>,
) -> Result<(StatusCode, axum::Json<SessionMetadata>), ApiError> {
    let saved = state.runtime.persist_session(&id, request).await?;
    Ok((StatusCode::CREATED, axum::Json(saved)))
}
