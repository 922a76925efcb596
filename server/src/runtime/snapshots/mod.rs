//! Snapshot rules: when a workspace is recorded, and how it is put back.
//!
//! - A turn records its workspace before its first write or command and
//!   again when it ends (`Checkpoint`). A turn that changes nothing records
//!   nothing.
//! - The newest snapshot of a workspace is "the state codewhale last
//!   recorded". A restore first records the files as they are now; every
//!   path it would change must be as last recorded, or it refuses (409,
//!   listing the paths) and changes nothing. Paths changed since but not
//!   touched by the restore are left as they are.
//! - A restore records the state before it (when it differs from the last
//!   snapshot) and after it, so restoring is itself undoable, and appears on
//!   the thread's stream (`workspace.restored`).
//! - One workspace is snapshotted or restored by one task at a time.
//!
//! The mechanism (the side repository, the confined writes) is
//! `workspace::snapshots`.

mod restore;

pub use restore::Scope;

use super::{error::RuntimeError, ids};
use crate::{
    clock,
    store::{self, snapshots::SnapshotRow, NewEvent, Store},
    workspace::snapshots::SideRepo,
};
use protocol::{EventPayload, SnapshotCreatedPayload, SnapshotKind, SnapshotRecord};
use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

pub const SNAPSHOT_PREFIX: &str = "snap_";
/// `GET /v1/snapshots?limit=`: default and range.
pub const DEFAULT_LIST_LIMIT: u32 = 20;
pub const MAX_LIST_LIMIT: u32 = 100;

pub struct Snapshots {
    store: Arc<Store>,
    /// `$CODEWHALE_HOME/snapshots`: one side repository per workspace.
    dir: PathBuf,
    locks: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

/// Who a snapshot is for.
pub struct Owner<'a> {
    pub thread_id: &'a str,
    pub turn_id: Option<&'a str>,
}

impl Snapshots {
    pub fn new(store: Arc<Store>, home: &Path) -> Self {
        Self {
            store,
            dir: home.join("snapshots"),
            locks: Mutex::default(),
        }
    }

    /// Records `workspace` now.
    pub async fn record(
        &self,
        workspace: &Path,
        owner: Owner<'_>,
        kind: SnapshotKind,
    ) -> Result<SnapshotRecord, RuntimeError> {
        let workspace = canonical(workspace)?;
        let lock = self.lock(&workspace);
        let _held = lock.lock().await;
        let repo = self.repo(&workspace).await?;
        let tree = repo.capture().await.map_err(git_failed)?;
        self.commit_with(&repo, &workspace, &tree, owner, kind, None, |_| None)
            .await
    }

