//! Workspace tools the model can call. Each runs confined to the thread's
//! workspace (see `paths`), returns text for the model, and is recorded as
//! an item: writes as `file_change` (with a diff), commands as
//! `command_execution`, the rest as `tool_call`. Writes and commands need
//! an approval first (see the agent loop).

mod git;
mod paths;
mod read;
mod search;
mod shell;
mod write;

use crate::runtime::approvals::ApprovalRequest;
use app::protocol::ItemKind;
pub use paths::Workspace;
use serde_json::{json, Value};
use std::sync::Arc;

/// What a tool returns: text for the model, metadata for the transcript.
#[derive(Debug, Default)]
pub struct ToolOutput {
    pub text: String,
    pub metadata: Value,
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        Self {
            text,
            metadata: json!({}),
        }
    }
}

/// Where tools run.
pub struct ToolEnv {
    pub workspace: Arc<Workspace>,
    /// Environment variables removed from commands (configured key names).
    pub scrub: Vec<String>,
}

/// The item kind of a tool's calls.
pub fn kind(name: &str) -> ItemKind {
    match name {
        "write_file" | "edit_file" => ItemKind::FileChange,
        "exec_shell" => ItemKind::CommandExecution,
        _ => ItemKind::ToolCall,
    }
}

/// What the user is asked before a mutating call; `None` for read-only tools.
pub fn approval(name: &str, arguments: &str) -> Option<ApprovalRequest> {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let path = args["path"].as_str().unwrap_or("?");
    let (description, intent) = match name {
        "write_file" => (
            format!(
                "Write {path} ({} bytes)",
                args["content"].as_str().map(str::len).unwrap_or(0)
            ),
            format!("create or replace {path}"),
        ),
        "edit_file" => (
            format!("Edit {path}"),
            format!("replace one passage in {path}"),
        ),
        "exec_shell" => {
            let command = args["command"].as_str().unwrap_or("?");
            (
                format!("Run: {command}"),
                "run a shell command in the workspace".to_string(),
            )
        }
        _ => return None,
    };
    Some(ApprovalRequest {
        tool_name: name.to_string(),
        description,
        intent_summary: intent,
    })
}

/// A refusal or failure, phrased for the model (and the transcript).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(pub String);

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The OpenAI `tools` array.
pub fn specs() -> Value {
    let tool = |name: &str, description: &str, parameters: Value| json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters}});
    let path = json!({"type": "string", "description": "Path relative to the workspace root"});
    json!([
        tool(
            "read_file",
            "Read a text file, optionally a line range (1-based, inclusive).",
            json!({
                "type": "object", "required": ["path"],
                "properties": {"path": path, "start_line": {"type": "integer"}, "end_line": {"type": "integer"}}
            })
        ),
        tool(
            "list_dir",
            "List a directory (directories end with /).",
            json!({
                "type": "object", "properties": {"path": path}
            })
        ),
        tool(
            "grep_files",
            "Search file contents with a regular expression; honours .gitignore.",
            json!({
                "type": "object", "required": ["pattern"],
                "properties": {"pattern": {"type": "string"}, "path": path, "glob": {"type": "string", "description": "Only files matching this glob"}}
            })
        ),
        tool(
            "file_search",
            "Find files whose path matches a glob (like **/*.rs); honours .gitignore.",
            json!({
                "type": "object", "required": ["pattern"], "properties": {"pattern": {"type": "string"}}
            })
        ),
        tool(
            "git_status",
            "Show the workspace's git status.",
            json!({"type": "object", "properties": {}})
        ),
        tool(
            "git_diff",
            "Show the workspace's uncommitted changes (optionally staged only).",
            json!({
                "type": "object", "properties": {"staged": {"type": "boolean"}, "path": path}
            })
        ),
    ])
}

/// Tools that change the workspace (offered outside plan mode).
pub fn mutating_specs(allow_shell: bool) -> Vec<Value> {
    let tool = |name: &str, description: &str, parameters: Value| json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters}});
    let path = json!({"type": "string", "description": "Path relative to the workspace root"});
    let mut specs = vec![
        tool(
            "write_file",
            "Create or overwrite a text file.",
            json!({
                "type": "object", "required": ["path", "content"],
                "properties": {"path": path, "content": {"type": "string"}}
            }),
        ),
        tool(
            "edit_file",
            "Replace one exact, unique passage of a file.",
            json!({
                "type": "object", "required": ["path", "old_string", "new_string"],
                "properties": {"path": path, "old_string": {"type": "string"}, "new_string": {"type": "string"}}
            }),
        ),
    ];
    if allow_shell {
        specs.push(tool("exec_shell", "Run a shell command in the workspace root.", json!({
            "type": "object", "required": ["command"],
            "properties": {"command": {"type": "string"}, "timeout_seconds": {"type": "integer"}}
        })));
    }
    specs
}

/// Runs `name` with JSON `arguments`; blocking work runs off the async
/// threads.
pub async fn run(env: &ToolEnv, name: &str, arguments: &str) -> Result<ToolOutput, ToolError> {
    let args: Value = if arguments.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(arguments)
            .map_err(|e| ToolError(format!("arguments are not valid JSON: {e}")))?
    };
    let workspace = env.workspace.clone();
    match name {
        "git_status" => git::status(&workspace).await.map(ToolOutput::from),
        "git_diff" => git::diff(&workspace, &args).await.map(ToolOutput::from),
        "exec_shell" => shell::exec_shell(&workspace, &args, &env.scrub).await,
        "read_file" | "list_dir" | "grep_files" | "file_search" | "write_file" | "edit_file" => {
            let name = name.to_string();
            tokio::task::spawn_blocking(move || match name.as_str() {
                "read_file" => read::read_file(&workspace, &args).map(ToolOutput::from),
                "list_dir" => read::list_dir(&workspace, &args).map(ToolOutput::from),
                "grep_files" => search::grep_files(&workspace, &args).map(ToolOutput::from),
                "file_search" => search::file_search(&workspace, &args).map(ToolOutput::from),
                "write_file" => write::write_file(&workspace, &args),
                _ => write::edit_file(&workspace, &args),
            })
            .await
            .map_err(|_| ToolError("the tool crashed".into()))?
        }
        other => Err(ToolError(format!("unknown tool {other:?}"))),
    }
}

/// A one-line summary of a call for the transcript.
pub fn summary(name: &str, arguments: &str) -> String {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let target = ["path", "pattern", "command"]
        .iter()
        .find_map(|k| args[*k].as_str())
        .unwrap_or("");
    if target.is_empty() {
        name.to_string()
    } else {
        format!("{name} {target}")
    }
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args[key]
        .as_str()
        .ok_or_else(|| ToolError(format!("missing string argument {key:?}")))
}
