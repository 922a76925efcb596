//! Project and global instructions: what each turn's system prompt adds to
//! the thread's own. The user's `$CODEWHALE_HOME/AGENTS.md`, then every
//! `AGENTS.md` and `CODEWHALE.md` from the repository's top down to the
//! workspace, so the nearest file comes last and wins where they disagree.
//! Without a repository, only the workspace's own files count: nothing
//! above it is read.
//!
//! Every file is read through the confinement resolver (rooted at the
//! repository's top, or at the home for the global file), so a link that
//! leads elsewhere is skipped, never followed. The turn records each file
//! read (path, hash, size), never its contents. The enabled skills'
//! names and descriptions follow the files (`skills/`).

use crate::workspace::confine::Workspace;
use protocol::{InstructionFile, InstructionScope};
use sha2::{Digest, Sha256};
use std::{
    io::Read,
    path::{Path, PathBuf},
};

/// The names looked for in each directory, in this order.
pub const FILE_NAMES: [&str; 2] = ["AGENTS.md", "CODEWHALE.md"];
/// The most of one file the model is given.
pub const MAX_FILE_BYTES: usize = 32 * 1024;
/// The most of all files together; later (nearer) files are kept first.
pub const MAX_TOTAL_BYTES: usize = 96 * 1024;
/// Directories walked up from the workspace looking for the repository.
const MAX_DEPTH: usize = 64;

/// The instructions of one turn: what was read, and the text the model gets.
#[derive(Clone, Debug, Default)]
pub struct Instructions {
    pub files: Vec<InstructionFile>,
    /// Empty when no file was found and no skill is enabled.
    pub text: String,
    /// The enabled skills, offered by name in `text` (`skills.rs`), for
    /// `load_skill`.
    pub skills: Vec<super::skills::Found>,
}

/// Reads the instructions for a turn in `workspace` (none without one).
pub async fn load(home: &Path, workspace: Option<&str>) -> Instructions {
    let home = home.to_path_buf();
    let workspace = workspace.map(PathBuf::from);
    tokio::task::spawn_blocking(move || {
        let mut instructions = load_now(&home, workspace.as_deref());
        let mut skills = super::skills::Place {
            home: &home,
            workspace: workspace.as_deref(),
        }
        .offered();
        let listing = super::skills::prompt(&mut skills);
        if !listing.is_empty() {
            if !instructions.text.is_empty() {
                instructions.text.push_str("\n\n");
            }
            instructions.text.push_str(&listing);
        }
        instructions.skills = skills;
        instructions
    })
    .await
    .unwrap_or_default()
}

fn load_now(home: &Path, workspace: Option<&Path>) -> Instructions {
    let mut found: Vec<(InstructionFile, String)> = Vec::new();
    if let Ok(root) = Workspace::new(home, false) {
        found.extend(read(&root, "AGENTS.md", InstructionScope::Global));
    }
    if let Some(workspace) = workspace.and_then(|w| w.canonicalize().ok()) {
        let top = repository_top(&workspace).unwrap_or_else(|| workspace.clone());
        if let Ok(root) = Workspace::new(&top, false) {
            for dir in dirs_down(&top, &workspace) {
                for name in FILE_NAMES {
                    let asked = dir.join(name);
                    let asked = asked.to_string_lossy();
                    found.extend(read(&root, &asked, InstructionScope::Project));
                }
            }
        }
    }
    compose(found)
}

/// The nearest directory at or above `dir` holding a `.git` (a directory,
/// or a worktree's file), without running git.
fn repository_top(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .take(MAX_DEPTH)
        .find(|d| d.join(".git").symlink_metadata().is_ok())
        .map(Path::to_path_buf)
}

/// `top`, then each directory below it down to `workspace`, as paths
/// relative to `top` (`.` for the top itself).
fn dirs_down(top: &Path, workspace: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![PathBuf::from(".")];
    if let Ok(rest) = workspace.strip_prefix(top) {
        let mut at = PathBuf::new();
        for part in rest.components() {
            at.push(part);
            dirs.push(at.clone());
        }
    }
    dirs
}

/// One file, if it is there, a regular file inside `root`, and text.
fn read(
    root: &Workspace,
    asked: &str,
    scope: InstructionScope,
) -> Option<(InstructionFile, String)> {
    let confined = root.existing(asked).ok()?;
    let file = confined.open_read().ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    // One byte more than kept: that says it was cut.
    file.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    let whole = confined
        .as_path()
        .metadata()
        .map_or(bytes.len() as u64, |m| m.len());
    let truncated = bytes.len() > MAX_FILE_BYTES;
    bytes.truncate(MAX_FILE_BYTES);
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if truncated {
        // A cut may split a character: drop what the lossy decode made of it.
        text = text.trim_end_matches('\u{FFFD}').to_string();
    }
    if text.trim().is_empty() {
        return None;
    }
    let record = InstructionFile {
        path: confined.as_path().display().to_string(),
        scope,
        sha256: hex::encode(Sha256::digest(&bytes)),
        bytes: whole,
        truncated,
    };
    Some((record, text))
}

