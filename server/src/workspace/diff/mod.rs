//! The diff of a workspace against HEAD, as `GET /v1/threads/{id}/
//! workspace/diff` sends it: every tracked change (renames found by git)
//! and every untracked file, as hunks of lines. No shell: git runs through
//! `child::git`, HEAD's side comes from `cat-file` (raw objects), the work
//! tree's side through the confined path. A symbolic link's target is
//! never read (git would diff its target path; we send no hunks), nor is
//! a binary file's content; every part is bounded by the limits below.

mod blobs;
mod changes;
mod hunks;

use super::{
    confine::Workspace,
    file::{text, MAX_FILE_BYTES},
    ViewError,
};
use blobs::Blob;
use changes::{Change, LINK_MODE};
use protocol::{DiffFile, DiffFileStatus, DiffLimits, WorkspaceDiff};
use std::{collections::HashMap, io::Read, path::Path};

/// The most files listed; the rest are left out (`truncated`).
pub const MAX_FILES: usize = 300;
pub const MAX_HUNKS_PER_FILE: usize = 100;
pub const MAX_LINES_PER_FILE: usize = 5_000;
/// Bytes of line text in the whole diff.
pub const MAX_TOTAL_BYTES: u64 = 4 * 1024 * 1024;

pub fn limits() -> DiffLimits {
    DiffLimits {
        max_files: MAX_FILES as u32,
        max_hunks_per_file: MAX_HUNKS_PER_FILE as u32,
        max_lines_per_file: MAX_LINES_PER_FILE as u32,
        max_total_bytes: MAX_TOTAL_BYTES,
        max_file_bytes: MAX_FILE_BYTES,
    }
}

/// `root` is the (canonical) workspace, inside a repository whose HEAD is
/// `head` (None before the first commit).
pub async fn diff(root: &Path, head: Option<String>) -> Result<WorkspaceDiff, ViewError> {
    let workspace = Workspace::new(root, false)?;
    let mut changes = changes::list(workspace.root(), head.is_some()).await?;
    let left_out = changes.len() > MAX_FILES;
    changes.truncate(MAX_FILES);
    let blobs = blobs::read(workspace.root(), &changes, MAX_FILE_BYTES).await;
    let shown = workspace.root().display().to_string();
    // Reading the work tree and diffing are blocking work.
    let files = tokio::task::spawn_blocking(move || {
        let mut budget = MAX_TOTAL_BYTES;
        changes
            .iter()
            .map(|change| file(&workspace, change, &blobs, &mut budget))
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|e| ViewError::Conflict(format!("the diff failed: {e}")))?;
    Ok(WorkspaceDiff {
        workspace: shown,
        head,
        truncated: left_out || files.iter().any(|f| f.truncated),
        files,
        limits: limits(),
    })
}

/// One side of a file.
enum Side {
    Bytes(Vec<u8>),
    /// Too large, or unreadable: no hunks, and the file is `truncated`.
    NotRead,
}

fn file(
    workspace: &Workspace,
    change: &Change,
    blobs: &HashMap<String, Blob>,
    budget: &mut u64,
) -> DiffFile {
    let mut out = DiffFile {
        path: change.path.clone(),
        old_path: change.old_path.clone(),
        status: change.status,
        binary: false,
        symlink: false,
        truncated: false,
        hunks: Vec::new(),
    };
    let old_mode = change.old.as_ref().map(|(mode, _)| mode.as_str());
    // lstat, by name: a link is seen as a link and not followed.
    let on_disk = std::fs::symlink_metadata(workspace.root().join(&change.path)).ok();
    let new_link = on_disk.as_ref().is_some_and(|m| m.file_type().is_symlink());
    if old_mode == Some(LINK_MODE) || change.new_mode.as_deref() == Some(LINK_MODE) || new_link {
        out.symlink = true;
        return out;
    }
    // Submodules and nested repositories have no lines of their own.
    let old_regular = old_mode.is_none_or(|mode| mode.starts_with("100"));
    if !old_regular || on_disk.as_ref().is_some_and(|m| m.is_dir()) {
        return out;
    }
    let old = match &change.old {
        None => Side::Bytes(Vec::new()),
        Some((_, oid)) => match blobs.get(oid) {
            Some(Blob::Bytes(bytes)) => Side::Bytes(bytes.clone()),
            _ => Side::NotRead,
        },
    };
    let new = if change.status == DiffFileStatus::Deleted || on_disk.is_none() {
        Side::Bytes(Vec::new())
    } else {
        work_tree(workspace, &change.path)
    };
    let (Side::Bytes(old), Side::Bytes(new)) = (old, new) else {
        out.truncated = true;
        return out;
    };
    let (Some(old), Some(new)) = (text(&old, false), text(&new, false)) else {
        out.binary = true;
        return out;
    };
    (out.hunks, out.truncated) = hunks::hunks(&old, &new, budget);
    out
}

/// The work tree's side, through the confined path (a link swapped in
/// after the lstat above is refused, never followed outside).
fn work_tree(workspace: &Workspace, path: &str) -> Side {
    let read = || -> Option<Vec<u8>> {
        let file = workspace.existing(path).ok()?.open_read().ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
            return None;
        }
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 <= MAX_FILE_BYTES).then_some(bytes)
    };
    read().map_or(Side::NotRead, Side::Bytes)
}
