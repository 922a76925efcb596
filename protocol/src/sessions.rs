//! Sessions: conversations saved as files under `$CODEWHALE_HOME/sessions`
//! (the legacy session manager's surface). A thread is saved as one
//! (`persist-session`), and a session comes back as a new thread carrying
//! its messages (`resume-thread`).

use serde::{Deserialize, Serialize};

/// What a session is, without its messages. Times are Unix seconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SessionMetadata {
    pub id: String,
    pub name: String,
    pub title: String,
    pub created_at: i64,
    pub updated_at: i64,
    #[serde(default)]
    pub message_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The thread it was saved from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_thread_id: Option<String>,
}

/// One block of a message; only text is kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SessionContent {
    /// `text`.
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SessionMessage {
    /// `user` or `assistant`.
    pub role: String,
    pub content: Vec<SessionContent>,
}

/// `GET /v1/sessions/{id}`: the whole session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SessionDetail {
    pub metadata: SessionMetadata,
    pub messages: Vec<SessionMessage>,
    #[serde(default)]
    pub system_prompt: String,
}

/// `GET /v1/sessions`: newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Sessions {
    pub sessions: Vec<SessionMetadata>,
}

/// `GET /v1/sessions` query.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ListSessions {
    /// At most this many (1–500, default 50).
    #[serde(default)]
    pub limit: Option<u64>,
    /// Only sessions whose title, name or id holds this (any case).
    #[serde(default)]
    pub search: Option<String>,
}

/// `POST /v1/threads/{id}/persist-session`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PersistSession {
    /// The session's name (default: the thread's title).
    #[serde(default)]
    pub name: Option<String>,
}
