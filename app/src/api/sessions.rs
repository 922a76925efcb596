//! Server functions of the sessions page; the runtime holds the rules.

use crate::error::ServiceError;
use crate::protocol::SessionMetadata;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

#[server(prefix = "/api", endpoint = "sessions", output = crate::api::Json)]
pub async fn load_sessions(search: String) -> Result<Vec<SessionMetadata>, ServiceError> {
    runtime()?.sessions(search).await
}

/// A new thread carrying the session; answers the thread's id.
#[server(prefix = "/api", endpoint = "resume_session", output = crate::api::Json)]
pub async fn resume_session(id: String) -> Result<String, ServiceError> {
    runtime()?.resume_session(id).await.map(|thread| thread.id)
}

#[server(prefix = "/api", endpoint = "delete_session", output = crate::api::Json)]
pub async fn delete_session(id: String) -> Result<(), ServiceError> {
    runtime()?.delete_session(id).await
}
