//! Composite responses of the thread API.

use super::{ThreadRecord, TurnItemRecord, TurnRecord};
use serde::{Deserialize, Serialize};

/// `GET /v1/threads/{id}`: everything a client needs before it subscribes
/// to the event stream from `latest_seq`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThreadDetail {
    pub thread: ThreadRecord,
    pub turns: Vec<TurnRecord>,
    pub items: Vec<TurnItemRecord>,
    pub latest_seq: i64,
    /// The model the thread's next turn will use: the thread's own, else
    /// the configured default provider's. Null while no provider can run a
    /// turn (starting one would be refused).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub effective_model: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<super::ApprovalRequiredPayload>))]
    pub pending_approvals: Vec<serde_json::Value>,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<super::UserInputRequiredPayload>))]
    pub pending_user_inputs: Vec<serde_json::Value>,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<super::ToolCallRequestedPayload>))]
    pub pending_dynamic_tool_calls: Vec<serde_json::Value>,
}

/// A row of `GET /v1/threads/summary`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThreadSummary {
    pub id: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub title: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub preview: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: Option<String>,
    pub mode: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub workspace: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub branch: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub head: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub dirty: Option<bool>,
    pub archived: bool,
    pub updated_at: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub latest_turn_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub latest_turn_status: Option<super::TurnStatus>,
}

/// `POST /v1/threads/{id}/turns` and `/compact`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnStarted {
    pub thread: ThreadRecord,
    pub turn: TurnRecord,
}
