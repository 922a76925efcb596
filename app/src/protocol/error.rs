use serde::{Deserialize, Serialize};

/// Every `/v1` error body: `{"error":{"message":"…","status":N}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub message: String,
    pub status: u16,
}

impl ErrorEnvelope {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            error: ErrorBody {
                message: message.into(),
                status,
            },
        }
    }
}
