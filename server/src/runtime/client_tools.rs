//! Client-executed (dynamic) tools: the model calls a tool a client
//! registered; the runtime publishes `tool_call.requested` and waits for
//! the client's result. Exactly one of `tool_call.resolved`,
//! `tool_call.timeout` and `tool_call.canceled` becomes durable per call,
//! and it is durable before the result reaches the model. Lifecycle
//! events carry identifiers and status, never result content.

use super::{
    ids,
    pending::{detached, turn_event as event, Ask, PendingSet, Waited},
};
use crate::{
    runtime::error::RuntimeError,
    store::{Store, StoreError},
};
use protocol::{
    DynamicToolCall, DynamicToolResult, DynamicToolSpec, EventPayload, ToolCallRequestedPayload,
    ToolCallSettledPayload, ToolResultAccepted,
};
use serde_json::Value;
use std::{collections::HashSet, sync::Arc, time::Duration};

/// Calls that may wait at once in one thread.
pub const MAX_PENDING_PER_THREAD: usize = 128;
/// Tools a thread or a turn may register.
pub const MAX_TOOLS: usize = 128;
/// The longest function name the model sees (`namespace__name` or `name`):
/// what model APIs accept.
pub const MAX_NAME_CHARS: usize = 64;
/// The longest namespace.
pub const MAX_NAMESPACE_CHARS: usize = 20;
/// The longest name beside a namespace, so that `namespace__name` fits.
pub const MAX_NAMESPACED_NAME_CHARS: usize = MAX_NAME_CHARS - 2 - MAX_NAMESPACE_CHARS;
/// Names the built-in tools use; a client tool may not shadow them.
const RESERVED: [&str; 17] = [
    "read_file",
    "list_dir",
    "grep_files",
    "file_search",
    "git_status",
    "git_diff",
    "write_file",
    "edit_file",
    "apply_patch",
    "exec_shell",
    "update_plan",
    "request_user_input",
    "submit_review_finding",
    "spawn_agent",
    "agent_result",
    "shell",
    "search",
];

pub struct ClientTools {
    pending: PendingSet<DynamicToolResult>,
    timeout: Duration,
}

/// How a call ended, as the engine sees it.
#[derive(Debug)]
pub enum CallEnd {
    Resolved(DynamicToolResult),
    TimedOut,
    Canceled,
    /// Too many calls of this thread are already waiting.
    Busy,
}

impl ClientTools {
    pub fn new(store: Arc<Store>, timeout: Duration) -> Self {
        Self {
            pending: PendingSet::new(store),
            timeout,
        }
    }

    /// Publishes the call and waits for its single settlement.
    pub async fn call(
        &self,
        thread_id: &str,
        turn_id: &str,
        spec: &DynamicToolSpec,
        arguments: Value,
    ) -> Result<CallEnd, StoreError> {
        let call = DynamicToolCall {
            thread_id: thread_id.to_string(),
            turn_id: turn_id.to_string(),
            call_id: ids::new(ids::TOOL_CALL),
            namespace: spec.namespace.clone(),
            tool: spec.name.clone(),
            arguments,
        };
        let call_id = call.call_id.clone();
        let ask = Ask {
            id: call_id.clone(),
            thread_id: thread_id.to_string(),
            turn_id: turn_id.to_string(),
            announce: EventPayload::ToolCallRequested(ToolCallRequestedPayload {
                id: call_id.clone(),
                call,
            }),
        };
        let timeout_secs = self.timeout.as_secs();
        let limit = Some(MAX_PENDING_PER_THREAD);
        let waited = self
            .pending
            .ask(ask, limit, self.timeout, |w| {
                let mut payload = settled(&call_id, w, "timeout");
                payload.timeout_secs = Some(timeout_secs);
                vec![event(
                    thread_id,
                    turn_id,
                    EventPayload::ToolCallTimeout(payload),
                )]
            })
            .await?;
        Ok(match waited {
            Some(Waited::Answered(result)) => CallEnd::Resolved(result),
            Some(Waited::TimedOut) => CallEnd::TimedOut,
            Some(Waited::Canceled) => CallEnd::Canceled,
            None => CallEnd::Busy,
        })
    }

