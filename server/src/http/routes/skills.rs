//! `/v1/skills`: the skills offered to the model, and their toggles.

use crate::http::{
    error::ApiError,
    extract::{Json, Path, Query},
    state::AppState,
};
use axum::{extract::State, http::StatusCode};
use protocol::{CreateSkill, ErrorEnvelope, ImportSkill, ListSkills, PatchSkill, SkillRecord};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(import))
        .routes(routes!(patch))
}

/// Every skill of the home and the workspace, by name; a workspace skill
/// hides a global one of its name. Read from disk each time, so another
/// codewhale process's toggle shows at once.
#[utoipa::path(get, path = "/v1/skills", tag = "skills", operation_id = "listSkills",
    params(ListSkills),
    responses(
        (status = 200, description = "The skills", body = Vec<SkillRecord>),
        (status = 403, description = "Not a workspace this runtime knows", body = ErrorEnvelope),
        (status = 409, description = "The workspace is gone", body = ErrorEnvelope)))]
async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListSkills>,
) -> Result<axum::Json<Vec<SkillRecord>>, ApiError> {
    Ok(axum::Json(state.runtime.list_skills(query).await?))
}

/// Writes a new skill (`<name>/SKILL.md`), enabled.
#[utoipa::path(post, path = "/v1/skills", tag = "skills", operation_id = "createSkill",
    request_body = CreateSkill,
    responses(
        (status = 201, description = "Created", body = SkillRecord),
        (status = 400, description = "A bad name or an empty description", body = ErrorEnvelope),
        (status = 403, description = "Not a workspace this runtime knows", body = ErrorEnvelope),
        (status = 409, description = "A skill of that name is already there, or the workspace is gone", body = ErrorEnvelope),
        (status = 413, description = "The SKILL.md would be too large", body = ErrorEnvelope)))]
async fn create(
    State(state): State<AppState>,
    Json(request): Json<CreateSkill>,
) -> Result<(StatusCode, axum::Json<SkillRecord>), ApiError> {
    let skill = state.runtime.create_skill(request).await?;
    Ok((StatusCode::CREATED, axum::Json(skill)))
}

/// Copies a skill from a folder or an archive on this machine, checked
/// first and never run.
#[utoipa::path(post, path = "/v1/skills/import", tag = "skills", operation_id = "importSkill",
    request_body = ImportSkill,
    responses(
        (status = 201, description = "Imported", body = SkillRecord),
        (status = 400, description = "The path is not absolute, or a workspace was given for a global skill", body = ErrorEnvelope),
        (status = 403, description = "Not a workspace this runtime knows", body = ErrorEnvelope),
        (status = 409, description = "Nothing readable at the path; not a skill (no valid SKILL.md, a link or special file, a path leaving the folder, not a zip or tar archive); or a skill of that name is already there (and replace is false)", body = ErrorEnvelope),
        (status = 413, description = "Too many files or bytes", body = ErrorEnvelope)))]
async fn import(
    State(state): State<AppState>,
    Json(request): Json<ImportSkill>,
) -> Result<(StatusCode, axum::Json<SkillRecord>), ApiError> {
    let skill = state.runtime.import_skill(request).await?;
    Ok((StatusCode::CREATED, axum::Json(skill)))
}

/// Switches a skill on or off for every codewhale process on this home.
#[utoipa::path(patch, path = "/v1/skills/{name}", tag = "skills", operation_id = "patchSkill",
    params(("name" = String, Path, description = "The skill's name")),
    request_body = PatchSkill,
    responses(
        (status = 200, description = "The skill, toggled", body = SkillRecord),
        (status = 403, description = "Not a workspace this runtime knows", body = ErrorEnvelope),
        (status = 404, description = "No such skill", body = ErrorEnvelope),
        (status = 409, description = "The toggle could not be saved", body = ErrorEnvelope)))]
async fn patch(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(request): Json<PatchSkill>,
) -> Result<axum::Json<SkillRecord>, ApiError> {
    Ok(axum::Json(state.runtime.patch_skill(&name, request).await?))
}
