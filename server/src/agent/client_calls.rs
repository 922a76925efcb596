//! Tools the client answers rather than the workspace: `request_user_input`
//! (the user answers questions) and the client's registered dynamic tools.
//! Both wait through the turn's `ClientGate`; neither stores what the
//! client sent back beyond what the transcript may show.

use super::tools::ToolOutput;
use crate::runtime::{
    client_tools::{self, CallEnd},
    engine::ClientGate,
    user_input::{self, Reply},
};
use protocol::{DynamicToolSpec, UserInputRequest};
use serde_json::{json, Value};

pub const REQUEST_USER_INPUT: &str = "request_user_input";

/// How a client call ended, for the transcript and the model.
pub struct ClientCallOutput {
    /// What the model reads.
    pub for_model: String,
    /// What the transcript records (never the user's answers).
    pub recorded: ToolOutput,
    pub ok: bool,
}

/// The function specs of `request_user_input` and the dynamic tools.
pub fn specs(dynamic: &[DynamicToolSpec]) -> Vec<Value> {
    let option = json!({"type": "object", "required": ["label"], "properties": {
        "label": {"type": "string"}, "description": {"type": "string"}}});
    let question = json!({"type": "object", "required": ["id", "question"], "properties": {
        "id": {"type": "string"}, "header": {"type": "string", "description": "A short title"},
        "question": {"type": "string"}, "options": {"type": "array", "items": option},
        "allow_free_text": {"type": "boolean"}, "multi_select": {"type": "boolean"}}});
    let mut specs = vec![json!({"type": "function", "function": {
        "name": REQUEST_USER_INPUT,
        "description": "Ask the user one or more questions and wait for the answers. Use it when a decision is theirs to make.",
        "parameters": {"type": "object", "required": ["questions"], "properties": {
            "questions": {"type": "array", "items": question}}}
    }})];
    specs.extend(dynamic.iter().map(|tool| {
        json!({"type": "function", "function": {
            "name": client_tools::function_name(tool),
            "description": tool.description,
            "parameters": tool.input_schema,
        }})
    }));
    specs
}

/// The dynamic tool a function name refers to.
pub fn find<'a>(dynamic: &'a [DynamicToolSpec], name: &str) -> Option<&'a DynamicToolSpec> {
    dynamic
        .iter()
        .find(|tool| client_tools::function_name(tool) == name)
}

/// Asks the user. The answers go to the model only; the transcript gets a
/// neutral receipt marked `response_redacted`.
pub async fn ask_user(client: &ClientGate, arguments: &str) -> ClientCallOutput {
    let request = serde_json::from_str::<UserInputRequest>(arguments)
        .map_err(|e| format!("invalid questions: {e}"))
        .and_then(|request| user_input::validate(&request).map(|()| request));
    let request = match request {
        Ok(request) => request,
        Err(error) => return refused(error),
    };
    let questions = request.questions.len();
    let (for_model, detail, status, ok) = match client.user_input(request.clone()).await {
        Reply::Answered(answers) => (
            user_input::answers_text(&request, &answers),
            "User input submitted",
            "answered",
            true,
        ),
        Reply::TimedOut => (
            "The user did not answer in time. Continue without the answers or ask again later."
                .into(),
            "No answer in time",
            "timeout",
            false,
        ),
        Reply::Canceled => (
            "The question was canceled.".into(),
            "User input canceled",
            "canceled",
            false,
        ),
    };
    ClientCallOutput {
        for_model,
        recorded: ToolOutput {
            text: detail.into(),
            metadata: json!({ "response_redacted": true, "questions": questions, "status": status }),
        },
        ok,
    }
}

/// Runs a client-executed tool and waits for its result.
pub async fn call_dynamic(
    client: &ClientGate,
    spec: &DynamicToolSpec,
    arguments: &str,
) -> ClientCallOutput {
    let arguments: Value = if arguments.trim().is_empty() {
        json!({})
    } else {
        match serde_json::from_str(arguments) {
            Ok(value) => value,
            Err(e) => return refused(format!("arguments are not valid JSON: {e}")),
        }
    };
    let (text, status, ok) = match client.client_tool(spec, arguments).await {
        CallEnd::Resolved(result) => (result.to_text(), "resolved", result.success),
        CallEnd::TimedOut => (
            "The client did not return a result in time.".into(),
            "timeout",
            false,
        ),
        CallEnd::Canceled => ("The tool call was canceled.".into(), "canceled", false),
        CallEnd::Busy => (
            format!(
                "Too many client tool calls are waiting (at most {}).",
                client_tools::MAX_PENDING_PER_THREAD
            ),
            "refused",
            false,
        ),
    };
    let mut metadata = json!({ "dynamic": true, "status": status, "success": ok });
    if let Some(namespace) = &spec.namespace {
        metadata["namespace"] = json!(namespace);
    }
    ClientCallOutput {
        for_model: text.clone(),
        recorded: ToolOutput { text, metadata },
        ok,
    }
}

fn refused(error: String) -> ClientCallOutput {
    ClientCallOutput {
        for_model: format!("error: {error}"),
        recorded: ToolOutput {
            text: error,
            metadata: json!({}),
        },
        ok: false,
    }
}
