//! One directory of the workspace, as `GET …/workspace/browse` lists it:
//! what git ignores (`.gitignore` at every level, `.git/info/exclude`, the
//! user's global excludes) and `.git` itself are left out; links are
//! listed as links, never followed.

use super::{confine::Workspace, ViewError};
use ignore::WalkBuilder;
use protocol::{EntryKind, WorkspaceEntry, WorkspaceListing};

/// The most entries one listing returns (the first by name; `truncated`
/// says more were left out).
pub const MAX_ENTRIES: usize = 1000;

pub fn list(workspace: &Workspace, asked: &str) -> Result<WorkspaceListing, ViewError> {
    let dir = workspace.existing(asked)?;
    // Resolved, so no link is left on it: metadata is the directory's own.
    let is_dir = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir());
    if !is_dir {
        return Err(ViewError::Conflict(format!("{asked}: not a directory")));
    }
    let walk = WalkBuilder::new(&dir)
        .max_depth(Some(1))
        .hidden(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let (mut entries, mut truncated) = (Vec::new(), false);
    for entry in walk.flatten().filter(|e| e.depth() == 1) {
        if entries.len() == MAX_ENTRIES {
            truncated = true;
            break;
        }
        let kind = match entry.file_type() {
            Some(t) if t.is_symlink() => EntryKind::Symlink,
            Some(t) if t.is_dir() => EntryKind::Dir,
            Some(t) if t.is_file() => EntryKind::File,
            _ => EntryKind::Other,
        };
        let size = (kind == EntryKind::File)
            .then(|| entry.metadata().ok().map(|m| m.len()))
            .flatten();
        entries.push(WorkspaceEntry {
            name: entry.file_name().to_string_lossy().into_owned(),
            path: workspace.display(entry.path()),
            kind,
            size,
        });
    }
    entries.sort_by(|a, b| {
        (a.kind != EntryKind::Dir)
            .cmp(&(b.kind != EntryKind::Dir))
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(WorkspaceListing {
        workspace: workspace.root().display().to_string(),
        path: workspace.display(&dir),
        entries,
        truncated,
    })
}
