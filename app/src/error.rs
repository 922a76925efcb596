//! The one error type of the service layer as the app sees it, shared by
//! the server (server functions, SSR) and the browser (which decodes it).

use crate::protocol::{ErrorEnvelope, ErrorKind};
use leptos::server_fn::{
    codec::JsonEncoding,
    error::{FromServerFnError, ServerFnErrorErr},
    Bytes,
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

    /// A server function's own error, or the HTTP edge's JSON envelope:
    /// authentication answers before any server function runs (a 401 for
    /// an ended session must reach the page as a 401).
    fn de(data: Bytes) -> Self {
        crate::api::from_text::<ServiceError>(&data).unwrap_or_else(|error| {
            match crate::api::from_text::<ErrorEnvelope>(&data) {
                Ok(envelope) => Self::new(envelope.error.status, envelope.error.message),
                Err(_) => {
                    Self::from_server_fn_error(ServerFnErrorErr::Deserialization(error.to_string()))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edges_error_envelope_keeps_its_status() {
        let edge = br#"{"error":{"message":"this session has ended","status":401}}"#;
        let error = ServiceError::de(Bytes::from_static(edge));
        assert_eq!(error, ServiceError::new(401, "this session has ended"));
        let own = ServiceError::new(409, "the turn moved on");
        assert_eq!(ServiceError::de(own.ser()), own);
        assert_eq!(ServiceError::de(Bytes::from_static(b"<html>")).status, 502);
    }
}
