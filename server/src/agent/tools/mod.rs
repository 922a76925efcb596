//! Workspace tools the model can call. Each runs confined to the thread's
//! workspace (see `paths`), returns text for the model, and is recorded as
//! an item. This set is read-only; writes and shell come with approvals.

mod git;
mod paths;
mod read;
mod search;

pub use paths::Workspace;
use serde_json::{json, Value};

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

/// Runs `name` with JSON `arguments`; blocking work runs off the async
/// threads.
pub async fn run(
    workspace: std::sync::Arc<Workspace>,
    name: &str,
    arguments: &str,
) -> Result<String, ToolError> {
    let args: Value = if arguments.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(arguments)
            .map_err(|e| ToolError(format!("arguments are not valid JSON: {e}")))?
    };
    match name {
        "git_status" => git::status(&workspace).await,
        "git_diff" => git::diff(&workspace, &args).await,
        "read_file" | "list_dir" | "grep_files" | "file_search" => {
            let name = name.to_string();
            tokio::task::spawn_blocking(move || match name.as_str() {
                "read_file" => read::read_file(&workspace, &args),
                "list_dir" => read::list_dir(&workspace, &args),
                "grep_files" => search::grep_files(&workspace, &args),
                _ => search::file_search(&workspace, &args),
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
    let target = ["path", "pattern"]
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
