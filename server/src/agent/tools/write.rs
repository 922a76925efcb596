//! write_file and edit_file. Both record a unified diff in the item's
//! metadata so clients can show what changed.

use super::{str_arg, ToolError, ToolOutput, Workspace};
use crate::workspace::confine::Confined;
use serde_json::{json, Value};
use std::io::{ErrorKind, Read};

/// Largest file the edit tools rewrite.
pub(super) const MAX_EDIT_BYTES: u64 = 4 * 1024 * 1024;

pub fn write_file(workspace: &Workspace, args: &Value) -> Result<ToolOutput, ToolError> {
    let asked = str_arg(args, "path")?;
    let content = str_arg(args, "content")?;
    let path = workspace.writable(asked)?;
    if path.is_dir() {
        return Err(ToolError(format!("{asked} is a directory")));
    }
    let before = read_text(&path, asked)?.unwrap_or_default();
    path.create_parents(&mut Vec::new())
        .and_then(|()| path.write(content.as_bytes()))
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    Ok(changed(asked, &before, content))
}

pub fn edit_file(workspace: &Workspace, args: &Value) -> Result<ToolOutput, ToolError> {
    let asked = str_arg(args, "path")?;
    let old = str_arg(args, "old_string")?;
    let new = str_arg(args, "new_string")?;
    let path = workspace.existing(asked)?;
    let before =
        read_text(&path, asked)?.ok_or_else(|| ToolError(format!("{asked}: no such file")))?;
    let after = replace_once(asked, &before, old, new)?;
    path.write(after.as_bytes())
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    Ok(changed(asked, &before, &after))
}

/// `before` with its one occurrence of `old` replaced by `new`.
pub(super) fn replace_once(
    asked: &str,
    before: &str,
    old: &str,
    new: &str,
) -> Result<String, ToolError> {
    if old.is_empty() {
        return Err(ToolError("old_string must not be empty".into()));
    }
    match before.matches(old).count() {
        0 => Err(ToolError(format!(
            "{asked}: old_string was not found; read the file and copy the text exactly"
        ))),
        1 => Ok(before.replacen(old, new, 1)),
        n => Err(ToolError(format!(
            "{asked}: old_string occurs {n} times; include more context so it is unique"
        ))),
    }
}

/// The file's text, `None` if it does not exist; binary and huge files are refused.
pub(super) fn read_text(path: &Confined, asked: &str) -> Result<Option<String>, ToolError> {
    let fail = |e: std::io::Error| ToolError(format!("{asked}: {e}"));
    let file = match path.open_read() {
        Ok(file) => file,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Ok(None)
        }
        Err(e) => return Err(fail(e)),
    };
    let size = file.metadata().map_err(fail)?.len();
    if size > MAX_EDIT_BYTES {
        return Err(ToolError(format!(
            "{asked} is too large to edit ({size} bytes)"
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| ToolError(format!("{asked} is not a UTF-8 text file")))
}

pub(super) fn changed(path: &str, before: &str, after: &str) -> ToolOutput {
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
