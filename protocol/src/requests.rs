//! Request bodies of the `/v1` API. Unknown fields are refused so that a
//! typo is a 400, not a silently ignored setting.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateThread {
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub workspace: Option<String>,
    pub mode: Option<String>,
    pub allow_shell: Option<bool>,
    pub trust_mode: Option<bool>,
    pub auto_approve: Option<bool>,
    pub system_prompt: Option<String>,
    pub title: Option<String>,
    pub dynamic_tools: Option<Vec<super::DynamicToolSpec>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PatchThread {
    pub archived: Option<bool>,
    pub allow_shell: Option<bool>,
    pub trust_mode: Option<bool>,
    pub auto_approve: Option<bool>,
    pub model: Option<String>,
    pub mode: Option<String>,
    pub title: Option<String>,
    pub system_prompt: Option<String>,
    pub workspace: Option<String>,
}

impl PatchThread {
    pub fn is_empty(&self) -> bool {
        *self == PatchThread::default()
    }
}

/// `POST /v1/threads/{id}/turns`. Per-turn fields override the thread's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct StartTurn {
    pub prompt: String,
    pub input_summary: Option<String>,
    pub model: Option<String>,
    /// A provider id from config (deepseek, openai, or a custom one).
    pub model_provider: Option<String>,
    pub mode: Option<String>,
    pub allow_shell: Option<bool>,
    pub trust_mode: Option<bool>,
    pub auto_approve: Option<bool>,
    /// Added to the thread's dynamic tools for this turn (same name wins).
    pub dynamic_tools: Option<Vec<super::DynamicToolSpec>>,
}

/// `POST /v1/threads/{id}/turns/{turn_id}/steer`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SteerTurn {
    pub prompt: String,
}

/// `POST /v1/threads/{id}/compact`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CompactThread {
    pub reason: Option<String>,
}

/// Query of `GET /v1/threads` and `/v1/threads/summary`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema, utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ListThreads {
    /// 1–500; 50 when absent.
    pub limit: Option<i64>,
    /// Matched against titles and prompts; blank means no search.
    pub search: Option<String>,
    #[serde(default)]
    pub include_archived: bool,
    #[serde(default)]
    pub archived_only: bool,
}

/// Query of `GET /v1/usage`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema, utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct UsageQuery {
    pub since: Option<String>,
    pub until: Option<String>,
    /// day (default), model, provider or thread.
    pub group_by: Option<String>,
}