/// The text the model is given: each file under a heading naming it. When
/// all of them are too long, the farthest are dropped first.
fn compose(mut found: Vec<(InstructionFile, String)>) -> Instructions {
    let mut total = 0;
    let mut keep = found.len();
    for (i, (_, text)) in found.iter().enumerate().rev() {
        if total + text.len() > MAX_TOTAL_BYTES {
            break;
        }
        total += text.len();
        keep = i;
    }
    let files: Vec<(InstructionFile, String)> = found.drain(keep..).collect();
    if files.is_empty() {
        return Instructions::default();
    }
    let mut text = String::from(
        "Instructions for this work follow, from the user and from the project's files. \
         Where they disagree, a later (nearer) file takes precedence over an earlier one.",
    );
    for (file, body) in &files {
        let whose = match file.scope {
            InstructionScope::Global => "the user's own instructions",
            InstructionScope::Project => "the project",
        };
        text.push_str(&format!(
            "\n\n## {} ({whose})\n\n{}",
            file.path,
            body.trim_end()
        ));
        if file.truncated {
            text.push_str("\n\n[cut: the file is longer than codewhale passes on]");
        }
    }
    Instructions {
        files: files.into_iter().map(|(file, _)| file).collect(),
        text,
        skills: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn global_then_top_down_to_the_workspace() {
        let home = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let top = repo.path().canonicalize().unwrap();
        std::fs::create_dir(top.join(".git")).unwrap();
        write(&home.path().join("AGENTS.md"), "Global rule.\n");
        write(&top.join("AGENTS.md"), "Top rule.\n");
        write(&top.join("server/CODEWHALE.md"), "Server rule.\n");
        write(&top.join("server/src/AGENTS.md"), "Src rule.\n");
        write(&top.join("other/AGENTS.md"), "Not on the way.\n");
        let workspace = top.join("server/src");
        let got = load_now(home.path(), Some(&workspace));
        let paths: Vec<_> = got.files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(
            paths,
            vec![
                home.path()
                    .canonicalize()
                    .unwrap()
                    .join("AGENTS.md")
                    .display()
                    .to_string(),
                top.join("AGENTS.md").display().to_string(),
                top.join("server/CODEWHALE.md").display().to_string(),
                top.join("server/src/AGENTS.md").display().to_string(),
            ]
        );
        assert_eq!(got.files[0].scope, InstructionScope::Global);
        assert_eq!(got.files[1].scope, InstructionScope::Project);
        let order: Vec<_> = ["Global rule", "Top rule", "Server rule", "Src rule"]
            .iter()
            .map(|rule| got.text.find(rule).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{}", got.text);
        assert!(!got.text.contains("Not on the way"));
        assert_eq!(
            got.files[1].sha256,
            hex::encode(Sha256::digest(b"Top rule.\n"))
        );
        assert_eq!(got.files[1].bytes, 10);
    }

    #[test]
    fn without_a_repository_only_the_workspace_counts() {
        let home = tempfile::tempdir().unwrap();
        let outer = tempfile::tempdir().unwrap();
        write(&outer.path().join("AGENTS.md"), "Above the workspace.\n");
        let workspace = outer.path().join("ws");
        write(&workspace.join("AGENTS.md"), "Here.\n");
        let got = load_now(home.path(), Some(&workspace));
        assert_eq!(got.files.len(), 1);
        assert!(got.text.contains("Here."));
        assert!(!got.text.contains("Above"));
        assert!(load_now(home.path(), None).text.is_empty());
    }

    #[test]
    fn links_out_fifos_empty_files_and_directories_are_skipped_and_long_files_cut() {
        let home = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let top = repo.path().canonicalize().unwrap();
        std::fs::create_dir(top.join(".git")).unwrap();
        write(&outside.path().join("secret"), "outside text\n");
        std::os::unix::fs::symlink(outside.path().join("secret"), top.join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink(top.join("nowhere"), top.join("CODEWHALE.md")).unwrap();
        std::fs::create_dir_all(top.join("a/AGENTS.md")).unwrap();
        write(&top.join("a/CODEWHALE.md"), "   \n");
        // A FIFO opens without blocking and is skipped (not a regular file).
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(top.join("a/b/CODEWHALE.md"))
            .status()
            .unwrap();
        assert!(made.success());
        write(&top.join("a/b/AGENTS.md"), &"é".repeat(MAX_FILE_BYTES));
        let got = load_now(home.path(), Some(&top.join("a/b")));
        assert_eq!(got.files.len(), 1, "{:?}", got.files);
        assert!(!got.text.contains("outside text"));
        let long = &got.files[0];
        assert!(long.truncated);
        assert_eq!(long.bytes, 2 * MAX_FILE_BYTES as u64);
        assert!(got.text.contains("[cut:"));
        assert!(!got.text.contains('\u{FFFD}'));
    }

    #[test]
    fn the_nearest_files_are_kept_when_all_are_too_long() {
        let home = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let top = repo.path().canonicalize().unwrap();
        std::fs::create_dir(top.join(".git")).unwrap();
        let big = "x".repeat(MAX_FILE_BYTES - 10);
        write(&home.path().join("AGENTS.md"), &format!("far {big}"));
        write(&top.join("AGENTS.md"), &format!("top {big}"));
        write(&top.join("a/AGENTS.md"), &format!("mid {big}"));
        write(&top.join("a/b/AGENTS.md"), &format!("near {big}"));
        let got = load_now(home.path(), Some(&top.join("a/b")));
        assert_eq!(got.files.len(), 3);
        assert!(!got.text.contains("far x"));
        assert!(got.text.contains("near x"));
    }
}
