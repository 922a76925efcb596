//! submit_review_finding: the one thing review mode adds. A finding names
//! a tight line range of a text file in the workspace; the lines are
//! quoted from the file as it is now (`original`), so applying it later
//! can check they still say that. The item it becomes is durable
//! (`review_finding`, the finding in `metadata.finding`).

use super::{read::MAX_READ_BYTES, str_arg, ToolError, ToolOutput, Workspace};
use crate::workspace::confine::Confined;
use protocol::{ReviewFinding, ReviewPriority};
use serde_json::{json, Value};
use std::io::Read;

pub const NAME: &str = "submit_review_finding";
/// A finding points at a few lines, not a file.
const MAX_LINES: u32 = 60;
const MAX_TITLE_CHARS: usize = 160;
const MAX_BODY_CHARS: usize = 8_000;
const MAX_REPLACEMENT_BYTES: usize = 32 * 1024;
/// What a finding may quote: it is stored, shown and sent on every apply.
const MAX_ORIGINAL_BYTES: usize = 16 * 1024;

pub fn spec() -> Value {
    json!({"type": "function", "function": {
        "name": NAME,
        "description": "Record one review finding: a concrete problem at a tight line range of a file (at most 60 lines). \
    Give an exact replacement for those lines when the fix is clear. Submit each finding separately, most important first.",
        "parameters": {
            "type": "object",
            "required": ["path", "start_line", "end_line", "priority", "title", "body"],
            "properties": {
                "path": {"type": "string", "description": "Path relative to the workspace root"},
                "start_line": {"type": "integer", "minimum": 1, "description": "First line (1-based)"},
                "end_line": {"type": "integer", "minimum": 1, "description": "Last line (inclusive)"},
                "priority": {"type": "string", "enum": ["p0", "p1", "p2", "p3"], "description": "p0 must fix … p3 nit"},
                "title": {"type": "string", "description": "One line: what is wrong"},
                "body": {"type": "string", "description": "Why it matters and how to fix it"},
                "replacement": {"type": "string", "description": "Optional: the exact text to put in place of lines start_line..end_line"}
            }
        }
    }})
}

/// Checks a submission against the file and returns the finding.
pub fn submit(workspace: &Workspace, args: &Value) -> Result<ToolOutput, ToolError> {
    let asked = str_arg(args, "path")?;
    let path = workspace.existing(asked)?;
    if path.as_path().is_dir() {
        return Err(ToolError(format!("{asked} is a directory; name a file")));
    }
    let line = |key: &str| -> Result<u32, ToolError> {
        args[key]
            .as_u64()
            .filter(|n| *n >= 1)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| ToolError(format!("{key} must be a line number (1 or more)")))
    };
    let (start, end) = (line("start_line")?, line("end_line")?);
    if end < start {
        return Err(ToolError("end_line is before start_line".into()));
    }
    if end - start + 1 > MAX_LINES {
        return Err(ToolError(format!(
            "the range is {} lines; point at {MAX_LINES} lines or fewer",
            end - start + 1
        )));
    }
    let priority = args["priority"]
        .as_str()
        .and_then(ReviewPriority::parse)
        .ok_or_else(|| ToolError("priority must be one of p0, p1, p2, p3".into()))?;
    let title = bounded(args, "title", MAX_TITLE_CHARS)?;
    let body = bounded(args, "body", MAX_BODY_CHARS)?;
    let replacement = match &args["replacement"] {
        Value::Null => None,
        Value::String(text) if text.len() <= MAX_REPLACEMENT_BYTES => Some(text.clone()),
        Value::String(_) => {
            return Err(ToolError(format!(
                "replacement is over {MAX_REPLACEMENT_BYTES} bytes; describe the fix instead"
            )))
        }
        _ => return Err(ToolError("replacement must be a string".into())),
    };
    let text = read_text(&path, asked)?;
    let lines: Vec<&str> = text.lines().collect();
    if end as usize > lines.len() {
        return Err(ToolError(format!(
            "{asked} has {} lines; the range {start}-{end} is past its end",
            lines.len()
        )));
    }
    let original = lines[start as usize - 1..end as usize].join("\n");
    if original.len() > MAX_ORIGINAL_BYTES {
        return Err(ToolError(format!(
            "lines {start}-{end} hold {} bytes; point at fewer lines (at most {MAX_ORIGINAL_BYTES} bytes)",
            original.len()
        )));
    }
    let finding = ReviewFinding {
        path: workspace.display(path.as_path()).replace('\\', "/"),
        start_line: start,
        end_line: end,
        priority,
        title,
        body,
        replacement,
        original,
    };
    Ok(ToolOutput {
        text: format!(
            "Recorded [{}] {} at {}:{start}-{end}.",
            priority.as_str().to_uppercase(),
            finding.title,
            finding.path
        ),
        metadata: json!({ "finding": finding }),
    })
}

