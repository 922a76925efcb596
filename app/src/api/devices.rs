//! Server functions of paired devices (phones): list, rename, revoke, and
//! minting a pairing link. The runtime holds every rule (who may pair,
//! link lifetimes); these only carry the calls.

use crate::error::ServiceError;
use crate::protocol::{self as p, DeviceRecord, PairingCreated};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

#[server(prefix = "/api", endpoint = "devices")]
pub async fn list_devices() -> Result<Vec<DeviceRecord>, ServiceError> {
    runtime()?.devices().await
}

#[server(prefix = "/api", endpoint = "rename_device")]
pub async fn rename_device(id: String, name: String) -> Result<DeviceRecord, ServiceError> {
    runtime()?.rename_device(id, p::PatchDevice { name }).await
}

#[server(prefix = "/api", endpoint = "revoke_device")]
pub async fn revoke_device(id: String) -> Result<p::DeviceRevoked, ServiceError> {
    runtime()?.revoke_device(id).await
}

/// A one-time pairing link and its QR code, shown once to whoever asked.
#[server(prefix = "/api", endpoint = "create_pairing")]
pub async fn create_pairing(label: Option<String>) -> Result<PairingCreated, ServiceError> {
    let request = p::CreatePairing {
        ttl_seconds: None,
        label: label.filter(|l| !l.trim().is_empty()),
    };
    runtime()?.create_pairing(request).await
}
