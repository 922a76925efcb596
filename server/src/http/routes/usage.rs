//! `GET /v1/usage`.

use crate::http::{error::ApiError, extract::Query, state::AppState};
use axum::{extract::State, routing::get, Json, Router};
use protocol::{UsageQuery, UsageReport};

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/usage", get(report))
}

async fn report(
    State(state): State<AppState>,
    Query(query): Query<UsageQuery>,
) -> Result<Json<UsageReport>, ApiError> {
    Ok(Json(state.runtime.usage(query).await?))
}
