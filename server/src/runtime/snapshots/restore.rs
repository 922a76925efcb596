//! Restore: put a snapshot's files back with the compare-and-swap the
//! module above describes, recording the state before and after.

use super::{canonical, git_failed, Owner, Snapshots};
use crate::{
    runtime::error::RuntimeError,
    store::{self, snapshots::SnapshotRow},
    workspace::{
        confine::Workspace,
        snapshots::{self as mechanism, Applied, SideRepo},
    },
};
use protocol::{
    EventPayload, FileChange, RestoreReason, Restored, RestoredFile, SnapshotKind,
    WorkspaceRestoredPayload,
};
use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

/// Which files a restore may touch, and what it is for.
#[derive(Default)]
pub struct Scope<'a> {
    /// Just the paths that differ between the target and this later
    /// snapshot (what a turn changed); each must still be as this snapshot
    /// has it, not merely as the newest one does.
    pub only_changed_by: Option<&'a SnapshotRow>,
    /// The review action being reverted, named in the record.
    pub review_action_id: Option<String>,
}

/// Conflicting paths named in a refusal's message (all are in `conflicts`).
const CONFLICTS_IN_MESSAGE: usize = 5;

impl Snapshots {
    /// Puts back snapshot `snapshot_id` in `workspace` (the thread's), with
    /// the compare-and-swap described above, within `scope` (other files
    /// are left as they are).
    pub async fn restore(
        &self,
        workspace: &Path,
        thread_id: &str,
        snapshot_id: &str,
        reason: RestoreReason,
        scope: Scope<'_>,
    ) -> Result<Restored, RuntimeError> {
        let workspace = canonical(workspace)?;
        let target = self.get(snapshot_id).await?;
        if Path::new(&target.workspace) != workspace {
            return Err(RuntimeError::Conflict(format!(
                "snapshot {snapshot_id} is of another workspace ({}); this thread works in {}",
                target.workspace,
                workspace.display()
            )));
        }
        let lock = self.lock(&workspace);
        let _held = lock.lock().await;
        let repo = self.repo(&workspace).await?;
        let now = repo.capture().await.map_err(git_failed)?;
        let mut conn = self.store.conn().await?;
        let last = store::snapshots::latest(&mut conn, &target.workspace)
            .await?
            .ok_or_else(|| RuntimeError::Conflict("this workspace has no snapshots".into()))?;
        drop(conn);
        let mut touched = repo.changes(&now, &target.tree).await.map_err(git_failed)?;
        if let Some(later) = scope.only_changed_by {
            let scope: BTreeSet<PathBuf> = repo
                .changes(&target.tree, &later.tree)
                .await
                .map_err(git_failed)?
                .into_iter()
                .map(|change| change.path)
                .collect();
            touched.retain(|change| scope.contains(&change.path));
        }
        let mut restored = Restored {
            reason,
            restored_from: target.id.clone(),
            before: None,
            snapshot: None,
            files: Vec::new(),
            review_action_id: scope.review_action_id.clone(),
        };
        if touched.is_empty() {
            return Ok(restored);
        }
        // Compare-and-swap: each touched path as codewhale last recorded it
        // (as the scoping snapshot has it, when there is one: a later
        // turn's edit of the same file is a conflict, not a base).
        let expected = scope.only_changed_by.map_or(&last.tree, |s| &s.tree);
        let changed_since: BTreeSet<PathBuf> = repo
            .changes(expected, &now)
            .await
            .map_err(git_failed)?
            .into_iter()
            .map(|change| change.path)
            .collect();
        let conflicts: Vec<String> = touched
            .iter()
            .filter(|change| changed_since.contains(&change.path))
            .map(|change| change.path.to_string_lossy().into_owned())
            .collect();
        if !conflicts.is_empty() {
            return Err(conflict(conflicts));
        }
        let owner = || Owner {
            thread_id,
            turn_id: None,
        };
        let before = if now == last.tree {
            last.id.clone()
        } else {
            let record = self
                .commit_with(
                    &repo,
                    &workspace,
                    &now,
                    owner(),
                    SnapshotKind::PreRestore,
                    None,
                    |_| None,
                )
                .await?;
            record.id
        };
        let oids: Vec<&str> = touched
            .iter()
            .filter_map(|change| change.new.as_ref())
            .filter(|entry| !entry.is_gitlink())
            .map(|entry| entry.oid.as_str())
            .collect();
        let blobs = repo.blobs(&oids).await.map_err(git_failed)?;
        let confined =
            Workspace::new(&workspace, false).map_err(|e| RuntimeError::Conflict(e.0))?;
        let applied = match mechanism::apply(&confined, &touched, &blobs) {
            Ok(applied) => applied,
            Err(error) => {
                // Put back what was already changed: the files as they were.
                self.put_back(&repo, &confined, &now).await;
                return Err(RuntimeError::Conflict(format!(
                    "the restore could not be completed and was rolled back: {error}"
                )));
            }
        };
        let after = repo.capture().await.map_err(git_failed)?;
        restored.before = Some(before);
        restored.files = applied
            .into_iter()
            .map(|(path, applied)| RestoredFile {
                path,
                change: match applied {
                    Applied::Created => FileChange::Created,
                    Applied::Modified => FileChange::Modified,
                    Applied::Deleted => FileChange::Deleted,
                },
            })
            .collect();
        let mut record_restore = restored.clone();
        let snapshot = self
            .commit_with(
                &repo,
                &workspace,
                &after,
                owner(),
                SnapshotKind::Restore,
                Some(&target.id),
                move |snapshot| {
                    record_restore.snapshot = Some(snapshot.clone());
                    Some(EventPayload::WorkspaceRestored(WorkspaceRestoredPayload {
                        restored: record_restore,
                    }))
                },
            )
            .await?;
        restored.snapshot = Some(snapshot);
        Ok(restored)
    }

    /// Best effort after a failed restore: the touched paths as `tree` has them.
    async fn put_back(&self, repo: &SideRepo, workspace: &Workspace, tree: &str) {
        let result = async {
            let current = repo.capture().await?;
            let changes = repo.changes(&current, tree).await?;
            let oids: Vec<&str> = changes
                .iter()
                .filter_map(|c| c.new.as_ref())
                .map(|e| e.oid.as_str())
                .collect();
            let blobs = repo.blobs(&oids).await?;
            mechanism::apply(workspace, &changes, &blobs)
        }
        .await;
        if let Err(error) = result {
            tracing::error!(%error, "rolling back a failed restore failed");
        }
    }
}

fn conflict(paths: Vec<String>) -> RuntimeError {
    let shown: Vec<&str> = paths
        .iter()
        .take(CONFLICTS_IN_MESSAGE)
        .map(String::as_str)
        .collect();
    let more = paths.len().saturating_sub(CONFLICTS_IN_MESSAGE);
    let mut message = format!(
        "refused: {} changed since codewhale last recorded the workspace; \
         nothing was restored (save or revert those changes, then try again)",
        shown.join(", ")
    );
    if more > 0 {
        message = message.replacen(
            " changed since",
            &format!(" and {more} more changed since"),
            1,
        );
    }
    RuntimeError::Conflicts { message, paths }
}
