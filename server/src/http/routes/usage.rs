//! `GET /v1/usage`.

use crate::http::{error::ApiError, extract::Query, state::AppState};
use axum::{extract::State, Json};
use protocol::{UsageQuery, UsageReport};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(report))
}

/// Tokens and cost, totalled and grouped.
#[utoipa::path(get, path = "/v1/usage", tag = "usage", operation_id = "getUsage",
    params(UsageQuery),
    responses((status = 200, description = "The report", body = UsageReport)))]
async fn report(
    State(state): State<AppState>,
    Query(query): Query<UsageQuery>,
) -> Result<Json<UsageReport>, ApiError> {
    Ok(Json(state.runtime.usage(query).await?))
}
