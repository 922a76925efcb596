//! `/v1/apps/mcp`: the MCP servers of `config.toml`, their state in this
//! process, and their tools.

use crate::http::{
    error::ApiError,
    extract::{Json, Path, Query},
    state::AppState,
};
use axum::{extract::State, http::StatusCode};
use protocol::{
    CreateMcpServer, ErrorEnvelope, ListMcpTools, McpServerRecord, McpServers, McpTools,
    PatchMcpServer,
};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(get_one, patch, delete))
        .routes(routes!(reload))
        .routes(routes!(tools))
}

/// Every configured server and where it stands in this process. Read from
/// `config.toml` each time; environment and header values are never shown.
#[utoipa::path(get, path = "/v1/apps/mcp/servers", tag = "mcp", operation_id = "listMcpServers",
    responses(
        (status = 200, description = "The servers", body = McpServers),
        (status = 409, description = "config.toml cannot be read", body = ErrorEnvelope)))]
async fn list(State(state): State<AppState>) -> Result<axum::Json<McpServers>, ApiError> {
    Ok(axum::Json(state.runtime.list_mcp_servers().await?))
}

/// Adds a server to `config.toml` (`command` for stdio, `url` for
/// streamable HTTP); it starts when a turn or a tools listing first needs it.
#[utoipa::path(post, path = "/v1/apps/mcp/servers", tag = "mcp", operation_id = "createMcpServer",
    request_body = CreateMcpServer,
    responses(
        (status = 201, description = "Added", body = McpServerRecord),
        (status = 400, description = "A bad name, variable or header name, or timeout; neither or both of command and url", body = ErrorEnvelope),
        (status = 409, description = "A server of that name exists, too many servers, a field that does not fit the transport, an unusable url, or config.toml cannot be edited", body = ErrorEnvelope)))]
async fn create(
    State(state): State<AppState>,
    Json(request): Json<CreateMcpServer>,
) -> Result<(StatusCode, axum::Json<McpServerRecord>), ApiError> {
    let server = state.runtime.add_mcp_server(request).await?;
    Ok((StatusCode::CREATED, axum::Json(server)))
}

#[utoipa::path(get, path = "/v1/apps/mcp/servers/{name}", tag = "mcp", operation_id = "getMcpServer",
    params(("name" = String, Path, description = "The server's name")),
    responses(
        (status = 200, description = "The server", body = McpServerRecord),
        (status = 404, description = "No such server", body = ErrorEnvelope),
        (status = 409, description = "config.toml cannot be read", body = ErrorEnvelope)))]
async fn get_one(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<axum::Json<McpServerRecord>, ApiError> {
    Ok(axum::Json(state.runtime.mcp_server(&name).await?))
}

/// Changes a server; if it runs, it is stopped and starts again as changed
/// on its next use.
#[utoipa::path(patch, path = "/v1/apps/mcp/servers/{name}", tag = "mcp", operation_id = "patchMcpServer",
    params(("name" = String, Path, description = "The server's name")),
    request_body = PatchMcpServer,
    responses(
        (status = 200, description = "The server, changed", body = McpServerRecord),
        (status = 400, description = "A bad variable or header name, or timeout", body = ErrorEnvelope),
        (status = 404, description = "No such server", body = ErrorEnvelope),
        (status = 409, description = "A field of the other transport, an unusable value, or config.toml cannot be edited", body = ErrorEnvelope)))]
async fn patch(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(request): Json<PatchMcpServer>,
) -> Result<axum::Json<McpServerRecord>, ApiError> {
    Ok(axum::Json(
        state.runtime.patch_mcp_server(&name, request).await?,
    ))
}

/// Removes a server from `config.toml` and stops it.
#[utoipa::path(delete, path = "/v1/apps/mcp/servers/{name}", tag = "mcp", operation_id = "deleteMcpServer",
    params(("name" = String, Path, description = "The server's name")),
    responses(
        (status = 204, description = "Removed"),
        (status = 404, description = "No such server", body = ErrorEnvelope),
        (status = 409, description = "config.toml cannot be edited", body = ErrorEnvelope)))]
async fn delete(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.runtime.delete_mcp_server(&name).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Stops the server and starts it again now; answers when it is ready or
/// failed, or after two seconds with it still `starting`.
#[utoipa::path(post, path = "/v1/apps/mcp/servers/{name}/reload", tag = "mcp", operation_id = "reloadMcpServer",
    params(("name" = String, Path, description = "The server's name")),
    responses(
        (status = 200, description = "The server as it stands now", body = McpServerRecord),
        (status = 404, description = "No such server", body = ErrorEnvelope),
        (status = 409, description = "The server is switched off, or config.toml cannot be read", body = ErrorEnvelope)))]
async fn reload(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<axum::Json<McpServerRecord>, ApiError> {
    Ok(axum::Json(state.runtime.reload_mcp_server(&name).await?))
}

/// The tools of the enabled servers (or one), starting any not running;
/// a server still starting after two seconds is listed `starting`.
#[utoipa::path(get, path = "/v1/apps/mcp/tools", tag = "mcp", operation_id = "listMcpTools",
    params(ListMcpTools),
    responses(
        (status = 200, description = "The tools, and where each server stands", body = McpTools),
        (status = 404, description = "No such server", body = ErrorEnvelope),
        (status = 409, description = "config.toml cannot be read", body = ErrorEnvelope)))]
async fn tools(
    State(state): State<AppState>,
    Query(query): Query<ListMcpTools>,
) -> Result<axum::Json<McpTools>, ApiError> {
    Ok(axum::Json(state.runtime.mcp_tools(query).await?))
}
