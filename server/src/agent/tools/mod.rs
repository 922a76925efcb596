//! Workspace tools the model can call. Each runs confined to the thread's
//! workspace (see `paths`), returns text for the model, and is recorded as
//! an item: writes as `file_change` (with a diff), commands as
//! `command_execution`, the rest as `tool_call`. Writes and commands need
//! an approval first (see the agent loop).

mod editor;
mod git;
mod patch;
mod plan;
mod read;
pub mod review;
mod search;
mod shell;
#[cfg(test)]
mod symlink_tests;
mod write;

use crate::runtime::{approvals::ApprovalRequest, hosted_tools::Editor};
pub use crate::workspace::confine::Workspace;
use protocol::ItemKind;
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
    /// A connected editor that reads, writes and runs commands in place
    /// of the local tools (those it delegates: `editor.rs`).
    pub editor: Option<Arc<dyn Editor>>,
}

impl ToolEnv {
    pub fn local(workspace: Arc<Workspace>) -> Self {
        Self {
            workspace,
            editor: None,
        }
    }
}

/// The item kind of a tool's calls.
pub fn kind(name: &str) -> ItemKind {
    match name {
        "write_file" | "edit_file" | "apply_patch" => ItemKind::FileChange,
        "exec_shell" => ItemKind::CommandExecution,
        review::NAME => ItemKind::ReviewFinding,
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
        "apply_patch" => match patch::describe(&args) {
            Ok(files) => (
                format!("Apply patch: {}", files.join(", ")),
                format!("change {} file(s) in the workspace", files.len()),
            ),
            // Still asked: the run reports the error, the user sees why.
            Err(error) => (
                format!("Apply a patch that does not parse ({error})"),
                "change files in the workspace".to_string(),
            ),
        },
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

impl From<crate::workspace::confine::ConfineError> for ToolError {
    fn from(e: crate::workspace::confine::ConfineError) -> Self {
        ToolError(e.0)
    }
}

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
        tool(
            "update_plan",
            "Record your step-by-step plan for the task and each step's status; call it again as steps progress. At most one step is in_progress.",
            json!({
                "type": "object", "required": ["plan"],
                "properties": {
                    "explanation": {"type": "string", "description": "Why the plan changed (optional)"},
                    "plan": {"type": "array", "maxItems": 50, "items": {
                        "type": "object", "required": ["step", "status"],
                        "properties": {
                            "step": {"type": "string"},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        }
                    }}
                }
            })
        ),
    ])
}

const PATCH_HELP: &str = "Change several files at once, all or nothing (nothing is written if any hunk does not match). \
Either a unified diff (--- a/path, +++ b/path, @@ hunks; /dev/null to create or delete) or this envelope:\n\
*** Begin Patch\n*** Add File: path\n+line\n*** Delete File: path\n*** Update File: path\n*** Move to: new/path (optional)\n\
@@ optional line to find first (e.g. a function signature)\n context line\n-removed line\n+added line\n*** End Patch\n\
Give about 3 unchanged context lines around each change.";

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
        tool(
            "apply_patch",
            PATCH_HELP,
            json!({
                "type": "object", "required": ["patch"],
                "properties": {"patch": {"type": "string", "description": "The whole patch text"}}
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

/// Runs `name` with JSON `arguments` as the item `item_id`; blocking work
/// runs off the async threads.
pub async fn run(
    env: &ToolEnv,
    name: &str,
    arguments: &str,
    item_id: &str,
) -> Result<ToolOutput, ToolError> {
    let args: Value = if arguments.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(arguments)
            .map_err(|e| ToolError(format!("arguments are not valid JSON: {e}")))?
    };
    let workspace = env.workspace.clone();
    if let Some(editor) = env.editor.as_deref() {
        let delegates = editor.delegates();
        match name {
            "read_file" if delegates.read => {
                return editor::read_file(&workspace, editor, &args)
                    .await
                    .map(ToolOutput::from)
            }
            "write_file" if delegates.read && delegates.write => {
                return editor::write_file(&workspace, editor, &args).await
            }
            "edit_file" if delegates.read && delegates.write => {
                return editor::edit_file(&workspace, editor, &args).await
            }
            "exec_shell" if delegates.terminal => {
                return editor::exec_shell(&workspace, editor, item_id, &args).await
            }
            _ => {}
        }
    }
    match name {
        "git_status" => git::status(&workspace).await.map(ToolOutput::from),
        "git_diff" => git::diff(&workspace, &args).await.map(ToolOutput::from),
        "exec_shell" => shell::exec_shell(&workspace, &args).await,
        "update_plan" => plan::update_plan(&args),
        "read_file"
        | "list_dir"
        | "grep_files"
        | "file_search"
        | "write_file"
        | "edit_file"
        | "apply_patch"
        | review::NAME => {
            let name = name.to_string();
            tokio::task::spawn_blocking(move || match name.as_str() {
                "read_file" => read::read_file(&workspace, &args).map(ToolOutput::from),
                "list_dir" => read::list_dir(&workspace, &args).map(ToolOutput::from),
                "grep_files" => search::grep_files(&workspace, &args).map(ToolOutput::from),
                "file_search" => search::file_search(&workspace, &args).map(ToolOutput::from),
                "write_file" => write::write_file(&workspace, &args),
                "apply_patch" => patch::apply_patch(&workspace, &args),
                review::NAME => review::submit(&workspace, &args),
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
    let detail = match name {
        "apply_patch" => patch::describe(&args).ok().map(|files| short_list(&files)),
        "update_plan" => plan::progress(&args),
        review::NAME => return review::summary(&args).unwrap_or_else(|| name.to_string()),
        _ => None,
    };
    if let Some(detail) = detail {
        return format!("{name} {detail}");
    }
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

/// The first few entries and how many more.
fn short_list(entries: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut list = entries
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if entries.len() > SHOWN {
        list.push_str(&format!(" and {} more", entries.len() - SHOWN));
    }
    list
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args[key]
        .as_str()
        .ok_or_else(|| ToolError(format!("missing string argument {key:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_and_plan_calls_are_described() {
        let patch = json!({"patch": "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** Update File: c\n@@\n-1\n+2\n*** Update File: d\n@@\n-1\n+2\n*** Delete File: e\n*** End Patch"}).to_string();
        assert_eq!(kind("apply_patch"), ItemKind::FileChange);
        assert_eq!(kind("update_plan"), ItemKind::ToolCall);
        assert_eq!(
            summary("apply_patch", &patch),
            "apply_patch A a, D b, M c, M d and 1 more"
        );
        let request = approval("apply_patch", &patch).unwrap();
        assert_eq!(request.description, "Apply patch: A a, D b, M c, M d, D e");
        assert_eq!(request.intent_summary, "change 5 file(s) in the workspace");
        let bad = approval("apply_patch", r#"{"patch": "nonsense"}"#).unwrap();
        assert!(
            bad.description.contains("does not parse"),
            "{}",
            bad.description
        );
        let plan = json!({"plan": [{"step": "a", "status": "completed"}, {"step": "b", "status": "pending"}]});
        assert_eq!(
            summary("update_plan", &plan.to_string()),
            "update_plan 1/2 completed"
        );
        assert!(approval("update_plan", &plan.to_string()).is_none());
    }
}
