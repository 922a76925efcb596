use serde::{Deserialize, Serialize};

/// Every `/v1` error body: `{"error":{"message":"…","status":N}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    pub message: String,
    pub status: u16,
    /// Workspace paths that changed since codewhale last recorded them, when
    /// a restore or undo refused because of them (409).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflicts: Option<Vec<String>>,
}

impl ErrorEnvelope {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            error: ErrorBody {
                message: clip_message(message.into()),
                status,
                conflicts: None,
            },
        }
    }
}

/// What kind of failure an error is: what code matches on. Each kind has
/// one HTTP status (the `/v1` answer and the server-function error agree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The request is malformed or asks for something impossible (400).
    Invalid,
    /// No credentials, or not valid ones (401).
    Unauthorized,
    /// Valid credentials, refused anyway (403).
    Forbidden,
    NotFound,
    MethodNotAllowed,
    /// A well-formed request that conflicts with the current state (409):
    /// a thread or turn in another state, a workspace or provider that is
    /// not there, names that clash, answers that do not fit the question.
    Conflict,
    TooLarge,
    /// The server failed (500); the message says nothing more.
    Internal,
    /// The browser could not reach the server (no HTTP status at all).
    Unreachable,
    /// Any other status (a proxy's 502, say).
    Other,
}

impl ErrorKind {
    /// The HTTP status (0 for `Unreachable`; 500 for `Other`).
    pub fn status(self) -> u16 {
        match self {
            Self::Invalid => 400,
            Self::Unauthorized => 401,
            Self::Forbidden => 403,
            Self::NotFound => 404,
            Self::MethodNotAllowed => 405,
            Self::Conflict => 409,
            Self::TooLarge => 413,
            Self::Internal | Self::Other => 500,
            Self::Unreachable => 0,
        }
    }

    pub fn from_status(status: u16) -> Self {
        match status {
            0 => Self::Unreachable,
            400 => Self::Invalid,
            401 => Self::Unauthorized,
            403 => Self::Forbidden,
            404 => Self::NotFound,
            405 => Self::MethodNotAllowed,
            409 => Self::Conflict,
            413 => Self::TooLarge,
            500 => Self::Internal,
            _ => Self::Other,
        }
    }
}

/// Longest error message sent, in bytes. Messages quote what was asked
/// ("workspace \"…\" does not exist"); a hostile request must not get its
/// megabytes echoed back (or into the logs that record errors).
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// `message`, cut to `MAX_MESSAGE_BYTES` at a character boundary.
pub fn clip_message(mut message: String) -> String {
    if message.len() > MAX_MESSAGE_BYTES {
        let mut cut = MAX_MESSAGE_BYTES;
        while !message.is_char_boundary(cut) {
            cut -= 1;
        }
        message.truncate(cut);
        message.push('…');
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_clipped_at_a_character_boundary() {
        let long = "é".repeat(MAX_MESSAGE_BYTES);
        let clipped = ErrorEnvelope::new(400, long).error.message;
        assert!(clipped.len() <= MAX_MESSAGE_BYTES + '…'.len_utf8());
        assert!(clipped.ends_with('…'));
        assert_eq!(ErrorEnvelope::new(400, "short").error.message, "short");
    }

    #[test]
    fn kinds_and_statuses_agree() {
        for status in [0, 400, 401, 403, 404, 405, 409, 413, 500] {
            assert_eq!(ErrorKind::from_status(status).status(), status);
        }
        assert_eq!(ErrorKind::from_status(502), ErrorKind::Other);
    }

    #[test]
    fn error_envelope_wire_shape() {
        let json = serde_json::to_value(ErrorEnvelope::new(404, "no such thread")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"error": {"message": "no such thread", "status": 404}})
        );
    }
}
