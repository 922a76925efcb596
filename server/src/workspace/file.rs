//! One file of the workspace, as `GET …/workspace/file` shows it: text
//! only, the first `MAX_FILE_BYTES`, read through the confined path (which
//! never follows a link swapped in after the check).

use super::{confine::Workspace, ViewError};
use protocol::WorkspaceFile;
use std::io::Read;
use std::path::Path;

/// The most bytes of a file sent; beyond, `truncated` is set.
pub const MAX_FILE_BYTES: u64 = 512 * 1024;
/// A NUL byte this early makes a file binary (git's rule too).
pub const SNIFF_BYTES: usize = 8 * 1024;

pub fn read(workspace: &Workspace, asked: &str) -> Result<WorkspaceFile, ViewError> {
    let path = workspace.existing(asked)?;
    let unreadable = |e: std::io::Error| ViewError::Conflict(format!("{asked}: cannot read: {e}"));
    let file = path.open_read().map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if meta.is_dir() {
        return Err(ViewError::Conflict(format!("{asked}: is a directory")));
    }
    if !meta.is_file() {
        return Err(ViewError::Conflict(format!("{asked}: not a regular file")));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    let truncated = bytes.len() as u64 > MAX_FILE_BYTES;
    bytes.truncate(MAX_FILE_BYTES as usize);
    let content = text(&bytes, truncated);
    Ok(WorkspaceFile {
        workspace: workspace.root().display().to_string(),
        path: workspace.display(&path),
        binary: content.is_none(),
        content,
        size: meta.len(),
        truncated,
        language_hint: language_hint(&path).map(str::to_string),
    })
}

/// The bytes as text, or None when they look binary: a NUL in the first
/// `SNIFF_BYTES`, or not UTF-8 (a character cut by truncation aside).
pub fn text(bytes: &[u8], truncated: bool) -> Option<String> {
    if bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0) {
        return None;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text.to_string()),
        Err(e) if truncated && e.error_len().is_none() => {
            Some(String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned())
        }
        Err(_) => None,
    }
}

/// A language name from the file's extension or name, for highlighting.
pub fn language_hint(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    match name {
        "Dockerfile" => return Some("dockerfile"),
        "Makefile" | "GNUmakefile" => return Some("makefile"),
        _ => {}
    }
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match extension.as_str() {
        "rs" => "rust",
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "py" | "pyi" => "python",
        "go" => "go",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "cpp",
        "cs" => "csharp",
        "rb" => "ruby",
        "php" => "php",
        "swift" => "swift",
        "sh" | "bash" | "zsh" => "shell",
        "json" => "json",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "md" | "markdown" => "markdown",
        "html" | "htm" => "html",
        "css" => "css",
        "scss" => "scss",
        "sql" => "sql",
        "xml" | "svg" => "xml",
        "lua" => "lua",
        "txt" => "plaintext",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_binary_and_cut_characters() {
        assert_eq!(text(b"hi\n", false).as_deref(), Some("hi\n"));
        assert_eq!(text(b"a\0b", false), None);
        assert_eq!(text(b"\xff\xfe", false), None);
        // "é" cut in half by truncation is dropped, not taken as binary.
        assert_eq!(text(b"ab\xc3", true).as_deref(), Some("ab"));
        assert_eq!(text(b"ab\xc3", false), None);
    }

    #[test]
    fn hints_from_names() {
        assert_eq!(language_hint(Path::new("src/main.rs")), Some("rust"));
        assert_eq!(language_hint(Path::new("a/Dockerfile")), Some("dockerfile"));
        assert_eq!(language_hint(Path::new("README")), None);
    }
}
