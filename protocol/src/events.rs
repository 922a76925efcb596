//! The event envelope of `/v1/threads/{id}/events` (schema version 1).

use serde::{Deserialize, Serialize};

pub const EVENT_SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventEnvelope {
    pub schema_version: u32,
    pub seq: i64,
    /// The previous event delivered on this stream (or the replay cursor).
    pub previous_seq: i64,
    pub event: String,
    /// Mirrors `event` for typed clients.
    pub kind: String,
    pub thread_id: String,
    pub turn_id: Option<String>,
    pub item_id: Option<String>,
    pub timestamp: String,
    /// Alias of `timestamp`.
    pub created_at: String,
    pub payload: serde_json::Value,
}