/// "[P1] title — path:3-5" for the transcript.
pub fn summary(args: &Value) -> Option<String> {
    let title = args["title"].as_str()?.trim();
    let priority = args["priority"].as_str().and_then(ReviewPriority::parse)?;
    let path = args["path"].as_str().unwrap_or("?");
    let range = match (args["start_line"].as_u64(), args["end_line"].as_u64()) {
        (Some(start), Some(end)) if start != end => format!(":{start}-{end}"),
        (Some(start), _) => format!(":{start}"),
        _ => String::new(),
    };
    Some(format!(
        "[{}] {} — {path}{range}",
        priority.as_str().to_uppercase(),
        clip(title, MAX_TITLE_CHARS)
    ))
}

fn bounded(args: &Value, key: &str, max_chars: usize) -> Result<String, ToolError> {
    let text = str_arg(args, key)?.trim();
    if text.is_empty() {
        return Err(ToolError(format!("{key} must not be empty")));
    }
    if text.chars().count() > max_chars {
        return Err(ToolError(format!("{key} is over {max_chars} characters")));
    }
    // A title is one line; neither field may carry terminal or bidi controls.
    let one_line = key == "title";
    if text
        .chars()
        .any(|c| (c.is_control() && (one_line || !matches!(c, '\n' | '\t'))) || is_bidi(c))
    {
        return Err(ToolError(format!(
            "{key} holds control characters{}",
            if one_line { " (it is one line)" } else { "" }
        )));
    }
    Ok(text.to_string())
}

/// Bidirectional overrides and isolates: they make text read differently
/// from what it is.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn read_text(path: &Confined, asked: &str) -> Result<String, ToolError> {
    let file = path
        .open_read()
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_READ_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError(format!("{asked}: {e}")))?;
    if bytes.len() as u64 > MAX_READ_BYTES {
        return Err(ToolError(format!(
            "{asked} is over {MAX_READ_BYTES} bytes; findings are for files codewhale can show"
        )));
    }
    if bytes.contains(&0) {
        return Err(ToolError(format!("{asked} is a binary file")));
    }
    String::from_utf8(bytes).map_err(|_| ToolError(format!("{asked} is not a UTF-8 text file")))
}

fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "one\ntwo\nthree\nfour\n").unwrap();
        let workspace = Workspace::new(dir.path(), false).unwrap();
        (dir, workspace)
    }

    fn args(start: u64, end: u64) -> Value {
        json!({"path": "./a.rs", "start_line": start, "end_line": end, "priority": "P1",
               "title": " Off by one ", "body": "Loop ends early.", "replacement": "2"})
    }

    #[test]
    fn a_finding_quotes_its_lines() {
        let (_dir, workspace) = workspace();
        let output = submit(&workspace, &args(2, 3)).unwrap();
        let finding: ReviewFinding =
            serde_json::from_value(output.metadata["finding"].clone()).unwrap();
        assert_eq!(finding.path, "a.rs");
        assert_eq!(finding.original, "two\nthree");
        assert_eq!(finding.priority, ReviewPriority::P1);
        assert_eq!(finding.title, "Off by one");
        assert_eq!(finding.replacement.as_deref(), Some("2"));
        assert_eq!(
            summary(&args(2, 3)).unwrap(),
            "[P1] Off by one — ./a.rs:2-3"
        );
    }

    #[test]
    fn bad_submissions_are_refused_with_a_reason() {
        let (_dir, workspace) = workspace();
        let refused = |args: Value| submit(&workspace, &args).unwrap_err().0;
        assert!(refused(args(3, 2)).contains("before"));
        assert!(refused(args(4, 5)).contains("past its end"));
        assert!(refused(args(1, 100)).contains("60 lines"));
        assert!(refused(args(0, 1)).contains("start_line"));
        let mut outside = args(1, 1);
        outside["path"] = json!("../etc/passwd");
        assert!(!refused(outside).is_empty());
        let mut priority = args(1, 1);
        priority["priority"] = json!("urgent");
        assert!(refused(priority).contains("p0, p1"));
        let mut blank = args(1, 1);
        blank["title"] = json!("  ");
        assert!(refused(blank).contains("title"));
        let mut two_lines = args(1, 1);
        two_lines["title"] = json!("a\n## Finding 2");
        assert!(refused(two_lines).contains("one line"));
        let mut bidi = args(1, 1);
        bidi["body"] = json!("fine\u{202E}evil");
        assert!(refused(bidi).contains("control"));
        let mut multi_line_body = args(1, 1);
        multi_line_body["body"] = json!("first\n\tsecond");
        assert!(submit(&workspace, &multi_line_body).is_ok());
    }
}
