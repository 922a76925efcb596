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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_envelope_wire_shape() {
        let json = serde_json::to_value(ErrorEnvelope::new(404, "no such thread")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"error": {"message": "no such thread", "status": 404}})
        );
    }
}