    /// `POST /v1/threads/{id}/turns/{turn_id}/tool-calls/{call_id}/result`:
    /// 202 once `tool_call.resolved` is durable. A wrong route, an unknown
    /// call or one already settled → 404.
    pub async fn submit(
        self: &Arc<Self>,
        thread_id: &str,
        turn_id: &str,
        call_id: &str,
        result: DynamicToolResult,
    ) -> Result<ToolResultAccepted, RuntimeError> {
        let tools = Arc::clone(self);
        let route = [thread_id, turn_id, call_id].map(str::to_string);
        detached(async move {
            let [thread_id, turn_id, call_id] = route;
            let not_found = || {
                RuntimeError::NotFound(format!("no pending tool call {call_id} in turn {turn_id}"))
            };
            let claim = tools.pending.claim(&call_id).await.ok_or_else(not_found)?;
            let waiting = claim.waiting();
            if waiting.thread_id != thread_id || waiting.turn_id != turn_id {
                return Err(not_found());
            }
            let mut payload = settled(&call_id, waiting, "resolved");
            payload.success = Some(result.success);
            payload.result_accepted = Some(true);
            tools
                .pending
                .commit(vec![event(
                    &thread_id,
                    &turn_id,
                    EventPayload::ToolCallResolved(payload),
                )])
                .await?;
            claim.settle(Some(result));
            Ok(ToolResultAccepted {
                accepted: true,
                call_id,
            })
        })
        .await
    }

    pub async fn pending_for(&self, thread_id: &str) -> Vec<Value> {
        self.pending.views_for(thread_id).await
    }

    /// Cancels a finished turn's calls (receipt first).
    pub async fn cancel_turn(&self, turn_id: &str, reason: &str) -> Result<usize, StoreError> {
        self.pending
            .cancel_turn(turn_id, |id, waiting| {
                let mut payload = settled(id, waiting, "canceled");
                payload.reason = Some(reason.to_string());
                payload.terminal = Some(true);
                vec![event(
                    &waiting.thread_id,
                    &waiting.turn_id,
                    EventPayload::ToolCallCanceled(payload),
                )]
            })
            .await
    }
}

/// A terminal event's payload: the call's identifiers and `status`.
fn settled<A>(
    call_id: &str,
    waiting: &super::pending::Waiting<A>,
    status: &str,
) -> ToolCallSettledPayload {
    let text = |key: &str| waiting.view[key].as_str().map(str::to_string);
    ToolCallSettledPayload {
        thread_id: waiting.thread_id.clone(),
        turn_id: waiting.turn_id.clone(),
        call_id: call_id.to_string(),
        namespace: text("namespace"),
        tool: text("tool").unwrap_or_default(),
        status: status.to_string(),
        success: None,
        result_accepted: None,
        timeout_secs: None,
        reason: None,
        terminal: None,
        recovered: None,
    }
}

/// The payload of `tool_call.canceled` for a call found unsettled after a
/// restart.
pub fn canceled_by_restart(requested: &Value) -> EventPayload {
    let text = |key: &str| requested[key].as_str().map(str::to_string);
    EventPayload::ToolCallCanceled(ToolCallSettledPayload {
        thread_id: text("thread_id").unwrap_or_default(),
        turn_id: text("turn_id").unwrap_or_default(),
        call_id: text("call_id").unwrap_or_default(),
        namespace: text("namespace"),
        tool: text("tool").unwrap_or_default(),
        status: "canceled".into(),
        success: None,
        result_accepted: None,
        timeout_secs: None,
        reason: Some("process_restart".into()),
        terminal: Some(true),
        recovered: Some(true),
    })
}

/// The function name the model sees: `namespace__name`, or `name`.
pub fn function_name(spec: &DynamicToolSpec) -> String {
    match &spec.namespace {
        Some(namespace) => format!("{namespace}__{}", spec.name),
        None => spec.name.clone(),
    }
}

