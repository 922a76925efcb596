//! write_file and edit_file. Both record a unified diff in the item's
//! metadata so clients can show what changed.

use super::{str_arg, ToolError, ToolOutput, Workspace};
use serde_json::{json, Value};

/// Largest file the edit tools rewrite.
const MAX_EDIT_BYTES: u64 = 4 * 1024 * 1024;

pub fn write_file(workspace: &Workspace, args: &Value) -> Result<ToolOutput, ToolError> {
    let asked = str_arg(args, "path")?;
    let content = str_arg(args, "content")?;
    let path = workspace.writable(asked)?;
    if path.is_dir() {
        return Err(ToolError(format!("{asked} is a directory")));
    }
    let before = read_text(&path, asked)?.unwrap_or_default();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ToolError(format!("{asked}: {e}")))?;
    }
    std::fs::write(&path, content).map_err(|e| ToolError(format!("{asked}: {e}")))?;
    Ok(changed(asked, &before, content))
}

pub fn edit_file(workspace: &Workspace, args: &Value) -> Result<ToolOutput, ToolError> {
    let asked = str_arg(args, "path")?;
    let old = str_arg(args, "old_string")?;
    let new = str_arg(args, "new_string")?;
    if old.is_empty() {
        return Err(ToolError("old_string must not be empty".into()));
    }
    let path = workspace.existing(asked)?;
    let before =
        read_text(&path, asked)?.ok_or_else(|| ToolError(format!("{asked}: no such file")))?;
    match before.matches(old).count() {
        0 => Err(ToolError(format!(
            "{asked}: old_string was not found; read the file and copy the text exactly"
        ))),
        1 => {
            let after = before.replacen(old, new, 1);
            std::fs::write(&path, &after).map_err(|e| ToolError(format!("{asked}: {e}")))?;
            Ok(changed(asked, &before, &after))
        }
        n => Err(ToolError(format!(
            "{asked}: old_string occurs {n} times; include more context so it is unique"
        ))),
    }
}

/// The file's text, `None` if it does not exist; binary and huge files are refused.
pub(super) fn read_text(path: &std::path::Path, asked: &str) -> Result<Option<String>, ToolError> {
    match std::fs::metadata(path) {
        Err(_) => Ok(None),
        Ok(meta) if meta.len() > MAX_EDIT_BYTES => Err(ToolError(format!(
            "{asked} is too large to edit ({} bytes)",
            meta.len()
        ))),
        Ok(_) => {
            let bytes = std::fs::read(path).map_err(|e| ToolError(format!("{asked}: {e}")))?;
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| ToolError(format!("{asked} is not a UTF-8 text file")))
        }
    }
}

fn changed(path: &str, before: &str, after: &str) -> ToolOutput {
    let (diff, added, removed) =
        unified_diff(before, after, &format!("a/{path}"), &format!("b/{path}"));
    ToolOutput {
        text: format!("{path}: {added} line(s) added, {removed} removed"),
        metadata: json!({ "path": path, "diff": diff, "added": added, "removed": removed }),
    }
}

/// A unified diff (3 lines of context) and its added and removed line counts.
pub(super) fn unified_diff(
    before: &str,
    after: &str,
    old_label: &str,
    new_label: &str,
) -> (String, usize, usize) {
    let text_diff = similar::TextDiff::from_lines(before, after);
    let diff = text_diff
        .unified_diff()
        .context_radius(3)
        .header(old_label, new_label)
        .to_string();
    // Counted from the changes, not the text: an added "++x" reads "+++x".
    let (added, removed) = text_diff
        .iter_all_changes()
        .fold((0, 0), |(a, r), change| match change.tag() {
            similar::ChangeTag::Insert => (a + 1, r),
            similar::ChangeTag::Delete => (a, r + 1),
            similar::ChangeTag::Equal => (a, r),
        });
    (diff, added, removed)
}
