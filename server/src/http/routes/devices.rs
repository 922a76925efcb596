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
use axum::{extract::State, http::StatusCode};
use protocol::{
    CreatePairing, DeviceRecord, DeviceRevoked, ErrorEnvelope, PairingCreated, PatchDevice,
};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(create_pairing))
        .routes(routes!(rename, revoke))
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

/// Paired devices: all of them for the computer, itself for a device.
#[utoipa::path(get, path = "/v1/devices", tag = "devices", operation_id = "listDevices",
    responses(
        (status = 200, description = "The devices", body = Vec<DeviceRecord>),
        (status = 403, description = "The caller is neither the computer nor a paired device", body = ErrorEnvelope)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<DeviceRecord>>, ApiError> {
    Ok(axum::Json(
        state.runtime.devices().list(caller.manager()?).await?,
    ))
}

/// Renames a device (the computer: any; a device: itself).
#[utoipa::path(patch, path = "/v1/devices/{id}", tag = "devices", operation_id = "renameDevice",
    params(("id" = String, Path, description = "Device id")),
    request_body = PatchDevice,
    responses(
        (status = 200, description = "The device", body = DeviceRecord),
        (status = 403, description = "Not the computer, and not this device", body = ErrorEnvelope),
        (status = 404, description = "No such device", body = ErrorEnvelope)))]
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

/// Revokes a device: its session ends and its open streams close at once.
#[utoipa::path(delete, path = "/v1/devices/{id}", tag = "devices", operation_id = "revokeDevice",
    params(("id" = String, Path, description = "Device id")),
    responses(
        (status = 200, description = "Revoked", body = DeviceRevoked),
        (status = 403, description = "Not the computer, and not this device", body = ErrorEnvelope),
        (status = 404, description = "No such device", body = ErrorEnvelope)))]
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

/// Mints a one-time pairing link (and its QR code) for a phone. Only the
/// computer may; the server must run with `--mobile`.
#[utoipa::path(post, path = "/v1/devices/pairings", tag = "devices", operation_id = "createPairing",
    request_body = CreatePairing,
    responses(
        (status = 201, description = "The link, its QR code and expiry", body = PairingCreated),
        (status = 403, description = "Only the computer mints pairing links", body = ErrorEnvelope),
        (status = 409, description = "This server does not pair phones (started without --mobile)", body = ErrorEnvelope)))]
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
