//! The payload of each event on `/v1/threads/{id}/events`, one type per
//! event name. The server builds every payload from these types, so the
//! OpenAPI document (one schema per event, discriminated by `event`) is
//! what the stream carries. Optional fields appear only on some receipts
//! (an automatic approval, a timeout, a restart's recovery) and are then
//! present; they are absent otherwise, never null.

use super::{
    agent_runs::AgentRunPayload,
    snapshots::{SnapshotCreatedPayload, WorkspaceRestoredPayload},
    ApprovalDecision, DynamicToolCall, EventName, ItemKind, ThreadRecord, TurnItemRecord,
    TurnRecord, UserInputRequest,
};
use serde::{Deserialize, Serialize};

/// `thread.started`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThreadStartedPayload {
    pub thread: ThreadRecord,
}

/// `thread.updated`: the thread as it is now and which fields changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThreadUpdatedPayload {
    pub thread: ThreadRecord,
    pub changed: Vec<String>,
}

/// `thread.forked`, on the new thread's stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThreadForkedPayload {
    pub thread: ThreadRecord,
    pub source_thread_id: String,
}

/// `turn.started` and `turn.completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnPayload {
    pub turn: TurnRecord,
    /// Present (true) when a restart found the turn unfinished and ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<bool>,
}

/// `turn.steered`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnSteeredPayload {
    pub turn_id: String,
    pub prompt: String,
    pub steer_count: u32,
}

/// `turn.interrupt_requested`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnInterruptRequestedPayload {
    pub turn_id: String,
}

/// `item.started`, `item.completed`, `item.failed`, `item.interrupted`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ItemPayload {
    pub item: TurnItemRecord,
}

/// `item.delta`: text to append to the item named by the envelope's `item_id`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ItemDeltaPayload {
    pub delta: String,
    pub kind: ItemKind,
}

/// `approval.required`, and a row of a snapshot's `pending_approvals`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApprovalRequiredPayload {
    /// Same as `approval_id`.
    pub id: String,
    pub approval_id: String,
    pub turn_id: String,
    pub tool_name: String,
    pub description: String,
    pub intent_summary: String,
}

/// `approval.decided`: the one terminal receipt of an approval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApprovalDecidedPayload {
    pub approval_id: String,
    pub decision: ApprovalDecision,
    /// A client's decision: whether it also turned on `auto_approve`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remember: Option<bool>,
    /// Allowed by the thread's `auto_approve` without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<bool>,
    /// Denied because nobody answered in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<bool>,
    /// Denied because the turn ended first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canceled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    /// Written by a restart that found the approval unsettled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<bool>,
}

/// `approval.timeout` (followed by a denying `approval.decided`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApprovalTimeoutPayload {
    pub approval_id: String,
    pub timeout_secs: u64,
}

/// `user_input.required`, and a row of a snapshot's `pending_user_inputs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserInputRequiredPayload {
    /// Same as `input_id`.
    pub id: String,
    pub input_id: String,
    pub thread_id: String,
    pub turn_id: String,
    pub request: UserInputRequest,
}

/// `user_input.answered`. The answers themselves are never stored or sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserInputAnsweredPayload {
    pub id: String,
    pub input_id: String,
}

/// `user_input.canceled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserInputCanceledPayload {
    pub id: String,
    pub input_id: String,
    /// `timeout`, `turn_ended` or `process_restart`.
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<bool>,
}

/// `tool_call.requested`, and a row of `pending_dynamic_tool_calls`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolCallRequestedPayload {
    /// Same as `call_id`.
    pub id: String,
    #[serde(flatten)]
    pub call: DynamicToolCall,
}

/// `tool_call.resolved`, `tool_call.timeout` and `tool_call.canceled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolCallSettledPayload {
    pub thread_id: String,
    pub turn_id: String,
    pub call_id: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub namespace: Option<String>,
    pub tool: String,
    /// `resolved`, `timeout` or `canceled`.
    pub status: String,
    /// `resolved`: what the client reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_accepted: Option<bool>,
    /// `timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    /// `canceled`: `turn_ended`, `interrupted`, `process_restart`…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<bool>,
}

/// An event's payload, typed by its name. The OpenAPI document describes
/// the stream's envelope as one of these, discriminated by `event`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", content = "payload")]
pub enum EventPayload {
    #[serde(rename = "thread.started")]
    ThreadStarted(ThreadStartedPayload),
    #[serde(rename = "thread.updated")]
    ThreadUpdated(ThreadUpdatedPayload),
    #[serde(rename = "thread.forked")]
    ThreadForked(ThreadForkedPayload),
    #[serde(rename = "turn.started")]
    TurnStarted(TurnPayload),
    #[serde(rename = "turn.steered")]
    TurnSteered(TurnSteeredPayload),
    #[serde(rename = "turn.interrupt_requested")]
    TurnInterruptRequested(TurnInterruptRequestedPayload),
    #[serde(rename = "turn.completed")]
    TurnCompleted(TurnPayload),
    /// Undo, retry or edit took the turn back; the model no longer sees it.
    #[serde(rename = "turn.undone")]
    TurnUndone(TurnPayload),
    #[serde(rename = "item.started")]
    ItemStarted(ItemPayload),
    #[serde(rename = "item.delta")]
    ItemDelta(ItemDeltaPayload),
    #[serde(rename = "item.completed")]
    ItemCompleted(ItemPayload),
    #[serde(rename = "item.failed")]
    ItemFailed(ItemPayload),
    #[serde(rename = "item.interrupted")]
    ItemInterrupted(ItemPayload),
    #[serde(rename = "approval.required")]
    ApprovalRequired(ApprovalRequiredPayload),
    #[serde(rename = "approval.decided")]
    ApprovalDecided(ApprovalDecidedPayload),
    #[serde(rename = "approval.timeout")]
    ApprovalTimeout(ApprovalTimeoutPayload),
    #[serde(rename = "user_input.required")]
    UserInputRequired(UserInputRequiredPayload),
    #[serde(rename = "user_input.answered")]
    UserInputAnswered(UserInputAnsweredPayload),
    #[serde(rename = "user_input.canceled")]
    UserInputCanceled(UserInputCanceledPayload),
    #[serde(rename = "tool_call.requested")]
    ToolCallRequested(ToolCallRequestedPayload),
    #[serde(rename = "tool_call.resolved")]
    ToolCallResolved(ToolCallSettledPayload),
    #[serde(rename = "tool_call.timeout")]
    ToolCallTimeout(ToolCallSettledPayload),
    #[serde(rename = "tool_call.canceled")]
    ToolCallCanceled(ToolCallSettledPayload),
    #[serde(rename = "snapshot.created")]
    SnapshotCreated(SnapshotCreatedPayload),
    #[serde(rename = "workspace.restored")]
    WorkspaceRestored(WorkspaceRestoredPayload),
    #[serde(rename = "agent.spawned")]
    AgentSpawned(AgentRunPayload),
    #[serde(rename = "agent.completed")]
    AgentCompleted(AgentRunPayload),
}

