//! `codewhale_run` (only with `--allow-agent`): one agent turn in the
//! server's workspace, through `Runtime` like `codewhale exec`. Nobody can
//! answer an approval over this transport, so the runtime waits zero
//! seconds and every write or command is denied.

use crate::runtime::{stream::Cursor, Runtime};
use protocol::{CreateThread, EventName, ItemKind, StartTurn};
use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use serde_json::{json, Value};
use std::{future::Future, path::Path, sync::Arc};

pub const NAME: &str = "codewhale_run";

const DESCRIPTION: &str = "Run a codewhale agent turn in this server's workspace and return its final answer \
with the thread and turn ids. Without thread_id a new thread is started; pass the returned thread_id to \
continue it. Headless: the agent may read and search the workspace, but every file write and shell command \
is denied (nobody can approve it here), as with `codewhale exec` without --auto-approve.";

pub fn tool() -> Tool {
    let input = json!({
        "type": "object", "required": ["prompt"],
        "properties": {
            "prompt": {"type": "string", "description": "What to ask the agent"},
            "thread_id": {"type": "string", "description": "Continue this thread (one of this workspace's) instead of starting a new one"}
        }
    });
    let output = json!({
        "type": "object", "required": ["answer", "thread_id", "turn_id", "status"],
        "properties": {
            "answer": {"type": "string"},
            "thread_id": {"type": "string"},
            "turn_id": {"type": "string"},
            "status": {"type": "string"},
            "error": {"type": "string"}
        }
    });
    let object = |v: Value| Arc::new(v.as_object().cloned().unwrap_or_default());
    Tool::new(NAME, DESCRIPTION, object(input))
        .with_raw_output_schema(object(output))
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(false)
                .open_world(true),
        )
}

/// Runs the turn; every failure is a tool error the caller can read.
pub async fn run(
    runtime: &Runtime,
    workspace: &Path,
    prompt: &str,
    thread_id: Option<&str>,
    cancelled: impl Future<Output = ()>,
) -> CallToolResult {
    match turn(runtime, workspace, prompt, thread_id, cancelled).await {
        Ok(outcome) => outcome,
        Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
    }
}

async fn turn(
    runtime: &Runtime,
    workspace: &Path,
    prompt: &str,
    thread_id: Option<&str>,
    cancelled: impl Future<Output = ()>,
) -> Result<CallToolResult, String> {
    if prompt.trim().is_empty() {
        return Err("prompt is empty".into());
    }
    let (thread_id, since_seq) = match thread_id {
        Some(id) => (id.to_string(), existing(runtime, workspace, id).await?),
        None => {
            let request = CreateThread {
                workspace: Some(workspace.display().to_string()),
                auto_approve: Some(false),
                ..CreateThread::default()
            };
            let thread = runtime
                .create_thread(request)
                .await
                .map_err(|e| e.to_string())?;
            (thread.id, 0)
        }
    };
    // Subscribed before the turn starts, so no event can slip past.
    let cursor = Cursor {
        since_seq,
        replay_limit: None,
    };
    let mut frames = runtime
        .subscribe(&thread_id, cursor)
        .await
        .map_err(|e| e.to_string())?;
    // Per-turn overrides too: the thread may change between the check
    // above and the start (a browser's PATCH).
    let start = StartTurn {
        prompt: prompt.to_string(),
        auto_approve: Some(false),
        trust_mode: Some(false),
        mode: Some("agent".into()),
        ..StartTurn::default()
    };
    let started = runtime
        .start_turn(&thread_id, start)
        .await
        .map_err(|e| e.to_string())?;
    let turn_id = started.turn.id;
    let mut interrupted = false;
    let mut cancelled = std::pin::pin!(cancelled);
    let (status, error) = loop {
        let frame = tokio::select! {
            frame = frames.recv() => frame,
            // The client gave up on the call: stop the turn, still wait for its end.
            _ = &mut cancelled, if !interrupted => {
                interrupted = true;
                let _ = runtime.interrupt_turn(&thread_id, &turn_id).await;
                continue;
            }
        };
        let Some(frame) = frame else {
            return Err("the runtime stopped before the turn ended".into());
        };
        if frame.event != EventName::TurnCompleted.as_str() {
            continue;
        }
        let envelope: Value = serde_json::from_str(&frame.data).unwrap_or(Value::Null);
        let turn = &envelope["payload"]["turn"];
        if turn["id"] == turn_id.as_str() {
            let text = |v: &Value| v.as_str().map(str::to_string);
            break (
                text(&turn["status"]).unwrap_or_default(),
                text(&turn["error"]),
            );
        }
    };
    let answer = final_answer(runtime, &thread_id, &turn_id).await;
    let mut report = json!({
        "answer": answer, "thread_id": thread_id, "turn_id": turn_id, "status": status,
    });
    if let Some(error) = &error {
        report["error"] = json!(error);
    }
    let mut content = vec![ContentBlock::text(answer)];
    content.push(ContentBlock::text(format!(
        "thread_id: {thread_id}\nturn_id: {turn_id}\nstatus: {status}{}",
        error.map(|e| format!("\nerror: {e}")).unwrap_or_default()
    )));
    let mut result = if status == "completed" {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    };
    result.structured_content = Some(report);
    Ok(result)
}

/// An existing thread may be continued only if it works in this server's
/// workspace (the client was given this one, not the others the home
/// holds) and does not auto-approve (this transport never approves).
/// Returns where its event stream stands.
async fn existing(runtime: &Runtime, workspace: &Path, id: &str) -> Result<i64, String> {
    let detail = runtime.thread(id).await.map_err(|e| e.to_string())?;
    let same = detail
        .thread
        .workspace
        .as_deref()
        .and_then(|w| Path::new(w).canonicalize().ok())
        .is_some_and(|w| w == workspace);
    if !same {
        return Err(format!(
            "thread {id} works in another workspace; this server serves {}",
            workspace.display()
        ));
    }
    // Yolo approves everything and trust mode reads outside the workspace:
    // an MCP client must not inherit either from a thread a person set up.
    let thread = &detail.thread;
    if thread.auto_approve || thread.trust_mode || thread.mode == protocol::Mode::Yolo {
        return Err(format!(
            "thread {id} auto-approves, trusts or runs in yolo mode; codewhale_run only continues threads that do none of these"
        ));
    }
    Ok(detail.latest_seq)
}

/// The turn's last agent message (its text is the item's detail).
async fn final_answer(runtime: &Runtime, thread_id: &str, turn_id: &str) -> String {
    let Ok(detail) = runtime.thread(thread_id).await else {
        return String::new();
    };
    detail
        .items
        .iter()
        .rev()
        .find(|item| item.turn_id == turn_id && item.kind == ItemKind::AgentMessage)
        .and_then(|item| item.detail.clone())
        .unwrap_or_default()
}
