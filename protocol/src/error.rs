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
                message: clip_message(message.into()),
                status,
            },
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
    fn error_envelope_wire_shape() {
        let json = serde_json::to_value(ErrorEnvelope::new(404, "no such thread")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"error": {"message": "no such thread", "status": 404}})
        );
    }
}
