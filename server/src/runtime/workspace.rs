//! The workspace views: a thread's own workspace (browse, file, diff),
//! and for the composer the workspaces the runtime knows (browse, file,
//! status). Which directory a request may see is decided here; what is
//! shown of it, and every path's confinement, in `crate::workspace`.
//!
//! Refusals: a path leading outside the workspace is 403 (whether the
//! outside file exists is not told), a missing one 404; a composer
//! `workspace` that is neither the default workspace nor any thread's is
//! 403; a thread without a workspace, a workspace that is gone, a file
//! asked as a directory (or the reverse) and a diff outside a git
//! repository are 409.

use super::{error::RuntimeError, ids, Runtime};
use crate::{
    store,
    workspace::{browse, confine::Workspace, diff, file, ViewError},
};
use protocol::{
    WorkspaceDiff, WorkspaceFile, WorkspaceListing, WorkspacePathQuery, WorkspaceQuery,
    WorkspaceStatus, WorkspaceStatusQuery,
};
use std::path::{Path, PathBuf};

impl From<ViewError> for RuntimeError {
    fn from(e: ViewError) -> Self {
        match e {
            ViewError::Outside(m) => RuntimeError::Forbidden(m),
            ViewError::Missing(m) => RuntimeError::NotFound(m),
            ViewError::Conflict(m) => RuntimeError::Conflict(m),
        }
    }
}

impl Runtime {
    /// One directory of the thread's workspace.
    pub async fn browse_thread_workspace(
        &self,
        thread_id: &str,
        query: WorkspacePathQuery,
    ) -> Result<WorkspaceListing, RuntimeError> {
        let root = self.thread_workspace(thread_id).await?;
        blocking(root, move |w| browse::list(w, path(&query.path))).await
    }

    /// One text file of the thread's workspace.
    pub async fn read_thread_file(
        &self,
        thread_id: &str,
        query: WorkspacePathQuery,
    ) -> Result<WorkspaceFile, RuntimeError> {
        let root = self.thread_workspace(thread_id).await?;
        blocking(root, move |w| file::read(w, path(&query.path))).await
    }

    /// The thread's workspace against HEAD: tracked and untracked changes.
    pub async fn thread_diff(&self, thread_id: &str) -> Result<WorkspaceDiff, RuntimeError> {
        let root = self.thread_workspace(thread_id).await?;
        let facts = self.git.fresh(&root.display().to_string()).await;
        if !facts.is_git {
            return Err(RuntimeError::Conflict(format!(
                "the workspace {} is not a git repository, so there is nothing to diff against",
                root.display()
            )));
        }
        Ok(diff::diff(&root, facts.oid).await?)
    }

    /// One directory of a workspace the runtime knows (the composer's).
    pub async fn browse_workspace(
        &self,
        query: WorkspaceQuery,
    ) -> Result<WorkspaceListing, RuntimeError> {
        let root = self.known_workspace(&query.workspace).await?;
        blocking(root, move |w| browse::list(w, path(&query.path))).await
    }

    /// One text file of a workspace the runtime knows.
    pub async fn read_workspace_file(
        &self,
        query: WorkspaceQuery,
    ) -> Result<WorkspaceFile, RuntimeError> {
        let root = self.known_workspace(&query.workspace).await?;
        blocking(root, move |w| file::read(w, path(&query.path))).await
    }

    /// Branch, head, upstream and counts, read now; `is_git` false outside
    /// a repository.
    pub async fn workspace_status(
        &self,
        query: WorkspaceStatusQuery,
    ) -> Result<WorkspaceStatus, RuntimeError> {
        let root = match &query.workspace {
            Some(asked) => self.known_workspace(asked).await?,
            None => usable(&self.default_workspace)?,
        };
        let shown = root.display().to_string();
        let facts = self.git.fresh(&shown).await;
        Ok(WorkspaceStatus {
            workspace: shown,
            is_git: facts.is_git,
            branch: facts.branch,
            head: facts.oid,
            dirty: facts.is_git.then_some(facts.dirty).flatten(),
            upstream: facts.upstream,
            ahead: facts.ahead_behind.map(|(ahead, _)| ahead),
            behind: facts.ahead_behind.map(|(_, behind)| behind),
            counts: facts.is_git.then_some(facts.counts),
        })
    }

    /// The thread's workspace, canonical: 404 for no such thread, 409 when
    /// it has none or it is gone.
    async fn thread_workspace(&self, thread_id: &str) -> Result<PathBuf, RuntimeError> {
        let id = ids::parse(ids::THREAD, thread_id, "thread")?;
        let mut conn = self.store.conn().await?;
        let thread = store::threads::get(&mut conn, id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("thread {id} not found")))?;
        let workspace = thread
            .workspace
            .ok_or_else(|| RuntimeError::Conflict(format!("thread {id} has no workspace")))?;
        usable(Path::new(&workspace))
    }

    /// `asked`, if it is the default workspace or some thread's (compared
    /// as given and as resolved): 403 otherwise, 409 when it is gone. The
    /// API reads no other directory.
    pub(super) async fn known_workspace(&self, asked: &str) -> Result<PathBuf, RuntimeError> {
        let mut known = store::threads::workspaces(self.store.pool()).await?;
        known.push(self.default_workspace.display().to_string());
        let resolved = Path::new(asked)
            .is_absolute()
            .then(|| std::fs::canonicalize(asked).ok())
            .flatten();
        let is_known = known
            .iter()
            .any(|k| k == asked || resolved.is_some() && std::fs::canonicalize(k).ok() == resolved);
        if !is_known {
            return Err(RuntimeError::Forbidden(format!(
                "{asked:?} is not a workspace this runtime knows: only its default workspace \
                 and the workspaces of its threads can be read"
            )));
        }
        usable(Path::new(asked))
    }
}

/// An existing directory, canonical; 409 otherwise.
pub(super) fn usable(workspace: &Path) -> Result<PathBuf, RuntimeError> {
    match std::fs::canonicalize(workspace) {
        Ok(path) if path.is_dir() => Ok(path),
        _ => Err(RuntimeError::Conflict(format!(
            "the workspace {} is gone or is not a directory",
            workspace.display()
        ))),
    }
}

/// The asked path, the workspace itself when absent or empty.
fn path(asked: &Option<String>) -> &str {
    match asked.as_deref() {
        None | Some("") => ".",
        Some(path) => path,
    }
}

/// Runs a view of `root` on the blocking pool (it reads the disk).
async fn blocking<T: Send + 'static>(
    root: PathBuf,
    view: impl FnOnce(&Workspace) -> Result<T, ViewError> + Send + 'static,
) -> Result<T, RuntimeError> {
    tokio::task::spawn_blocking(move || view(&Workspace::new(&root, false)?))
        .await
        .map_err(|e| RuntimeError::Conflict(format!("the workspace could not be read: {e}")))?
        .map_err(RuntimeError::from)
}
