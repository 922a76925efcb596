//! Writing a snapshot's entries back into the workspace, path by path,
//! through the confinement resolver (never `git checkout`, which would
//! follow the work tree's attributes and touch files the restore did not
//! choose). Removals run first, so a file can become a directory and back.

use super::side_repo::{Change, Entry};
use crate::workspace::confine::{Confined, Workspace};
use std::collections::HashMap;
use std::fs::Permissions;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// What happened to one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    Created,
    Modified,
    Deleted,
}

/// Makes each changed path hold its `new` entry (absent: removed), with
/// contents from `blobs`. Gitlinks (nested repositories) are left alone.
/// Returns what was done, in order; stops at the first failure.
pub fn apply(
    workspace: &Workspace,
    changes: &[Change],
    blobs: &HashMap<String, Vec<u8>>,
) -> io::Result<Vec<(String, Applied)>> {
    let mut done = Vec::new();
    let relevant = changes.iter().filter(|c| {
        !c.old.as_ref().is_some_and(Entry::is_gitlink)
            && !c.new.as_ref().is_some_and(Entry::is_gitlink)
    });
    let (removals, writes): (Vec<&Change>, Vec<&Change>) =
        relevant.partition(|change| change.new.is_none());
    for change in removals {
        let path = utf8(&change.path)?;
        remove(workspace, path)?;
        prune_empty_parents(workspace, path);
        done.push((path.to_string(), Applied::Deleted));
    }
    for change in writes {
        let path = utf8(&change.path)?;
        let entry = change.new.as_ref().expect("partitioned");
        let bytes = blobs
            .get(&entry.oid)
            .ok_or_else(|| io::Error::other(format!("{path}: missing from the snapshot")))?;
        write(workspace, path, entry, bytes)?;
        let applied = if change.old.is_some() {
            Applied::Modified
        } else {
            Applied::Created
        };
        done.push((path.to_string(), applied));
    }
    Ok(done)
}

fn utf8(path: &Path) -> io::Result<&str> {
    path.to_str().ok_or_else(|| {
        io::Error::other(format!(
            "{}: names that are not UTF-8 cannot be restored",
            path.display()
        ))
    })
}

fn confined(
    result: Result<Confined, crate::workspace::confine::ConfineError>,
) -> io::Result<Confined> {
    result.map_err(|e| io::Error::new(io::ErrorKind::PermissionDenied, e.0))
}

/// Removes the entry at `path` (a symlink itself, never its target); a
/// directory there is removed only when empty.
fn remove(workspace: &Workspace, path: &str) -> io::Result<()> {
    let entry = confined(workspace.entry(path))?;
    match std::fs::symlink_metadata(&entry) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(meta) if meta.is_dir() => entry.remove_dir(),
        Ok(_) => entry.remove_file(),
    }
}

/// Directories the removals left empty go too, up to the workspace root.
fn prune_empty_parents(workspace: &Workspace, path: &str) {
    let mut dir = Path::new(path).parent();
    while let Some(parent) = dir.and_then(Path::to_str).filter(|p| !p.is_empty()) {
        let Ok(entry) = workspace.entry(parent) else {
            return;
        };
        let empty = std::fs::read_dir(&entry).is_ok_and(|mut d| d.next().is_none());
        if !empty || entry.remove_dir().is_err() {
            return;
        }
        dir = Path::new(parent).parent();
    }
}

fn write(workspace: &Workspace, path: &str, entry: &Entry, bytes: &[u8]) -> io::Result<()> {
    let target = confined(workspace.entry(path))?;
    // Whatever is there of another type (a link, a directory left by a
    // file's removal elsewhere) gives way; a file is rewritten in place.
    match std::fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_symlink() || entry.is_symlink() => target.remove_file()?,
        Ok(meta) if meta.is_dir() => target.remove_dir()?,
        _ => {}
    }
    let mut created = Vec::new();
    target.create_parents(&mut created)?;
    if entry.is_symlink() {
        use std::os::unix::ffi::OsStrExt;
        return std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(bytes), &target);
    }
    let file = target.write(bytes)?;
    let mode = if entry.is_executable() { 0o755 } else { 0o644 };
    file.set_permissions(Permissions::from_mode(mode))
}
