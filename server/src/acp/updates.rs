//! From the runtime's items and events to ACP `session/update` bodies (the
//! `update` object, wire JSON). Live prompts map event envelopes; a
//! `session/load` maps the stored items, so both say the same thing.

use super::diffs;
use protocol::{EventName, ItemKind, ItemStatus, TurnItemRecord};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The context-window size reported in `usage_update` when the provider
/// does not say (the runtime does not know it per model yet).
const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

/// The ACP tool kind of one of our tools (by name).
fn tool_kind(tool: &str) -> &'static str {
    match tool {
        "read_file" | "list_dir" | "git_status" | "git_diff" => "read",
        "grep_files" | "file_search" => "search",
        "write_file" | "edit_file" | "apply_patch" => "edit",
        "exec_shell" => "execute",
        "update_plan" => "think",
        name if name.contains("fetch") => "fetch",
        _ => "other",
    }
}

fn is_tool(kind: ItemKind) -> bool {
    matches!(
        kind,
        ItemKind::ToolCall
            | ItemKind::FileChange
            | ItemKind::CommandExecution
            | ItemKind::ReviewFinding
    )
}

/// The tool name of an item: the metadata's once it ended, else the first
/// word of the summary (`tools::summary` starts with it).
pub(super) fn tool_name(item: &TurnItemRecord) -> String {
    match item.metadata["tool"].as_str() {
        Some(tool) => tool.to_string(),
        None => item
            .summary
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string(),
    }
}

