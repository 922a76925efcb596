//! The turn loop: model calls and the tool calls they ask for, steers
//! folded in between, automatic compaction when the chat nears the window,
//! until the model answers without tools (or is interrupted, or fails).

use super::{
    client_calls,
    compaction::{self, compact, Stop, Trigger},
    conversation,
    dispatch::run_tool,
    model_call::{add, call, Answer, Model},
    skills_tool, subagents, tools,
};
use crate::runtime::{
    engine::{Outcome, TurnContext, TurnInput},
    hosted_tools::Joined,
    turn_writer::ItemEnd,
};
use protocol::{ItemKind, Mode, Usage};
use serde_json::json;
use std::sync::Arc;

/// What review mode asks of the model (its tools enforce the rest).
const REVIEW_INSTRUCTIONS: &str = "You are reviewing code in this workspace and cannot change it. \
Read what the user asks you to review (git_diff shows uncommitted changes), then report each concrete problem \
with submit_review_finding: the tightest line range, a priority, a one-line title, why it matters, and an exact \
replacement for those lines when the fix is clear. Do not report style preferences. End with a short summary.";

/// At most this many model calls in one turn.
const MAX_MODEL_CALLS: usize = 64;

pub(super) async fn run_turn(model: Model, mut turn: TurnContext) -> Outcome {
    let mut messages = conversation::messages(&turn.thread, &turn.instructions, &turn.history);
    if turn.settings.mode == Mode::Review {
        messages.insert(
            0,
            json!({ "role": "system", "content": REVIEW_INSTRUCTIONS }),
        );
    }
    let mut usage = Usage::default();
    if let TurnInput::Compact { reason } = &turn.input {
        let trigger = Trigger {
            auto: false,
            reason: reason.clone(),
            tokens: compaction::estimate_tokens(&messages),
        };
        return match compact(&model, &mut turn, &mut messages, trigger, &mut usage).await {
            Ok(_) => Outcome::Completed { usage },
            Err(Stop::Interrupted) => Outcome::Interrupted { usage },
            Err(Stop::Failed(error)) => failed(&turn, error, usage).await,
        };
    }
    let tool_env = match turn.thread.workspace.as_deref() {
        Some(root) => tools::Workspace::new(std::path::Path::new(root), turn.settings.trust_mode)
            .map(|workspace| tools::ToolEnv {
                workspace: Arc::new(workspace),
                editor: turn.hosted.editor.clone(),
            })
            .map_err(tools::ToolError::from),
        None => Err(tools::ToolError("this thread has no workspace".into())),
    };
    // The configured MCP servers' tools, beside any the client brought. A
    // server's trust counts only where a person could have been asked (not
    // in `codewhale_run`, nor `exec` without --auto-approve).
    let honour_trust = turn.client.can_be_answered();
    let mut interrupt = turn.interrupt.clone();
    let configured = tokio::select! {
        tools = turn.mcp.turn_tools(honour_trust) => tools,
        _ = interrupt.changed() => return Outcome::Interrupted { usage },
    };
    if let Some(configured) = configured {
        turn.hosted.extra = Some(match turn.hosted.extra.take() {
            Some(client) => Arc::new(Joined(client, configured)),
            None => configured,
        });
    }
    let mut specs = tools::specs().as_array().cloned().unwrap_or_default();
    if turn.settings.mode.may_change() {
        specs.extend(tools::mutating_specs(turn.settings.allow_shell));
    }
    if turn.settings.mode == Mode::Review {
        specs.push(tools::review::spec());
    }
    if turn.agents.may_spawn().await {
        specs.extend(subagents::specs());
    }
    if !turn.skills.is_empty() {
        specs.push(skills_tool::spec(&turn));
    }
    specs.extend(client_calls::specs(&turn.settings.dynamic_tools));
    if let Some(extra) = &turn.hosted.extra {
        // Read-only modes get only the tools that declare they change nothing.
        let may_change = turn.settings.mode.may_change();
        specs.extend(extra.specs().into_iter().filter(|spec| {
            may_change
                || spec["function"]["name"]
                    .as_str()
                    .is_some_and(|n| extra.read_only(n))
        }));
    }
    // The history alone may already be too long for the window.
    let mut size = compaction::estimate_tokens(&messages);
    for _ in 0..MAX_MODEL_CALLS {
        if model.policy.exceeded(size) {
            let trigger = Trigger {
                auto: true,
                reason: None,
                tokens: size,
            };
            match compact(&model, &mut turn, &mut messages, trigger, &mut usage).await {
                Ok(_) => {}
                Err(Stop::Interrupted) => return Outcome::Interrupted { usage },
                // The call itself may still fit: go on, uncompacted.
                Err(Stop::Failed(error)) => tracing::warn!(%error, "automatic compaction failed"),
            }
        }
        let body = json!({
            "model": model.provider.model,
            "messages": messages,
            "stream": true,
            "stream_options": { "include_usage": true },
            "tools": specs,
        });
        let answer = Answer {
            kind: ItemKind::AgentMessage,
            summary: String::new(),
            metadata: None,
        };
        let reply = tokio::select! {
            reply = call(&model.client, &model.provider, &body, &turn.items, &answer) => reply,
            _ = turn.interrupt.changed() => return Outcome::Interrupted { usage },
        };
        let reply = match reply {
            Ok(reply) => reply,
            Err(error) => return failed(&turn, error.to_string(), usage).await,
        };
        add(&mut usage, &reply.usage);
        messages.push(reply.assistant_message());
        let mut interrupt = turn.interrupt.clone();
        for call in &reply.tool_calls {
            let output = tokio::select! {
                output = run_tool(&turn, &tool_env, call) => output,
                _ = interrupt.changed() => return Outcome::Interrupted { usage },
            };
            messages.push(json!({ "role": "tool", "tool_call_id": call.id, "content": output }));
        }
        // Steers that arrived meanwhile go in before the next call.
        let mut steered = false;
        while let Ok(prompt) = turn.steers.try_recv() {
            messages.push(json!({ "role": "user", "content": prompt }));
            steered = true;
        }
        if reply.tool_calls.is_empty() && !steered {
            return Outcome::Completed { usage };
        }
        // The provider's count of this call, or an estimate when it gave none.
        let reported = reply.usage.input_tokens + reply.usage.output_tokens;
        size = reported.max(compaction::estimate_tokens(&messages));
    }
    Outcome::Failed {
        error: format!("stopped after {MAX_MODEL_CALLS} model calls in one turn"),
        usage,
    }
}

/// Ends the turn failed with a readable error item.
async fn failed(turn: &TurnContext, error: String, usage: Usage) -> Outcome {
    let item = turn
        .items
        .start(ItemKind::Error, "The model call failed")
        .await;
    turn.items
        .end(&item, ItemEnd::Completed, Some(error.clone()), None)
        .await;
    Outcome::Failed { error, usage }
}
