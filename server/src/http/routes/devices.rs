//! `/v1/devices`: paired phones, listed, renamed and revoked, and
//! `POST /v1/devices/pairings` to mint a one-time pairing link.

use crate::http::{
    auth::{DeviceId, Viewer},
    error::ApiError,
    extract::{Json, Path},
    pairing::PairingLinks,
    state::AppState,
};
use axum::{
    extract::State,
    http::StatusCode,
    routing::{get, patch, post},
    Extension, Router,
};
use protocol::{CreatePairing, DeviceRecord, DeviceRevoked, PairingCreated, PatchDevice};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/devices", get(list))
        .route("/v1/devices/pairings", post(create_pairing))
        .route("/v1/devices/{id}", patch(rename).delete(revoke))
}

fn current(device: Option<Extension<DeviceId>>) -> Option<String> {
    device.map(|Extension(DeviceId(id))| id)
}

async fn list(
    State(state): State<AppState>,
    device: Option<Extension<DeviceId>>,
) -> Result<axum::Json<Vec<DeviceRecord>>, ApiError> {
    let current = current(device);
    Ok(axum::Json(
        state.runtime.devices().list(current.as_deref()).await?,
    ))
}

async fn rename(
    State(state): State<AppState>,
    device: Option<Extension<DeviceId>>,
    Path(id): Path<String>,
    Json(body): Json<PatchDevice>,
) -> Result<axum::Json<DeviceRecord>, ApiError> {
    let current = current(device);
    let renamed = state
        .runtime
        .devices()
        .rename(&id, &body.name, current.as_deref())
        .await?;
    Ok(axum::Json(renamed))
}

async fn revoke(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<DeviceRevoked>, ApiError> {
    state.runtime.devices().revoke(&id).await?;
    Ok(axum::Json(DeviceRevoked { id, revoked: true }))
}

async fn create_pairing(
    State(state): State<AppState>,
    Extension(viewer): Extension<Viewer>,
    Json(body): Json<CreatePairing>,
) -> Result<(StatusCode, axum::Json<PairingCreated>), ApiError> {
    let by_device = viewer == Viewer::Device;
    let created = PairingLinks::create(state.pairing.as_deref(), &state.runtime, by_device, body)?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}
