//! Which files differ from HEAD: git's own listing (`diff --raw -z`, for
//! tracked files with renames) and `ls-files --others` (untracked, minus
//! what git ignores). Names and modes only; no contents are read here.

use crate::{
    child::git::{self, Read},
    workspace::ViewError,
};
use protocol::DiffFileStatus;
use std::path::Path;

/// A link's mode in git; 160000 is a submodule.
pub const LINK_MODE: &str = "120000";

/// One changed path and what git knows of each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub old_path: Option<String>,
    pub status: DiffFileStatus,
    /// Mode and object id in HEAD (None: not there).
    pub old: Option<(String, String)>,
    /// Mode in the work tree (None: not there; untracked: unknown).
    pub new_mode: Option<String>,
}

/// Tracked changes against `HEAD` (or, before the first commit, what is
/// staged), then untracked files, by path.
pub async fn list(root: &Path, has_head: bool) -> Result<Vec<Change>, ViewError> {
    let base = if has_head { "HEAD" } else { "--cached" };
    let raw = run(
        root,
        Read::Diff,
        &[base, "--raw", "-z", "-M", "--no-abbrev"],
    )
    .await?;
    let mut changes = parse_raw(&raw);
    let others = run(
        root,
        Read::LsFiles,
        &["--others", "--exclude-standard", "-z"],
    )
    .await?;
    changes.extend(parse_untracked(&others));
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

async fn run(root: &Path, read: Read, args: &[&str]) -> Result<Vec<u8>, ViewError> {
    let output = git::output(root, read, args)
        .await
        .map_err(|e| ViewError::Conflict(format!("git {} could not run: {e}", read.name())))?;
    if !output.status.success() {
        return Err(ViewError::Conflict(format!(
            "git {} failed: {}",
            read.name(),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(output.stdout)
}

/// `:oldmode newmode oldoid newoid status\0path\0` (two paths for a
/// rename or copy). The work tree's object id is zeros: it is not hashed.
fn parse_raw(raw: &[u8]) -> Vec<Change> {
    let mut tokens = raw
        .split(|b| *b == 0)
        .map(|t| String::from_utf8_lossy(t).into_owned());
    let mut changes = Vec::new();
    while let Some(meta) = tokens.next() {
        let Some(meta) = meta.strip_prefix(':') else {
            continue;
        };
        let fields: Vec<&str> = meta.split(' ').collect();
        let [old_mode, new_mode, old_oid, _, status] = fields[..] else {
            continue;
        };
        let letter = status.chars().next().unwrap_or('M');
        let two_paths = matches!(letter, 'R' | 'C');
        let first = tokens.next().unwrap_or_default();
        let (path, old_path) = if two_paths {
            (tokens.next().unwrap_or_default(), Some(first))
        } else {
            (first, None)
        };
        let absent = |mode: &str| mode.bytes().all(|b| b == b'0');
        changes.push(Change {
            path,
            old_path,
            status: match letter {
                'A' => DiffFileStatus::Added,
                'D' => DiffFileStatus::Deleted,
                'R' => DiffFileStatus::Renamed,
                'C' => DiffFileStatus::Copied,
                'T' => DiffFileStatus::TypeChanged,
                'U' => DiffFileStatus::Conflicted,
                _ => DiffFileStatus::Modified,
            },
            old: (!absent(old_mode)).then(|| (old_mode.to_string(), old_oid.to_string())),
            new_mode: (!absent(new_mode)).then(|| new_mode.to_string()),
        });
    }
    changes
}

fn parse_untracked(listing: &[u8]) -> impl Iterator<Item = Change> + '_ {
    listing
        .split(|b| *b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| Change {
            path: String::from_utf8_lossy(name).into_owned(),
            old_path: None,
            status: DiffFileStatus::Untracked,
            old: None,
            new_mode: None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_raw_listings() {
        let zero = "0".repeat(40);
        let a = "a".repeat(40);
        let raw = format!(
            ":100644 100644 {a} {zero} M\0src/x.rs\0\
             :100644 100644 {a} {zero} R087\0old.txt\0new.txt\0\
             :000000 100644 {zero} {zero} A\0added.txt\0\
             :100644 000000 {a} {zero} D\0gone.txt\0"
        );
        let changes = parse_raw(raw.as_bytes());
        assert_eq!(changes.len(), 4);
        assert_eq!(changes[0].status, DiffFileStatus::Modified);
        assert_eq!(changes[0].old, Some(("100644".into(), a.clone())));
        assert_eq!(changes[1].path, "new.txt");
        assert_eq!(changes[1].old_path.as_deref(), Some("old.txt"));
        assert_eq!(changes[1].status, DiffFileStatus::Renamed);
        assert_eq!(
            (changes[2].old.clone(), changes[2].status),
            (None, DiffFileStatus::Added)
        );
        assert_eq!(changes[3].new_mode, None);
        let untracked: Vec<_> = parse_untracked(b"a.txt\0dir/\0").collect();
        assert_eq!(untracked[1].path, "dir/");
        assert_eq!(untracked[0].status, DiffFileStatus::Untracked);
    }
}
