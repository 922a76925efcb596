//! The event envelope of `/v1/threads/{id}/events` (schema version 1).

use serde::{Deserialize, Serialize};

pub const EVENT_SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventEnvelope {
    pub schema_version: u32,
    pub seq: i64,
    /// The previous event delivered on this stream (or the replay cursor).
    pub previous_seq: i64,
    pub event: String,
    /// Mirrors `event` for typed clients.
    pub kind: String,
    pub thread_id: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub turn_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub item_id: Option<String>,
    pub timestamp: String,
    /// Alias of `timestamp`.
    pub created_at: String,
    pub payload: serde_json::Value,
}

/// Every event the runtime emits: the one list. The server emits only
/// these (`store::NewEvent` takes an `EventName`), and the browser
/// subscribes to and matches on exactly these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventName {
    ThreadStarted,
    ThreadUpdated,
    ThreadForked,
    TurnStarted,
    TurnSteered,
    TurnInterruptRequested,
    TurnCompleted,
    TurnUndone,
    ItemStarted,
    ItemDelta,
    ItemCompleted,
    ItemFailed,
    ItemInterrupted,
    ApprovalRequired,
    ApprovalDecided,
    ApprovalTimeout,
    UserInputRequired,
    UserInputAnswered,
    UserInputCanceled,
    ToolCallRequested,
    ToolCallResolved,
    ToolCallTimeout,
    ToolCallCanceled,
    SnapshotCreated,
    WorkspaceRestored,
    AgentSpawned,
    AgentCompleted,
}

impl EventName {
    pub const ALL: [EventName; 27] = [
        Self::ThreadStarted,
        Self::ThreadUpdated,
        Self::ThreadForked,
        Self::TurnStarted,
        Self::TurnSteered,
        Self::TurnInterruptRequested,
        Self::TurnCompleted,
        Self::TurnUndone,
        Self::ItemStarted,
        Self::ItemDelta,
        Self::ItemCompleted,
        Self::ItemFailed,
        Self::ItemInterrupted,
        Self::ApprovalRequired,
        Self::ApprovalDecided,
        Self::ApprovalTimeout,
        Self::UserInputRequired,
        Self::UserInputAnswered,
        Self::UserInputCanceled,
        Self::ToolCallRequested,
        Self::ToolCallResolved,
        Self::ToolCallTimeout,
        Self::ToolCallCanceled,
        Self::SnapshotCreated,
        Self::WorkspaceRestored,
        Self::AgentSpawned,
        Self::AgentCompleted,
    ];

    /// The wire name (`event:` on the SSE stream, `event` in the envelope).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ThreadStarted => "thread.started",
            Self::ThreadUpdated => "thread.updated",
            Self::ThreadForked => "thread.forked",
            Self::TurnStarted => "turn.started",
            Self::TurnSteered => "turn.steered",
            Self::TurnInterruptRequested => "turn.interrupt_requested",
            Self::TurnCompleted => "turn.completed",
            Self::TurnUndone => "turn.undone",
            Self::ItemStarted => "item.started",
            Self::ItemDelta => "item.delta",
            Self::ItemCompleted => "item.completed",
            Self::ItemFailed => "item.failed",
            Self::ItemInterrupted => "item.interrupted",
            Self::ApprovalRequired => "approval.required",
            Self::ApprovalDecided => "approval.decided",
            Self::ApprovalTimeout => "approval.timeout",
            Self::UserInputRequired => "user_input.required",
            Self::UserInputAnswered => "user_input.answered",
            Self::UserInputCanceled => "user_input.canceled",
            Self::ToolCallRequested => "tool_call.requested",
            Self::ToolCallResolved => "tool_call.resolved",
            Self::ToolCallTimeout => "tool_call.timeout",
            Self::ToolCallCanceled => "tool_call.canceled",
            Self::SnapshotCreated => "snapshot.created",
            Self::WorkspaceRestored => "workspace.restored",
            Self::AgentSpawned => "agent.spawned",
            Self::AgentCompleted => "agent.completed",
        }
    }

    /// `None` for a name this build does not know (a newer server's).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.as_str() == name)
    }
}

impl std::fmt::Display for EventName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::EventName;

    #[test]
    fn every_name_parses_back_and_is_unique() {
        let mut seen = std::collections::HashSet::new();
        for event in EventName::ALL {
            assert_eq!(EventName::parse(event.as_str()), Some(event));
            assert!(seen.insert(event.as_str()), "{event} twice");
        }
        assert_eq!(EventName::parse("turn.lifecycle"), None);
    }
}