fn text(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

/// Maps one session's items and events; knows the workspace so that
/// locations and diff paths are absolute, as ACP requires.
pub struct Mapper {
    workspace: PathBuf,
}

impl Mapper {
    pub fn new(workspace: &Path) -> Self {
        Self {
            workspace: workspace.to_path_buf(),
        }
    }

    /// The updates one live event means (none for most).
    pub fn event(&self, name: EventName, envelope: &Value) -> Vec<Value> {
        let payload = &envelope["payload"];
        let item_id = envelope["item_id"].as_str().unwrap_or_default();
        match name {
            EventName::ItemDelta => {
                let delta = payload["delta"].as_str().unwrap_or_default();
                let update = match payload["kind"].as_str() {
                    Some("agent_message") => "agent_message_chunk",
                    Some("agent_reasoning") => "agent_thought_chunk",
                    _ => return vec![],
                };
                vec![
                    json!({ "sessionUpdate": update, "content": text(delta), "messageId": item_id }),
                ]
            }
            EventName::ItemStarted => match item(payload) {
                Some(item) if is_tool(item.kind) => vec![self.tool_call(&item, "in_progress")],
                _ => vec![],
            },
            EventName::ItemCompleted | EventName::ItemFailed | EventName::ItemInterrupted => {
                match item(payload) {
                    Some(item) if is_tool(item.kind) => self.tool_end(&item, false),
                    Some(item) if item.kind == ItemKind::Error => vec![error_chunk(&item)],
                    _ => vec![],
                }
            }
            EventName::ThreadUpdated => {
                let thread = &payload["thread"];
                let changed = |field: &str| {
                    payload["changed"]
                        .as_array()
                        .is_some_and(|c| c.iter().any(|v| v == field))
                };
                let mut out = vec![];
                if changed("mode") {
                    out.push(json!({ "sessionUpdate": "current_mode_update", "currentModeId": thread["mode"] }));
                }
                if changed("title") {
                    out.push(json!({ "sessionUpdate": "session_info_update", "title": thread["title"], "updatedAt": thread["updated_at"] }));
                }
                out
            }
            EventName::TurnCompleted => usage(&payload["turn"]["usage"]).into_iter().collect(),
            _ => vec![],
        }
    }

    /// The updates that replay one stored item for `session/load`.
    pub fn replay(&self, item: &TurnItemRecord) -> Vec<Value> {
        let body = item.detail.as_deref().unwrap_or(&item.summary);
        let chunk = |update: &str| {
            vec![json!({ "sessionUpdate": update, "content": text(body), "messageId": item.id })]
        };
        match item.kind {
            ItemKind::UserMessage => chunk("user_message_chunk"),
            ItemKind::AgentMessage => chunk("agent_message_chunk"),
            ItemKind::AgentReasoning => chunk("agent_thought_chunk"),
            ItemKind::Error => vec![error_chunk(item)],
            kind if is_tool(kind) => self.tool_end(item, true),
            _ => vec![],
        }
    }

    /// A `tool_call` announcing the item.
    pub fn tool_call(&self, item: &TurnItemRecord, status: &str) -> Value {
        let tool = tool_name(item);
        let mut call = json!({
            "sessionUpdate": "tool_call",
            "toolCallId": item.id,
            "title": item.summary,
            "kind": tool_kind(&tool),
            "status": status,
        });
        if let Some(input) = raw_input(item) {
            call["locations"] = self.locations(&input);
            call["rawInput"] = input;
        }
        call
    }

    /// The ended item as a `tool_call_update` (or, replaying, one complete
    /// `tool_call`), plus a `plan` when it was a plan update.
    fn tool_end(&self, item: &TurnItemRecord, replaying: bool) -> Vec<Value> {
        let status = match item.status {
            ItemStatus::Completed => "completed",
            ItemStatus::InProgress => "in_progress",
            ItemStatus::Failed | ItemStatus::Interrupted => "failed",
        };
        let mut update = self.tool_call(item, status);
        if !replaying {
            update["sessionUpdate"] = json!("tool_call_update");
        }
        update["content"] = Value::Array(self.content(item, replaying));
        if let Some(output) = &item.detail {
            update["rawOutput"] = json!({ "output": output });
        }
        let mut out = vec![update];
        if tool_name(item) == "update_plan" && item.status == ItemStatus::Completed {
            out.extend(plan(&item.metadata["plan"]));
        }
        out
    }

    /// What a client shows inside the tool call: diffs for edits, the
    /// command and its output for shell commands, the output otherwise.
    /// A command run in the editor's terminal keeps showing that terminal
    /// (live, it was embedded when it started); replayed, its output.
    fn content(&self, item: &TurnItemRecord, replaying: bool) -> Vec<Value> {
        let output = item.detail.as_deref().unwrap_or_default();
        match item.kind {
            ItemKind::FileChange if item.status == ItemStatus::Completed => {
                let diff = item.metadata["diff"].as_str().unwrap_or_default();
                let mut content: Vec<Value> = diffs::parse(diff)
                    .into_iter()
                    .map(|file| {
                        json!({
                            "type": "diff",
                            "path": self.workspace.join(&file.path).display().to_string(),
                            "oldText": file.old_text,
                            "newText": file.new_text,
                        })
                    })
                    .collect();
                if content.is_empty() && !output.is_empty() {
                    content.push(json!({ "type": "content", "content": text(output) }));
                }
                content
            }
            ItemKind::CommandExecution
                if !replaying && item.metadata["terminal_id"].is_string() =>
            {
                vec![json!({ "type": "terminal", "terminalId": item.metadata["terminal_id"] })]
            }
            ItemKind::CommandExecution => {
                let command = raw_input(item)
                    .and_then(|input| input["command"].as_str().map(str::to_string))
                    .unwrap_or_default();
                let shown = format!("```console\n$ {command}\n{output}\n```");
                vec![json!({ "type": "content", "content": text(&shown) })]
            }
            _ if output.is_empty() => vec![],
            _ => vec![json!({ "type": "content", "content": text(output) })],
        }
    }

    /// Files the call touches, absolute ("follow the agent").
    fn locations(&self, input: &Value) -> Value {
        let mut paths: Vec<String> = input["path"]
            .as_str()
            .into_iter()
            .map(str::to_string)
            .collect();
        if let Some(files) = input["patch"].as_str() {
            paths.extend(diffs::patch_paths(files));
        }
        paths
            .iter()
            .map(|path| json!({ "path": self.workspace.join(path).display().to_string() }))
            .collect()
    }
}

fn item(payload: &Value) -> Option<TurnItemRecord> {
    serde_json::from_value(payload["item"].clone()).ok()
}

/// The call's arguments as JSON: from the metadata once it ended.
fn raw_input(item: &TurnItemRecord) -> Option<Value> {
    let arguments = item.metadata["arguments"].as_str()?;
    serde_json::from_str(arguments).ok()
}

fn error_chunk(item: &TurnItemRecord) -> Value {
    let detail = item.detail.as_deref().unwrap_or(&item.summary);
    json!({ "sessionUpdate": "agent_message_chunk", "content": text(&format!("Error: {detail}")), "messageId": item.id })
}

/// `update_plan`'s steps as an ACP plan (the whole list each time).
fn plan(steps: &Value) -> Option<Value> {
    let entries: Vec<Value> = steps
        .as_array()?
        .iter()
        .map(|step| json!({ "content": step["step"], "priority": "medium", "status": step["status"] }))
        .collect();
    Some(json!({ "sessionUpdate": "plan", "entries": entries }))
}

/// Context use after a turn: its input tokens (what the model last read).
fn usage(usage: &Value) -> Option<Value> {
    let used = usage["input_tokens"].as_u64()? + usage["output_tokens"].as_u64().unwrap_or(0);
    Some(
        json!({ "sessionUpdate": "usage_update", "used": used, "size": DEFAULT_CONTEXT_WINDOW.max(used) }),
    )
}
