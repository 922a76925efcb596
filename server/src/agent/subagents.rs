//! `spawn_agent` and `agent_result`: the model delegates a bounded task to
//! a sub-agent (a child thread, `runtime/agent_runs/`) and reads what it
//! did. The runtime enforces the limits; this file phrases the tools and
//! their results for the model, and records each call as an item that
//! links to the child's thread.

use super::model_call::ToolCall;
use crate::runtime::{agent_runs::SpawnRequest, engine::TurnContext, turn_writer::ItemEnd};
use protocol::{AgentIsolation, AgentRun, ItemKind, Mode};
use serde_json::{json, Value};

pub const SPAWN: &str = "spawn_agent";
pub const RESULT: &str = "agent_result";

pub fn is_subagent_tool(name: &str) -> bool {
    name == SPAWN || name == RESULT
}

/// The two tools, offered while the thread may still spawn.
pub fn specs() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {
            "name": SPAWN,
            "description": "Delegate a bounded, self-contained task to a sub-agent: a fresh agent that works in this \
        workspace (or, with isolation \"worktree\", in a git worktree and branch of its own) with your settings, and answers \
        with a report. Give it everything it needs in the prompt; it does not see this conversation. With wait (the default) \
        this returns its report; with wait false it returns at once with a run_id to pass to agent_result later.",
            "parameters": {
                "type": "object", "required": ["prompt"],
                "properties": {
                    "prompt": {"type": "string", "description": "The whole task, with the context it needs"},
                    "wait": {"type": "boolean", "description": "Wait for its report (default true)"},
                    "mode": {"type": "string", "enum": ["agent", "plan"], "description": "plan: read and report only"},
                    "isolation": {"type": "string", "enum": ["shared", "worktree"], "description": "Where it works (default shared)"}
                }
            }
        }}),
        json!({"type": "function", "function": {
            "name": RESULT,
            "description": "The report of a sub-agent you spawned: waits for it to finish unless wait is false.",
            "parameters": {
                "type": "object", "required": ["run_id"],
                "properties": {
                    "run_id": {"type": "string"},
                    "wait": {"type": "boolean", "description": "Wait until it finishes (default true)"}
                }
            }
        }}),
    ]
}

/// Runs one of the two as an item; returns what the model sees.
pub(super) async fn run(turn: &TurnContext, call: &ToolCall) -> String {
    let args: Value = serde_json::from_str(call.arguments.trim()).unwrap_or(Value::Null);
    let summary = match call.name.as_str() {
        SPAWN => format!(
            "Sub-agent: {}",
            crate::runtime::threads::title_from_prompt(args["prompt"].as_str().unwrap_or(""))
                .unwrap_or_else(|| "(no prompt)".into())
        ),
        _ => format!(
            "Sub-agent result: {}",
            args["run_id"].as_str().unwrap_or("?")
        ),
    };
    let item = turn.items.start(ItemKind::ToolCall, summary).await;
    // The spawn refers to this item: it must be recorded first.
    turn.items.sync().await;
    let (run, result) = match call.name.as_str() {
        SPAWN => spawn(turn, &item, &args).await,
        _ => (None, result(turn, &args).await),
    };
    let mut metadata = json!({ "tool": call.name, "call_id": call.id, "arguments": call.arguments, "ok": result.is_ok() });
    // The run stays linked even when waiting for it failed.
    if let Some(run) = result.as_ref().ok().or(run.as_ref()) {
        metadata["run_id"] = json!(run.run_id);
        metadata["child_thread_id"] = json!(run.thread_id);
    }
    let (end, text) = match result {
        Ok(run) => {
            // Only an end: a run left going ends later, on the stream.
            if run.status.is_terminal() {
                metadata["run_status"] = json!(run.status);
            }
            (ItemEnd::Completed, report(&run))
        }
        Err(error) => (ItemEnd::Failed, format!("error: {error}")),
    };
    turn.items
        .end(&item, end, Some(text.clone()), Some(metadata))
        .await;
    text
}

/// The run started (if it was), and how the call ended.
async fn spawn(
    turn: &TurnContext,
    item: &str,
    args: &Value,
) -> (Option<AgentRun>, Result<AgentRun, String>) {
    let request = match spawn_request(args) {
        Ok(request) => request,
        Err(error) => return (None, Err(error)),
    };
    let wait = request.wait;
    // Its own task: dropping this call (the parent interrupted) must not
    // cut a spawn off between its thread, worktree and recorded start.
    let (gate, item) = (turn.agents.clone(), item.to_string());
    let started = tokio::spawn(async move { gate.spawn(&item, request).await }).await;
    let run = match started {
        Ok(Ok(run)) => run,
        Ok(Err(error)) => return (None, Err(error)),
        Err(error) => return (None, Err(format!("starting the sub-agent failed: {error}"))),
    };
    if !wait {
        return (None, Ok(run));
    }
    let result = turn.agents.wait(&run.run_id).await;
    (Some(run), result)
}

fn spawn_request(args: &Value) -> Result<SpawnRequest, String> {
    let Some(prompt) = args["prompt"].as_str() else {
        return Err("prompt (a string) is required".into());
    };
    let mode = match args["mode"].as_str() {
        None => None,
        Some(name) => Some(Mode::parse(name)?),
    };
    let isolation = match args["isolation"].as_str() {
        None => AgentIsolation::Shared,
        Some(name) => AgentIsolation::parse(name)
            .ok_or_else(|| format!("isolation must be shared or worktree (got {name:?})"))?,
    };
    Ok(SpawnRequest {
        prompt: prompt.to_string(),
        mode,
        isolation,
        wait: args["wait"].as_bool().unwrap_or(true),
    })
}

async fn result(turn: &TurnContext, args: &Value) -> Result<AgentRun, String> {
    let Some(run_id) = args["run_id"].as_str() else {
        return Err("run_id (a string) is required".into());
    };
    if args["wait"].as_bool().unwrap_or(true) {
        turn.agents.wait(run_id).await
    } else {
        turn.agents.read(run_id).await
    }
}

/// The receipt as the model reads it: status, report, what changed, what
/// was checked, and (while running) how to get the report later.
fn report(run: &AgentRun) -> String {
    let files: Vec<Value> = run
        .artifacts
        .iter()
        .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
        .collect();
    let checks: Vec<Value> = run
        .verification
        .commands
        .iter()
        .map(|c| json!({ "command": c.command, "exit_code": c.exit_code }))
        .collect();
    let mut report = json!({
        "run_id": run.run_id,
        "status": run.status,
        "thread_id": run.thread_id,
        "report": run.answer,
        "error": run.error,
        "artifacts": files,
        "commands": checks,
        "tokens": run.usage.input_tokens + run.usage.output_tokens,
    });
    if !run.status.is_terminal() {
        report["next"] = json!(format!(
            "running; call agent_result with run_id {} for its report",
            run.run_id
        ));
    }
    report.to_string()
}
