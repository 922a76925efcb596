//! Tool dispatch: a tool call the model made runs as an item (asking for
//! approval first when it changes something), or is handed to the client
//! (a question for the user, a dynamic tool); the output is recorded,
//! truncated, in the transcript.

use super::{client_calls, model_call::ToolCall, skills_tool, subagents, tools};
use crate::runtime::{
    approvals::{ApprovalRequest, Decision},
    engine::TurnContext,
    hosted_tools::ExtraTools,
    turn_writer::ItemEnd,
};
use protocol::{ItemKind, Mode};
use serde_json::json;

/// Tool output kept in the transcript item.
const MAX_RECORDED_OUTPUT: usize = 64 * 1024;

/// Runs one tool call as an item (asking first when it changes
/// something); returns what the model sees.
pub(super) async fn run_tool(
    turn: &TurnContext,
    env: &Result<tools::ToolEnv, tools::ToolError>,
    call: &ToolCall,
) -> String {
    if subagents::is_subagent_tool(&call.name) {
        return subagents::run(turn, call).await;
    }
    if call.name == skills_tool::NAME && !turn.skills.is_empty() {
        return skills_tool::run(turn, &call.id, &call.arguments).await;
    }
    let dynamic = client_calls::find(&turn.settings.dynamic_tools, &call.name);
    if call.name == client_calls::REQUEST_USER_INPUT || dynamic.is_some() {
        return run_client_call(turn, call, dynamic).await;
    }
    let extra = turn.hosted.extra_for(&call.name).cloned();
    let (kind, request) = match &extra {
        Some(extra) => (ItemKind::ToolCall, extra_approval(extra.as_ref(), call)),
        None => (
            tools::kind(&call.name),
            tools::approval(&call.name, &call.arguments),
        ),
    };
    // An extra tool's arguments mean nothing to `summary`: just its name.
    let summary = match &extra {
        Some(_) => call.name.clone(),
        None => tools::summary(&call.name, &call.arguments),
    };
    let items = &turn.items;
    let item = items.start(kind, summary).await;
    let mut metadata =
        json!({ "tool": call.name, "call_id": call.id, "arguments": call.arguments });
    let execute = |env| execute(env, extra.as_deref(), call, &item);
    // A trusted server's tool runs unasked, yet may still change things:
    // read-only modes take only what declares it changes nothing.
    let changes = match &extra {
        Some(extra) => !extra.read_only(&call.name),
        None => request.is_some(),
    };
    let result = match (env, request) {
        (Err(error), _) => Err(error.clone()),
        (Ok(_), _) if changes && !turn.settings.mode.may_change() => {
            Err(tools::ToolError(format!(
                "{} mode is read-only; {}",
                turn.settings.mode.as_str(),
                match turn.settings.mode {
                    Mode::Review => "submit a finding instead",
                    _ => "describe the change instead",
                }
            )))
        }
        (Ok(_), None) if call.name == tools::review::NAME && turn.settings.mode != Mode::Review => {
            Err(tools::ToolError(
                "findings are submitted in review mode only".into(),
            ))
        }
        (Ok(_), Some(_)) if call.name == "exec_shell" && !turn.settings.allow_shell => Err(
            tools::ToolError("shell commands are disabled for this thread".into()),
        ),
        (Ok(env), Some(request)) => match turn.client.approve(request).await {
            Decision::Allow => {
                turn.checkpoint.before_change().await;
                execute(env).await
            }
            Decision::Deny => Err(tools::ToolError("the user denied this action".into())),
        },
        (Ok(env), None) => execute(env).await,
    };
    metadata["ok"] = json!(result.is_ok());
    match result {
        Ok(output) => {
            if let (Some(target), Some(extra)) =
                (metadata.as_object_mut(), output.metadata.as_object())
            {
                target.extend(extra.clone());
            }
            items
                .end(
                    &item,
                    ItemEnd::Completed,
                    Some(truncate(&output.text)),
                    Some(metadata),
                )
                .await;
            output.text
        }
        Err(error) => {
            items
                .end(
                    &item,
                    ItemEnd::Failed,
                    Some(error.0.clone()),
                    Some(metadata),
                )
                .await;
            format!("error: {}", error.0)
        }
    }
}

