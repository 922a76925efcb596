//! Server functions of paired devices (phones): list, rename, revoke, and
//! minting a pairing link. The runtime holds every rule (who may pair,
//! link lifetimes); these only carry the calls. Rename and revoke answer
//! nothing: the panel reloads the list, and each reply type decoded in the
//! browser costs the wasm bundle its own serde code.

use crate::error::ServiceError;
use crate::protocol::{DeviceRecord, PairingCreated};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

#[server(prefix = "/api", endpoint = "devices", output = crate::api::Json)]
pub async fn list_devices() -> Result<Vec<DeviceRecord>, ServiceError> {
    runtime()?.devices().await
}

#[server(prefix = "/api", endpoint = "rename_device", output = crate::api::Json)]
pub async fn rename_device(id: String, name: String) -> Result<(), ServiceError> {
    let patch = crate::protocol::PatchDevice { name };
    runtime()?.rename_device(id, patch).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "revoke_device", output = crate::api::Json)]
pub async fn revoke_device(id: String) -> Result<(), ServiceError> {
    runtime()?.revoke_device(id).await.map(|_| ())
}

/// A one-time pairing link and its QR code, shown once to whoever asked.
#[server(prefix = "/api", endpoint = "create_pairing", output = crate::api::Json)]
pub async fn create_pairing(label: Option<String>) -> Result<PairingCreated, ServiceError> {
    let request = crate::protocol::CreatePairing {
        ttl_seconds: None,
        label: label.filter(|l| !l.trim().is_empty()),
    };
    runtime()?.create_pairing(request).await
}
