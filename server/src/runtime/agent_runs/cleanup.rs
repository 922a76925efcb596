//! A worktree run's worktree removed on request (its branch, with the
//! run's work committed, stays), and worktrees a process left behind when
//! it died between making one and recording its run.
//!
//! A spawn writes `<worktrees/agents>/<run>.pending` (the repository's top)
//! before it makes the worktree and removes it once the run is recorded or
//! the worktree discarded; the next process that has the store to itself
//! discards every worktree whose marker names no recorded run.

use super::{records::receipt, SubAgents, RUN};
use crate::{
    child::worktree::{self, Worktree},
    clock,
    runtime::{error::RuntimeError, ids, Runtime},
    store,
};
use protocol::AgentRun;
use std::path::{Path, PathBuf};

const PENDING: &str = "pending";

impl SubAgents {
    fn pending_marker(&self, run_id: &str) -> PathBuf {
        self.worktrees.join(format!("{run_id}.{PENDING}"))
    }

    /// Says that run `run_id`'s worktree is being made in the repository
    /// at `top`, for a later process to find if this one dies first.
    pub(super) fn mark_pending(&self, run_id: &str, top: &Path) -> Result<(), String> {
        std::fs::create_dir_all(&self.worktrees)
            .and_then(|()| {
                std::fs::write(
                    self.pending_marker(run_id),
                    top.as_os_str().as_encoded_bytes(),
                )
            })
            .map_err(|e| format!("cannot prepare the sub-agent's worktree: {e}"))
    }

    /// The run is recorded (or its worktree discarded).
    pub(super) fn unmark_pending(&self, run_id: &str) {
        let _ = std::fs::remove_file(self.pending_marker(run_id));
    }

    /// The markers an earlier process left: (run id, repository top). Read
    /// when the store is opened alone, before this process spawns anything.
    pub(in crate::runtime) fn left_pending(&self) -> Vec<(String, PathBuf)> {
        let Ok(entries) = std::fs::read_dir(&self.worktrees) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let run_id = name.strip_suffix(&format!(".{PENDING}"))?;
                ids::parse(RUN, run_id, "agent run").ok()?;
                let top = std::fs::read(entry.path()).ok()?;
                let top = PathBuf::from(String::from_utf8(top).ok()?);
                Some((run_id.to_string(), top))
            })
            .collect()
    }

    /// Discards the worktree and branch of each left marker whose run was
    /// never recorded; a recorded run's marker is only removed.
    pub(in crate::runtime) async fn discard_unrecorded(&self, left: Vec<(String, PathBuf)>) {
        for (run_id, top) in left {
            match store::agent_runs::exists(self.store.pool(), &run_id).await {
                Ok(true) => {}
                Ok(false) => {
                    let path = self.worktrees.join(&run_id);
                    worktree::discard(&top, &path, &branch_of(&run_id)).await;
                    tracing::info!(run = %run_id, "removed a sub-agent worktree no run was recorded for");
                }
                Err(error) => {
                    tracing::warn!(%error, "reading an agent run failed");
                    continue;
                }
            }
            self.unmark_pending(&run_id);
        }
    }
}

/// The branch a worktree run works on.
pub(super) fn branch_of(run_id: &str) -> String {
    format!("codewhale/agent/{run_id}")
}

impl Runtime {
    /// Removes an ended worktree run's worktree. Work left in it since the
    /// run's own commit (a later turn on the child's thread) is committed
    /// on the run's branch first, so nothing is lost; the branch stays.
    pub async fn clean_up_agent_run(&self, id: &str) -> Result<AgentRun, RuntimeError> {
        let row = self.agent_run_row(id).await?;
        let (Some(path), Some(git_dir), Some(branch)) = (&row.worktree, &row.git_dir, &row.branch)
        else {
            return Err(RuntimeError::Conflict(format!(
                "agent run {} worked in its parent's workspace: it has no worktree to remove",
                row.id
            )));
        };
        if row.cleaned_up_at.is_none() {
            if row.ended_at.is_none() {
                return Err(RuntimeError::Conflict(format!(
                    "agent run {} is still running; stop its thread's turn first",
                    row.id
                )));
            }
            let Some(top) = &row.repo_top else {
                return Err(RuntimeError::Conflict(format!(
                    "agent run {} was made by an earlier codewhale that did not record its \
                     repository; remove it with `git worktree remove {path}`",
                    row.id
                )));
            };
            // No turn of this process starts on the child's thread meanwhile.
            let _hold = self.turns.hold(&row.thread_id)?;
            let tree = Worktree {
                path: PathBuf::from(path),
                git_dir: PathBuf::from(git_dir),
            };
            if tree.path.exists() {
                let message = format!(
                    "Work left in the worktree\n\ncodewhale sub-agent run {} (at cleanup)",
                    row.id
                );
                worktree::commit_all(&tree, branch, &message)
                    .await
                    .map_err(|e| {
                        RuntimeError::Conflict(format!(
                            "the worktree's changes could not be committed, so it stays: {e}"
                        ))
                    })?;
            }
            worktree::remove(Path::new(top), &tree.path)
                .await
                .map_err(RuntimeError::Conflict)?;
            store::agent_runs::mark_cleaned_up(self.store.pool(), &row.id, &clock::now()).await?;
        }
        let row = self.agent_run_row(&row.id).await?;
        receipt(&self.store, row).await
    }
}