impl EventPayload {
    pub fn name(&self) -> EventName {
        match self {
            Self::ThreadStarted(_) => EventName::ThreadStarted,
            Self::ThreadUpdated(_) => EventName::ThreadUpdated,
            Self::ThreadForked(_) => EventName::ThreadForked,
            Self::TurnStarted(_) => EventName::TurnStarted,
            Self::TurnSteered(_) => EventName::TurnSteered,
            Self::TurnInterruptRequested(_) => EventName::TurnInterruptRequested,
            Self::TurnCompleted(_) => EventName::TurnCompleted,
            Self::TurnUndone(_) => EventName::TurnUndone,
            Self::ItemStarted(_) => EventName::ItemStarted,
            Self::ItemDelta(_) => EventName::ItemDelta,
            Self::ItemCompleted(_) => EventName::ItemCompleted,
            Self::ItemFailed(_) => EventName::ItemFailed,
            Self::ItemInterrupted(_) => EventName::ItemInterrupted,
            Self::ApprovalRequired(_) => EventName::ApprovalRequired,
            Self::ApprovalDecided(_) => EventName::ApprovalDecided,
            Self::ApprovalTimeout(_) => EventName::ApprovalTimeout,
            Self::UserInputRequired(_) => EventName::UserInputRequired,
            Self::UserInputAnswered(_) => EventName::UserInputAnswered,
            Self::UserInputCanceled(_) => EventName::UserInputCanceled,
            Self::ToolCallRequested(_) => EventName::ToolCallRequested,
            Self::ToolCallResolved(_) => EventName::ToolCallResolved,
            Self::ToolCallTimeout(_) => EventName::ToolCallTimeout,
            Self::ToolCallCanceled(_) => EventName::ToolCallCanceled,
            Self::SnapshotCreated(_) => EventName::SnapshotCreated,
            Self::WorkspaceRestored(_) => EventName::WorkspaceRestored,
            Self::AgentSpawned(_) => EventName::AgentSpawned,
            Self::AgentCompleted(_) => EventName::AgentCompleted,
        }
    }

    /// The payload alone, as JSON (what the envelope's `payload` holds).
    pub fn into_value(self) -> serde_json::Value {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut tagged)) => {
                tagged.remove("payload").unwrap_or_default()
            }
            _ => serde_json::Value::Null,
        }
    }

    /// Reads a payload strictly: it must decode as its event's type and
    /// encode back to exactly the same JSON (no unknown field, no null
    /// where a field is absent). Tests hold every emitted event to this.
    pub fn decode_exact(event: &str, payload: &serde_json::Value) -> Result<Self, String> {
        let tagged = serde_json::json!({ "event": event, "payload": payload });
        let typed: Self =
            serde_json::from_value(tagged).map_err(|e| format!("{event} payload: {e}"))?;
        let back = typed.clone().into_value();
        if &back != payload {
            return Err(format!(
                "{event} payload does not match its schema exactly: sent {payload}, the type reads {back}"
            ));
        }
        Ok(typed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_name_has_exactly_one_payload_variant() {
        // The tag strings above must be the wire names of `EventName`.
        let sample = |name: EventName| -> serde_json::Value {
            serde_json::json!({ "event": name.as_str(), "payload": {} })
        };
        for name in EventName::ALL {
            let err = serde_json::from_value::<EventPayload>(sample(name))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                !err.contains("unknown variant"),
                "{name} has no payload variant: {err}"
            );
        }
    }

    #[test]
    fn decode_exact_refuses_an_unknown_field_and_a_stray_null() {
        let ok = serde_json::json!({ "turn_id": "turn_1" });
        assert!(EventPayload::decode_exact("turn.interrupt_requested", &ok).is_ok());
        let extra = serde_json::json!({ "turn_id": "turn_1", "surprise": 1 });
        assert!(EventPayload::decode_exact("turn.interrupt_requested", &extra).is_err());
        let null = serde_json::json!({ "approval_id": "a", "decision": "deny", "auto": null });
        assert!(EventPayload::decode_exact("approval.decided", &null).is_err());
        let typed = EventPayload::decode_exact(
            "approval.decided",
            &serde_json::json!({
                "approval_id": "a", "decision": "allow", "auto": true
            }),
        )
        .unwrap();
        assert_eq!(typed.name(), EventName::ApprovalDecided);
    }
}
