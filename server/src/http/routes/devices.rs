//! `/v1/devices`: paired phones, listed, renamed and revoked, and
//! `POST /v1/devices/pairings` to mint a one-time pairing link.

use crate::http::{
    auth::{DeviceId, Viewer},
    error::ApiError,
    extract::{Json, Path},
    pairing::PairingLinks,
    state::AppState,
};
use crate::runtime::devices::Manager;
use axum::{
    extract::State,
    http::StatusCode,
    routing::{get, patch, post},
    Router,
};
use protocol::{CreatePairing, DeviceRecord, DeviceRevoked, PairingCreated, PatchDevice};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/devices", get(list))
        .route("/v1/devices/pairings", post(create_pairing))
        .route("/v1/devices/{id}", patch(rename).delete(revoke))
}

/// Who is asking, as a device manager.
struct Caller {
    viewer: Viewer,
    device: Option<String>,
}

impl Caller {
    fn manager(&self) -> Result<Manager<'_>, ApiError> {
        self.viewer
            .manager(self.device.as_deref())
            .ok_or(ApiError::Forbidden(
                "only the computer or a paired device manages devices",
            ))
    }
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Caller {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(Caller {
            viewer: parts
                .extensions
                .get::<Viewer>()
                .copied()
                .unwrap_or(Viewer::Anonymous),
            device: parts.extensions.get::<DeviceId>().map(|d| d.0.clone()),
        })
    }
}

async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<DeviceRecord>>, ApiError> {
    Ok(axum::Json(
        state.runtime.devices().list(caller.manager()?).await?,
    ))
}

async fn rename(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<PatchDevice>,
) -> Result<axum::Json<DeviceRecord>, ApiError> {
    let renamed = state
        .runtime
        .devices()
        .rename(caller.manager()?, &id, &body.name)
        .await?;
    Ok(axum::Json(renamed))
}

async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<DeviceRevoked>, ApiError> {
    state
        .runtime
        .devices()
        .revoke(caller.manager()?, &id)
        .await?;
    Ok(axum::Json(DeviceRevoked { id, revoked: true }))
}

async fn create_pairing(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreatePairing>,
) -> Result<(StatusCode, axum::Json<PairingCreated>), ApiError> {
    let by_computer = caller.viewer.is_computer();
    let created =
        PairingLinks::create(state.pairing.as_deref(), &state.runtime, by_computer, body)?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}
