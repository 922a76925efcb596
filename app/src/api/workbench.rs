use crate::{
    error::ServiceError,
    protocol::{Ping, Workbench},
};
use leptos::prelude::*;

/// The signed-in workbench, or `None` for a visitor without a session (who
/// must see no data at all).
#[server(prefix = "/api", endpoint = "workbench", output = crate::api::Json)]
pub async fn load_workbench() -> Result<Option<Workbench>, ServiceError> {
    Ok(crate::service::service()
        .ok()
        .map(|runtime| runtime.workbench()))
}

/// A round trip through the authenticated server-function path.
#[server(prefix = "/api", endpoint = "ping", output = crate::api::Json)]
pub async fn check_connection() -> Result<Ping, ServiceError> {
    crate::service::service()?;
    let server_time_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default();
    Ok(Ping { server_time_ms })
}
