//! read_file and list_dir.

use super::{str_arg, ToolError, Workspace};
use serde_json::Value;
use std::io::Read;

/// Largest file read_file returns in one call.
pub const MAX_READ_BYTES: u64 = 256 * 1024;
const MAX_ENTRIES: usize = 500;

pub fn read_file(workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
    let asked = str_arg(args, "path")?;
    let path = workspace.existing(asked)?;
    if path.is_dir() {
        return Err(ToolError(format!("{asked} is a directory; use list_dir")));
    }
    let mut bytes = Vec::new();
    let file = path
        .open_read()
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    file.take(MAX_READ_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err(ToolError(format!(
            "{asked} is a binary file ({size} bytes); not shown"
        )));
    }
    numbered(asked, &String::from_utf8_lossy(&bytes), size, args)
}

/// The asked line range of `text` with line numbers, as read_file shows
/// it; `size` is the whole file's (`text` may stop past the limit).
pub(super) fn numbered(
    asked: &str,
    text: &str,
    size: u64,
    args: &Value,
) -> Result<String, ToolError> {
    let line = |key: &str| args[key].as_u64().map(|n| n.max(1) as usize);
    let (start, end) = (line("start_line").unwrap_or(1), line("end_line"));
    if size > MAX_READ_BYTES && end.is_none() {
        return Err(ToolError(format!(
            "{asked} is {size} bytes, over the {MAX_READ_BYTES}-byte limit; read a line range (start_line, end_line)"
        )));
    }
    let mut out = String::new();
    for (number, content) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        if number < start || end.is_some_and(|end| number > end) {
            continue;
        }
        out.push_str(&format!("{number:>6}\t{content}\n"));
    }
    if out.is_empty() {
        return Ok(format!(
            "{asked}: no lines in that range (the file has {} lines)",
            text.lines().count()
        ));
    }
    Ok(out)
}

pub fn list_dir(workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
    let asked = args["path"].as_str().unwrap_or(".");
    let path = workspace.existing(asked)?;
    let mut entries: Vec<String> = std::fs::read_dir(&path)
        .map_err(|e| ToolError(format!("{asked}: {e}")))?
        .flatten()
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    entries.sort();
    let total = entries.len();
    entries.truncate(MAX_ENTRIES);
    let mut out = entries.join("\n");
    if total > MAX_ENTRIES {
        out.push_str(&format!("\n… and {} more", total - MAX_ENTRIES));
    }
    if out.is_empty() {
        out = format!("{asked} is empty");
    }
    Ok(out)
}
