//! Durable runtime records: Thread, Turn, TurnItem.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadRecord {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub workspace: Option<String>,
    pub mode: String,
    pub allow_shell: bool,
    pub trust_mode: bool,
    pub auto_approve: bool,
    pub title: Option<String>,
    pub system_prompt: Option<String>,
    pub task_id: Option<String>,
    pub latest_turn_id: Option<String>,
    pub latest_response_bookmark: Option<String>,
    pub archived: bool,
    /// Client-executed tools offered to the model on every turn.
    #[serde(default)]
    pub dynamic_tools: Vec<super::DynamicToolSpec>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnStatus {
    Queued,
    InProgress,
    Completed,
    Failed,
    Interrupted,
    Canceled,
}

impl TurnStatus {
    pub fn is_active(self) -> bool {
        matches!(self, TurnStatus::Queued | TurnStatus::InProgress)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_tokens: u64,
    pub reasoning_tokens: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub id: String,
    pub thread_id: String,
    pub status: TurnStatus,
    pub input_summary: String,
    pub created_at: String,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub duration_ms: Option<u64>,
    pub usage: Usage,
    pub effective_provider: Option<String>,
    pub effective_model: Option<String>,
    pub effective_billing_surface: Option<String>,
    pub error: Option<String>,
    pub steer_count: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    UserMessage,
    AgentMessage,
    AgentReasoning,
    ToolCall,
    FileChange,
    CommandExecution,
    ContextCompaction,
    Status,
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnItemRecord {
    pub id: String,
    pub turn_id: String,
    pub kind: ItemKind,
    pub status: String,
    pub summary: String,
    pub detail: Option<String>,
    pub metadata: serde_json::Value,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
}