/// Runs the call: an extra (MCP) tool, or one of the workspace tools.
async fn execute(
    env: &tools::ToolEnv,
    extra: Option<&dyn ExtraTools>,
    call: &ToolCall,
    item_id: &str,
) -> Result<tools::ToolOutput, tools::ToolError> {
    let Some(extra) = extra else {
        return tools::run(env, &call.name, &call.arguments, item_id).await;
    };
    let arguments = match call.arguments.trim() {
        "" => json!({}),
        text => serde_json::from_str(text)
            .map_err(|e| tools::ToolError(format!("arguments are not valid JSON: {e}")))?,
    };
    extra
        .call(&call.name, arguments)
        .await
        .map(tools::ToolOutput::from)
        .map_err(tools::ToolError)
}

/// An extra tool is asked for unless its set says it need not be (it
/// declares it changes nothing, or the user trusts its server).
fn extra_approval(extra: &dyn ExtraTools, call: &ToolCall) -> Option<ApprovalRequest> {
    if !extra.asks(&call.name) {
        return None;
    }
    // The user decides on the arguments themselves, shown whole up to a
    // bound (the model chooses them; nothing in them is trusted).
    const SHOWN: usize = 600;
    let mut arguments = call.arguments.trim().to_string();
    crate::text::clip(&mut arguments, SHOWN, "…");
    Some(ApprovalRequest {
        tool_name: call.name.clone(),
        description: format!("Call {} with {}", call.name, arguments),
        intent_summary: "run a tool from an MCP server".to_string(),
    })
}

/// A call the client answers: a question for the user or a dynamic tool.
async fn run_client_call(
    turn: &TurnContext,
    call: &ToolCall,
    dynamic: Option<&protocol::DynamicToolSpec>,
) -> String {
    let summary = match dynamic {
        Some(spec) => format!("{} (client)", client_calls_label(spec)),
        None => question_summary(&call.arguments),
    };
    let item = turn.items.start(ItemKind::ToolCall, summary).await;
    let output = match dynamic {
        Some(spec) => client_calls::call_dynamic(&turn.client, spec, &call.arguments).await,
        None => client_calls::ask_user(&turn.client, &call.arguments).await,
    };
    let mut metadata = json!({ "tool": call.name, "call_id": call.id, "arguments": call.arguments, "ok": output.ok });
    if let (Some(target), Some(extra)) = (
        metadata.as_object_mut(),
        output.recorded.metadata.as_object(),
    ) {
        target.extend(extra.clone());
    }
    let end = if output.ok {
        ItemEnd::Completed
    } else {
        ItemEnd::Failed
    };
    let detail = Some(truncate(&output.recorded.text));
    turn.items.end(&item, end, detail, Some(metadata)).await;
    output.for_model
}

fn client_calls_label(spec: &protocol::DynamicToolSpec) -> String {
    match &spec.namespace {
        Some(namespace) => format!("{namespace}.{}", spec.name),
        None => spec.name.clone(),
    }
}

/// "Asked: <first question>" for the transcript.
fn question_summary(arguments: &str) -> String {
    let args: serde_json::Value = serde_json::from_str(arguments).unwrap_or_default();
    let first = &args["questions"][0];
    let text = first["header"]
        .as_str()
        .filter(|h| !h.is_empty())
        .or_else(|| first["question"].as_str())
        .unwrap_or("a question");
    format!("Asked the user: {text}")
}

fn truncate(text: &str) -> String {
    let mut text = text.to_string();
    crate::text::clip(&mut text, MAX_RECORDED_OUTPUT, "\n… truncated");
    text
}
