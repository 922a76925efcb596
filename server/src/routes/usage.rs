//! `GET /v1/usage`.

use crate::{
    error::ApiError,
    extract::Query,
    runtime::usage::{self, UsageQuery},
    state::AppState,
};
use axum::{extract::State, routing::get, Json, Router};
use protocol::UsageReport;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/usage", get(report))
}

async fn report(
    State(state): State<AppState>,
    Query(query): Query<UsageQuery>,
) -> Result<Json<UsageReport>, ApiError> {
    Ok(Json(
        usage::report(&state.store, &state.runtime.pricing, query).await?,
    ))
}
