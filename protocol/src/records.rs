//! Durable runtime records: Thread, Turn, TurnItem.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThreadRecord {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model_provider: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub workspace: Option<String>,
    pub mode: Mode,
    pub allow_shell: bool,
    pub trust_mode: bool,
    pub auto_approve: bool,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub title: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub system_prompt: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub task_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub latest_turn_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub latest_response_bookmark: Option<String>,
    pub archived: bool,
    /// Client-executed tools offered to the model on every turn.
    #[serde(default)]
    pub dynamic_tools: Vec<super::DynamicToolSpec>,
}

/// How much a thread's agent may do on its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Reads freely; asks before writes and commands (unless auto-approve).
    #[default]
    Agent,
    /// Reads and plans; no writes or commands at all.
    Plan,
    /// Everything is approved automatically.
    Yolo,
    /// Reads and submits review findings; no writes or commands.
    Review,
}

impl Mode {
    pub const ALL: [Mode; 4] = [Mode::Agent, Mode::Plan, Mode::Yolo, Mode::Review];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Agent => "agent",
            Mode::Plan => "plan",
            Mode::Yolo => "yolo",
            Mode::Review => "review",
        }
    }

    /// Whether the agent may change the workspace at all (with approval).
    pub fn may_change(self) -> bool {
        matches!(self, Mode::Agent | Mode::Yolo)
    }

    /// A mode by its wire name; the error says which names exist.
    pub fn parse(value: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == value)
            .ok_or_else(|| {
                let names: Vec<&str> = Mode::ALL.iter().map(|m| m.as_str()).collect();
                format!("mode must be one of {} (got {value:?})", names.join(", "))
            })
    }
}

/// Where an item is: running, or how it ended (exactly once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ItemStatus {
    InProgress,
    Completed,
    Failed,
    Interrupted,
}

impl ItemStatus {
    pub const ALL: [ItemStatus; 4] = [
        Self::InProgress,
        Self::Completed,
        Self::Failed,
        Self::Interrupted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatus::InProgress => "in_progress",
            ItemStatus::Completed => "completed",
            ItemStatus::Failed => "failed",
            ItemStatus::Interrupted => "interrupted",
        }
    }

    pub fn parse(value: &str) -> Option<ItemStatus> {
        Self::ALL
            .into_iter()
            .find(|status| status.as_str() == value)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_tokens: u64,
    pub reasoning_tokens: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnRecord {
    pub id: String,
    pub thread_id: String,
    pub status: TurnStatus,
    pub input_summary: String,
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub started_at: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub ended_at: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub duration_ms: Option<u64>,
    pub usage: Usage,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub effective_provider: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub effective_model: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub effective_billing_surface: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub error: Option<String>,
    pub steer_count: u32,
    /// When undo, retry or edit took the turn back (the model no longer
    /// sees it); null otherwise.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub undone_at: Option<String>,
    /// The instruction files the turn's system prompt added to the
    /// thread's own, in the order given (the user's global file, then the
    /// project's from the repository's top down to the workspace: the
    /// nearest last, and it wins). Paths and hashes, never contents.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub instructions: Vec<InstructionFile>,
}

/// One instruction file a turn was given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct InstructionFile {
    /// Where it was read, every link resolved.
    pub path: String,
    pub scope: InstructionScope,
    /// SHA-256 (hex) of the bytes passed on: the whole file unless cut.
    pub sha256: String,
    /// The file's size.
    pub bytes: u64,
    /// True when only its first 32 KiB were passed on.
    pub truncated: bool,
}

/// `global`: `$CODEWHALE_HOME/AGENTS.md`; `project`: an `AGENTS.md` or
/// `CODEWHALE.md` between the repository's top and the workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum InstructionScope {
    Global,
    Project,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// A finding submitted in review mode (`metadata.finding`).
    ReviewFinding,
    /// Findings being applied by its turn (`metadata.action`).
    ReviewAction,
}

impl ItemKind {
    /// The wire name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UserMessage => "user_message",
            Self::AgentMessage => "agent_message",
            Self::AgentReasoning => "agent_reasoning",
            Self::ToolCall => "tool_call",
            Self::FileChange => "file_change",
            Self::CommandExecution => "command_execution",
            Self::ContextCompaction => "context_compaction",
            Self::Status => "status",
            Self::Error => "error",
            Self::ReviewFinding => "review_finding",
            Self::ReviewAction => "review_action",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnItemRecord {
    pub id: String,
    pub turn_id: String,
    pub kind: ItemKind,
    pub status: ItemStatus,
    pub summary: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub detail: Option<String>,
    /// By kind: a file change's `diff`, a command's `arguments`, a review
    /// finding's `finding` (ReviewFinding), a review action's `action`
    /// (ReviewAction), a tool call's bookkeeping.
    pub metadata: serde_json::Value,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub started_at: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub ended_at: Option<String>,
}

impl TurnItemRecord {
    /// Drops what the workbench never shows (tool bookkeeping in metadata,
    /// timestamps, the turn id), keeping the command's arguments and a file change's diff.
    /// The page embeds its snapshot: on a 2,000-item thread this is ~40% of
    /// the embedded bytes, and each byte is parsed twice in the browser.
    pub fn trim_for_display(&mut self) {
        let keep = match self.kind {
            ItemKind::CommandExecution => Some("arguments"),
            ItemKind::FileChange => Some("diff"),
            ItemKind::ReviewFinding => Some("finding"),
            ItemKind::ReviewAction => Some("action"),
            _ => None,
        };
        self.metadata = match (keep, self.metadata.as_object_mut()) {
            (Some(key), Some(map)) => map
                .remove(key)
                .map(|value| serde_json::json!({ key: value }))
                .unwrap_or_default(),
            _ => serde_json::Value::Null,
        };
        self.started_at = None;
        self.ended_at = None;
        // The page knows its turns; an item's turn id is never shown.
        self.turn_id.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::ItemKind;

    #[test]
    fn item_kind_names_match_the_wire() {
        use ItemKind::*;
        for kind in [
            UserMessage,
            AgentMessage,
            AgentReasoning,
            ToolCall,
            FileChange,
            CommandExecution,
            ContextCompaction,
            Status,
            Error,
            ReviewFinding,
            ReviewAction,
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }

    #[test]
    fn display_trim_keeps_what_receipts_show() {
        let record = |kind: &str, metadata: serde_json::Value| -> super::TurnItemRecord {
            serde_json::from_value(serde_json::json!({"id": "item_1", "turn_id": "turn_1",
                "kind": kind, "status": "completed", "summary": "s", "detail": "out",
                "metadata": metadata, "started_at": "t0", "ended_at": "t1"}))
            .unwrap()
        };
        let mut command = record(
            "command_execution",
            serde_json::json!({"arguments": "{\"command\":\"ls\"}", "call_id": "c", "ok": true}),
        );
        command.trim_for_display();
        assert_eq!(
            command.metadata,
            serde_json::json!({"arguments": "{\"command\":\"ls\"}"})
        );
        assert_eq!((command.started_at, command.ended_at), (None, None));
        assert!(command.turn_id.is_empty());
        assert_eq!(command.detail.as_deref(), Some("out"));
        let mut change = record(
            "file_change",
            serde_json::json!({"diff": "+a", "path": "x"}),
        );
        change.trim_for_display();
        assert_eq!(change.metadata, serde_json::json!({"diff": "+a"}));
        let mut tool = record(
            "tool_call",
            serde_json::json!({"arguments": "{}", "tool": "list_dir"}),
        );
        tool.trim_for_display();
        assert!(tool.metadata.is_null());
    }
}
