//! The one error type of the service layer as the app sees it, shared by
//! the server (server functions, SSR) and the browser (which decodes it).

use crate::protocol::ErrorKind;
use leptos::server_fn::{
    codec::JsonEncoding,
    error::{FromServerFnError, ServerFnErrorErr},
};

/// An error with the HTTP status the `/v1` API would answer. It is also the
/// server functions' error type: encoded as JSON on the wire, it reaches the
/// browser whole, and the server's `/api` edge answers with its status.
/// Status 0: the browser could not reach the server at all.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServiceError {
    pub status: u16,
    pub message: String,
}

impl ServiceError {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            message: crate::protocol::clip_message(message.into()),
        }
    }

    pub fn unauthorized() -> Self {
        Self::new(401, "sign in first")
    }

    /// What went wrong, for code that handles some failures itself (a 409
    /// means "the turn moved on", 401 "sign in again").
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::from_status(self.status)
    }
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            0 => write!(f, "Could not reach codewhale: {}", self.message),
            status => write!(f, "HTTP {status}: {}", self.message),
        }
    }
}

impl std::error::Error for ServiceError {}

impl FromServerFnError for ServiceError {
    type Encoder = JsonEncoding;

    /// Failures of the server-function machinery itself, on either side.
    fn from_server_fn_error(error: ServerFnErrorErr) -> Self {
        match error {
            ServerFnErrorErr::Args(why) | ServerFnErrorErr::MissingArg(why) => {
                Self::new(400, format!("invalid request: {why}"))
            }
            ServerFnErrorErr::UnsupportedRequestMethod(why) => Self::new(405, why),
            ServerFnErrorErr::Request(why) => Self::new(0, why),
            ServerFnErrorErr::Deserialization(why) => {
                Self::new(502, format!("unreadable reply: {why}"))
            }
            other => Self::new(500, other.to_string()),
        }
    }
}
