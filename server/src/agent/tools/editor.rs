//! read_file, write_file, edit_file and exec_shell through a connected
//! editor (ACP `fs/*`, `terminal/*`): the model then sees unsaved buffers,
//! its writes land in them, and its commands run in the editor's terminal.
//! Paths are confined exactly as for the runtime's own tools before the
//! editor sees them; the results read the same as the local tools'.

use super::{read, shell, str_arg, write, ToolError, ToolOutput, Workspace};
use crate::runtime::hosted_tools::{Editor, EditorCommand};
use serde_json::{json, Value};

pub async fn read_file(
    workspace: &Workspace,
    editor: &dyn Editor,
    args: &Value,
) -> Result<String, ToolError> {
    let asked = str_arg(args, "path")?;
    let path = workspace.existing(asked)?;
    if path.is_dir() {
        return Err(ToolError(format!("{asked} is a directory; use list_dir")));
    }
    let text = editor
        .read_text_file(path.as_path().to_path_buf())
        .await
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    read::numbered(asked, &text, text.len() as u64, args)
}

pub async fn write_file(
    workspace: &Workspace,
    editor: &dyn Editor,
    args: &Value,
) -> Result<ToolOutput, ToolError> {
    let asked = str_arg(args, "path")?;
    let content = str_arg(args, "content")?;
    let path = workspace.writable(asked)?;
    if path.is_dir() {
        return Err(ToolError(format!("{asked} is a directory")));
    }
    let before = if path.exists() {
        editor_text(editor, &path, asked).await?
    } else {
        // The editor creates the file; its directories are ours to make.
        path.create_parents(&mut Vec::new())
            .map_err(|e| ToolError(format!("{asked}: {e}")))?;
        String::new()
    };
    editor
        .write_text_file(path.as_path().to_path_buf(), content.to_string())
        .await
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    Ok(write::changed(asked, &before, content))
}

pub async fn edit_file(
    workspace: &Workspace,
    editor: &dyn Editor,
    args: &Value,
) -> Result<ToolOutput, ToolError> {
    let asked = str_arg(args, "path")?;
    let old = str_arg(args, "old_string")?;
    let new = str_arg(args, "new_string")?;
    let path = workspace.existing(asked)?;
    let before = editor_text(editor, &path, asked).await?;
    let after = write::replace_once(asked, &before, old, new)?;
    editor
        .write_text_file(path.as_path().to_path_buf(), after.clone())
        .await
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    Ok(write::changed(asked, &before, &after))
}

pub async fn exec_shell(
    workspace: &Workspace,
    editor: &dyn Editor,
    item_id: &str,
    args: &Value,
) -> Result<ToolOutput, ToolError> {
    let command = str_arg(args, "command")?;
    let timeout = shell::timeout(args);
    let run = editor
        .run_command(EditorCommand {
            item_id: item_id.to_string(),
            command: command.to_string(),
            cwd: workspace.root().to_path_buf(),
            timeout,
            output_limit: shell::MAX_OUTPUT,
        })
        .await
        .map_err(|e| ToolError(format!("the editor's terminal failed: {e}")))?;
    if run.timed_out {
        return Err(shell::timed_out(command, timeout));
    }
    let mut output = run.output;
    if run.truncated {
        output.push_str("\n… output truncated");
    }
    Ok(ToolOutput {
        text: shell::report(&output, run.exit_code),
        metadata: json!({
            "command": command,
            "exit_code": run.exit_code,
            "signal": run.signal,
            "terminal_id": run.terminal_id,
        }),
    })
}

async fn editor_text(
    editor: &dyn Editor,
    path: &crate::workspace::confine::Confined,
    asked: &str,
) -> Result<String, ToolError> {
    let text = editor
        .read_text_file(path.as_path().to_path_buf())
        .await
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    if text.len() as u64 > write::MAX_EDIT_BYTES {
        return Err(ToolError(format!(
            "{asked} is too large to edit ({} bytes)",
            text.len()
        )));
    }
    Ok(text)
}
