//! The workspace views: `/v1/threads/{id}/workspace/{browse,file,diff}`
//! (bound to the thread's own workspace) and `/v1/workspace/{browse,file,
//! status}` for the composer (only workspaces the runtime knows). Rules
//! and statuses: `runtime/workspace.rs`.

use crate::http::{
    error::ApiError,
    extract::{Path, Query},
    state::AppState,
};
use axum::{extract::State, Json};
use protocol::{
    ErrorEnvelope, WorkspaceDiff, WorkspaceFile, WorkspaceListing, WorkspacePathQuery,
    WorkspaceQuery, WorkspaceStatus, WorkspaceStatusQuery,
};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(thread_browse))
        .routes(routes!(thread_file))
        .routes(routes!(thread_diff))
        .routes(routes!(browse))
        .routes(routes!(file))
        .routes(routes!(status))
}

/// One directory of the thread's workspace: directories first, then by
/// name; what git ignores and `.git` are left out; links listed, never
/// followed.
#[utoipa::path(get, path = "/v1/threads/{id}/workspace/browse", tag = "workspace",
    operation_id = "browseThreadWorkspace",
    params(("id" = String, Path, description = "Thread id"), WorkspacePathQuery),
    responses(
        (status = 200, description = "The listing", body = WorkspaceListing),
        (status = 403, description = "The path leads outside the workspace", body = ErrorEnvelope),
        (status = 404, description = "No such thread, or nothing at the path", body = ErrorEnvelope),
        (status = 409, description = "The thread has no workspace or it is gone, or the path is not a directory", body = ErrorEnvelope)))]
async fn thread_browse(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<WorkspacePathQuery>,
) -> Result<Json<WorkspaceListing>, ApiError> {
    Ok(Json(
        state.runtime.browse_thread_workspace(&id, query).await?,
    ))
}

/// One file of the thread's workspace: text only (a binary file has
/// `binary: true` and no content), the first 512 KiB (`truncated`).
#[utoipa::path(get, path = "/v1/threads/{id}/workspace/file", tag = "workspace",
    operation_id = "readThreadWorkspaceFile",
    params(("id" = String, Path, description = "Thread id"), WorkspacePathQuery),
    responses(
        (status = 200, description = "The file", body = WorkspaceFile),
        (status = 403, description = "The path leads outside the workspace", body = ErrorEnvelope),
        (status = 404, description = "No such thread, or nothing at the path", body = ErrorEnvelope),
        (status = 409, description = "The thread has no workspace or it is gone, or the path is not a regular file", body = ErrorEnvelope)))]
async fn thread_file(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<WorkspacePathQuery>,
) -> Result<Json<WorkspaceFile>, ApiError> {
    Ok(Json(state.runtime.read_thread_file(&id, query).await?))
}

/// The thread's workspace against HEAD: tracked changes (renames
/// detected) and untracked files, as hunks of lines. Computed without a
/// shell; link targets and binary contents are never sent; bounded by
/// `limits` (a cut sets `truncated`).
#[utoipa::path(get, path = "/v1/threads/{id}/workspace/diff", tag = "workspace",
    operation_id = "getThreadWorkspaceDiff",
    params(("id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "The diff", body = WorkspaceDiff),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "The thread has no workspace, it is gone, or it is not a git repository", body = ErrorEnvelope)))]
async fn thread_diff(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<WorkspaceDiff>, ApiError> {
    Ok(Json(state.runtime.thread_diff(&id).await?))
}

/// One directory of a workspace the runtime knows (its default workspace
/// or a thread's), for the composer.
#[utoipa::path(get, path = "/v1/workspace/browse", tag = "workspace",
    operation_id = "browseWorkspace",
    params(WorkspaceQuery),
    responses(
        (status = 200, description = "The listing", body = WorkspaceListing),
        (status = 403, description = "Not a workspace the runtime knows, or the path leads outside it", body = ErrorEnvelope),
        (status = 404, description = "Nothing at the path", body = ErrorEnvelope),
        (status = 409, description = "The workspace is gone, or the path is not a directory", body = ErrorEnvelope)))]
async fn browse(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<WorkspaceListing>, ApiError> {
    Ok(Json(state.runtime.browse_workspace(query).await?))
}

/// One file of a workspace the runtime knows, as the thread-bound route.
#[utoipa::path(get, path = "/v1/workspace/file", tag = "workspace",
    operation_id = "readWorkspaceFile",
    params(WorkspaceQuery),
    responses(
        (status = 200, description = "The file", body = WorkspaceFile),
        (status = 403, description = "Not a workspace the runtime knows, or the path leads outside it", body = ErrorEnvelope),
        (status = 404, description = "Nothing at the path", body = ErrorEnvelope),
        (status = 409, description = "The workspace is gone, or the path is not a regular file", body = ErrorEnvelope)))]
async fn file(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<WorkspaceFile>, ApiError> {
    Ok(Json(state.runtime.read_workspace_file(query).await?))
}

/// Branch, head, dirtiness, upstream with ahead/behind, and change counts,
/// read now (`is_git: false` outside a repository).
#[utoipa::path(get, path = "/v1/workspace/status", tag = "workspace",
    operation_id = "getWorkspaceStatus",
    params(WorkspaceStatusQuery),
    responses(
        (status = 200, description = "The status", body = WorkspaceStatus),
        (status = 403, description = "Not a workspace the runtime knows", body = ErrorEnvelope),
        (status = 409, description = "The workspace is gone", body = ErrorEnvelope)))]
async fn status(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceStatusQuery>,
) -> Result<Json<WorkspaceStatus>, ApiError> {
    Ok(Json(state.runtime.workspace_status(query).await?))
}