/// A tool name or namespace: 1 to `max` ASCII letters, digits, `_` or `-`.
pub fn valid_name(name: &str, max: usize) -> bool {
    (1..=max).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Checks registered tools. What the API document states (names,
/// namespaces, an object schema, the count) is a malformed request (400);
/// names that clash with a built-in tool or with each other are a conflict
/// (409), which no schema can say.
pub fn validate(tools: &[DynamicToolSpec]) -> Result<(), RuntimeError> {
    if tools.len() > MAX_TOOLS {
        return Err(RuntimeError::invalid(format!(
            "at most {MAX_TOOLS} dynamic tools"
        )));
    }
    let mut names = HashSet::new();
    for tool in tools {
        if !valid_name(&tool.name, MAX_NAME_CHARS) {
            return Err(RuntimeError::invalid(format!(
                "dynamic tool names are 1-{MAX_NAME_CHARS} letters, digits, '_' or '-'"
            )));
        }
        if let Some(namespace) = &tool.namespace {
            if !valid_name(namespace, MAX_NAMESPACE_CHARS) {
                return Err(RuntimeError::invalid(format!(
                    "dynamic tool namespaces are 1-{MAX_NAMESPACE_CHARS} letters, digits, '_' or '-'"
                )));
            }
            if tool.name.len() > MAX_NAMESPACED_NAME_CHARS {
                return Err(RuntimeError::invalid(format!(
                    "beside a namespace, a dynamic tool name has at most {MAX_NAMESPACED_NAME_CHARS} characters"
                )));
            }
        }
        let function = function_name(tool);
        if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(RuntimeError::invalid(format!(
                "dynamic tool {function:?}: input_schema must be a JSON Schema with \"type\": \"object\""
            )));
        }
        if RESERVED.contains(&function.as_str()) {
            return Err(RuntimeError::Conflict(format!(
                "dynamic tool {function:?} would shadow a built-in tool"
            )));
        }
        if !names.insert(function.clone()) {
            return Err(RuntimeError::Conflict(format!(
                "dynamic tool {function:?} is registered twice"
            )));
        }
    }
    Ok(())
}

/// The thread's tools with the turn's added; a turn's tool replaces a
/// thread tool of the same name.
pub fn merge(thread: &[DynamicToolSpec], turn: &[DynamicToolSpec]) -> Vec<DynamicToolSpec> {
    let overridden: HashSet<String> = turn.iter().map(function_name).collect();
    thread
        .iter()
        .filter(|t| !overridden.contains(&function_name(t)))
        .chain(turn)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(namespace: Option<&str>, name: &str) -> DynamicToolSpec {
        DynamicToolSpec {
            namespace: namespace.map(str::to_string),
            name: name.into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn names_are_checked() {
        assert!(validate(&[spec(Some("ide"), "open_file"), spec(None, "open_file")]).is_ok());
        let conflict = |r: Result<(), RuntimeError>| matches!(r, Err(RuntimeError::Conflict(_)));
        let invalid = |r: Result<(), RuntimeError>| matches!(r, Err(RuntimeError::Invalid(_)));
        assert!(conflict(validate(&[spec(None, "read_file")])));
        assert!(validate(&[spec(Some("ide"), "read_file")]).is_ok());
        assert!(invalid(validate(&[spec(None, "bad name")])));
        assert!(conflict(validate(&[
            spec(Some("a"), "b"),
            spec(Some("a"), "b")
        ])));
        // The longest names fit the model's 64 characters, one more does not.
        assert!(validate(&[spec(None, &"m".repeat(MAX_NAME_CHARS))]).is_ok());
        assert!(invalid(validate(&[spec(
            None,
            &"m".repeat(MAX_NAME_CHARS + 1)
        )])));
        let longest = spec(
            Some(&"n".repeat(MAX_NAMESPACE_CHARS)),
            &"m".repeat(MAX_NAMESPACED_NAME_CHARS),
        );
        assert_eq!(function_name(&longest).len(), MAX_NAME_CHARS);
        assert!(validate(&[longest]).is_ok());
        assert!(invalid(validate(&[spec(
            Some(&"n".repeat(MAX_NAMESPACE_CHARS + 1)),
            "m"
        )])));
        assert!(invalid(validate(&[spec(
            Some("n"),
            &"m".repeat(MAX_NAMESPACED_NAME_CHARS + 1)
        )])));
        let mut no_schema = spec(None, "x");
        no_schema.input_schema = json!({"type": "string"});
        assert!(validate(&[no_schema]).is_err());
    }

    #[test]
    fn a_turn_tool_replaces_the_thread_tool_of_that_name() {
        let mut newer = spec(Some("ide"), "open");
        newer.description = "newer".into();
        let merged = merge(&[spec(Some("ide"), "open"), spec(None, "x")], &[newer]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[1].description, "newer");
    }
}