    pub async fn get(&self, id: &str) -> Result<SnapshotRow, RuntimeError> {
        let id = ids::parse(SNAPSHOT_PREFIX, id, "snapshot")?;
        let mut conn = self.store.conn().await?;
        store::snapshots::get(&mut conn, id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("no snapshot {id}")))
    }

    pub async fn recent(&self, limit: Option<u32>) -> Result<Vec<SnapshotRecord>, RuntimeError> {
        let limit = list_limit(limit)?;
        let mut conn = self.store.conn().await?;
        let rows = store::snapshots::recent(&mut conn, limit).await?;
        rows.into_iter().map(record_of).collect()
    }

    pub async fn of_thread(
        &self,
        thread_id: &str,
        limit: Option<u32>,
    ) -> Result<Vec<SnapshotRecord>, RuntimeError> {
        let limit = list_limit(limit)?;
        let mut conn = self.store.conn().await?;
        let rows = store::snapshots::by_thread(&mut conn, thread_id, limit).await?;
        rows.into_iter().map(record_of).collect()
    }

    /// The snapshot of `kind` (pre- or post-turn) of a turn, if it changed
    /// anything.
    pub async fn of_turn(
        &self,
        turn_id: &str,
        kind: SnapshotKind,
    ) -> Result<Option<SnapshotRow>, RuntimeError> {
        let mut conn = self.store.conn().await?;
        Ok(store::snapshots::of_turn(&mut conn, turn_id, kind.as_str()).await?)
    }

    /// A new row (for another thread) naming an existing state: where a
    /// fork starts.
    pub async fn share(
        &self,
        source: &SnapshotRow,
        owner: Owner<'_>,
        kind: SnapshotKind,
    ) -> Result<SnapshotRecord, RuntimeError> {
        let row = self.row(
            &source.workspace,
            &source.tree,
            &source.git_commit,
            &owner,
            kind,
            None,
        );
        self.insert(row, |_| None).await
    }

    pub async fn latest_before(
        &self,
        workspace: &Path,
        created_at: &str,
    ) -> Result<Option<SnapshotRow>, RuntimeError> {
        let workspace = canonical(workspace)?;
        let mut conn = self.store.conn().await?;
        Ok(
            store::snapshots::latest_before(&mut conn, &workspace.to_string_lossy(), created_at)
                .await?,
        )
    }

    /// Commits `tree` in the side repository and records it, with the
    /// `snapshot.created` event and any `extra` event in one transaction.
    #[allow(clippy::too_many_arguments)]
    async fn commit_with(
        &self,
        repo: &SideRepo,
        workspace: &Path,
        tree: &str,
        owner: Owner<'_>,
        kind: SnapshotKind,
        restored_from: Option<&str>,
        extra: impl FnOnce(&SnapshotRecord) -> Option<EventPayload>,
    ) -> Result<SnapshotRecord, RuntimeError> {
        let workspace = workspace.to_string_lossy();
        let mut conn = self.store.conn().await?;
        let parent = store::snapshots::latest(&mut conn, &workspace).await?;
        drop(conn);
        let id = ids::new(SNAPSHOT_PREFIX);
        let label = label(kind, owner.turn_id, restored_from);
        let commit = repo
            .commit(
                tree,
                parent.as_ref().map(|p| p.git_commit.as_str()),
                &label,
                &id,
            )
            .await
            .map_err(git_failed)?;
        let mut row = self.row(&workspace, tree, &commit, &owner, kind, restored_from);
        row.id = id;
        self.insert(row, extra).await
    }

    fn row(
        &self,
        workspace: &str,
        tree: &str,
        commit: &str,
        owner: &Owner<'_>,
        kind: SnapshotKind,
        restored_from: Option<&str>,
    ) -> SnapshotRow {
        SnapshotRow {
            id: ids::new(SNAPSHOT_PREFIX),
            workspace: workspace.to_string(),
            thread_id: owner.thread_id.to_string(),
            turn_id: owner.turn_id.map(str::to_string),
            kind: kind.as_str().to_string(),
            label: label(kind, owner.turn_id, restored_from),
            tree: tree.to_string(),
            git_commit: commit.to_string(),
            restored_from: restored_from.map(str::to_string),
            created_at: clock::now(),
        }
    }

    async fn insert(
        &self,
        row: SnapshotRow,
        extra: impl FnOnce(&SnapshotRecord) -> Option<EventPayload>,
    ) -> Result<SnapshotRecord, RuntimeError> {
        let record = record_of(row.clone())?;
        let mut tx = self.store.begin_write().await?;
        store::snapshots::insert(tx.conn(), &row).await?;
        let created = EventPayload::SnapshotCreated(SnapshotCreatedPayload {
            snapshot: record.clone(),
        });
        let event = |payload| match &record.turn_id {
            Some(turn) => NewEvent::turn(&record.thread_id, turn, payload),
            None => NewEvent::thread(&record.thread_id, payload),
        };
        tx.append(event(created)).await?;
        if let Some(payload) = extra(&record) {
            tx.append(event(payload)).await?;
        }
        tx.commit().await?;
        Ok(record)
    }

    async fn repo(&self, workspace: &Path) -> Result<SideRepo, RuntimeError> {
        SideRepo::open(&self.dir, workspace)
            .await
            .map_err(git_failed)
    }

    fn lock(&self, workspace: &Path) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(|p| p.into_inner());
        locks.entry(workspace.to_path_buf()).or_default().clone()
    }
}

pub(super) fn canonical(workspace: &Path) -> Result<PathBuf, RuntimeError> {
    workspace.canonicalize().map_err(|e| {
        RuntimeError::Conflict(format!(
            "the workspace {} is not available: {e}",
            workspace.display()
        ))
    })
}

fn list_limit(limit: Option<u32>) -> Result<u32, RuntimeError> {
    match limit.unwrap_or(DEFAULT_LIST_LIMIT) {
        n @ 1..=MAX_LIST_LIMIT => Ok(n),
        n => Err(RuntimeError::invalid(format!(
            "limit must be between 1 and {MAX_LIST_LIMIT} (got {n})"
        ))),
    }
}

fn label(kind: SnapshotKind, turn: Option<&str>, restored_from: Option<&str>) -> String {
    let kind = kind.as_str().replace('_', "-");
    match (turn, restored_from) {
        (Some(turn), _) => format!("{kind}:{turn}"),
        (None, Some(from)) => format!("{kind}:{from}"),
        (None, None) => kind,
    }
}

fn record_of(row: SnapshotRow) -> Result<SnapshotRecord, RuntimeError> {
    let kind = SnapshotKind::parse(&row.kind).ok_or_else(|| {
        RuntimeError::Store(store::StoreError::Corrupt(format!(
            "snapshots.kind: {}",
            row.kind
        )))
    })?;
    let timestamp = chrono::DateTime::parse_from_rfc3339(&row.created_at)
        .map(|t| t.timestamp())
        .unwrap_or_default();
    Ok(SnapshotRecord {
        id: row.id,
        label: row.label,
        timestamp,
        created_at: row.created_at,
        kind,
        workspace: row.workspace,
        thread_id: row.thread_id,
        turn_id: row.turn_id,
        restored_from: row.restored_from,
    })
}

/// git failing on our own side repository is ours to log, not the caller's.
pub(super) fn git_failed(error: std::io::Error) -> RuntimeError {
    RuntimeError::Snapshot(error.to_string())
}
