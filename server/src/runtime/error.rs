//! What can go wrong in a runtime operation, said in domain terms. The HTTP
//! edge (`http::error`) and the Leptos edge (`http::web_service`) each map
//! it to their own shape in one place; `kind()` is what both map from.

use crate::store::StoreError;
use protocol::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The request is malformed or asks for something impossible.
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(String),
    /// The caller may not do this, whatever it asks.
    #[error("{0}")]
    Forbidden(String),
    /// The request is well formed but conflicts with the current state:
    /// the thread or turn is in the wrong state, or what it names is not
    /// there or clashes (a workspace directory, a configured provider, a
    /// tool name). The same request may work once that state changes.
    #[error("{0}")]
    Conflict(String),
    /// A restore or undo would change paths that changed since codewhale
    /// last recorded them (409, the paths listed).
    #[error("{message}")]
    Conflicts { message: String, paths: Vec<String> },
    /// A part of the request is larger than its own limit (413).
    #[error("{0}")]
    TooLarge(String),
    /// Logged in full by the edge; the client sees only a generic message.
    #[error("internal error")]
    Store(#[from] StoreError),
    /// git failed on codewhale's own snapshot repository (logged, never sent).
    #[error("the workspace snapshot failed")]
    Snapshot(String),
    /// A settlement task died before it could answer (a bug, logged).
    #[error("the request could not be settled")]
    Unsettled,
    /// Reading or writing one of the home's files failed, or a blocking
    /// task died (logged in full; the client sees a generic message).
    #[error("internal error")]
    Internal(String),
}

impl RuntimeError {
    pub fn invalid(message: impl Into<String>) -> Self {
        RuntimeError::Invalid(message.into())
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            RuntimeError::Invalid(_) => ErrorKind::Invalid,
            RuntimeError::NotFound(_) => ErrorKind::NotFound,
            RuntimeError::Forbidden(_) => ErrorKind::Forbidden,
            RuntimeError::Conflict(_) | RuntimeError::Conflicts { .. } => ErrorKind::Conflict,
            RuntimeError::TooLarge(_) => ErrorKind::TooLarge,
            RuntimeError::Store(_)
            | RuntimeError::Snapshot(_)
            | RuntimeError::Unsettled
            | RuntimeError::Internal(_) => ErrorKind::Internal,
        }
    }

    /// Internal failures, for the edge to log (never sent to clients).
    pub fn internal_detail(&self) -> Option<String> {
        match self {
            RuntimeError::Store(error) => Some(error.to_string()),
            RuntimeError::Unsettled => Some(self.to_string()),
            RuntimeError::Snapshot(detail) => Some(format!("snapshot: {detail}")),
            RuntimeError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}
