//! Snapshot rows: which side-repository commit holds which workspace state,
//! for which thread and turn.

use super::StoreError;
use sqlx::SqliteConnection;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SnapshotRow {
    pub id: String,
    pub workspace: String,
    pub thread_id: String,
    pub turn_id: Option<String>,
    pub kind: String,
    pub label: String,
    pub tree: String,
    pub git_commit: String,
    pub restored_from: Option<String>,
    pub created_at: String,
}

const COLUMNS: &str =
    "id, workspace, thread_id, turn_id, kind, label, tree, git_commit, restored_from, created_at";

pub async fn insert(conn: &mut SqliteConnection, row: &SnapshotRow) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO snapshots (id, workspace, thread_id, turn_id, kind, label, tree, git_commit,
            restored_from, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&row.id)
    .bind(&row.workspace)
    .bind(&row.thread_id)
    .bind(&row.turn_id)
    .bind(&row.kind)
    .bind(&row.label)
    .bind(&row.tree)
    .bind(&row.git_commit)
    .bind(&row.restored_from)
    .bind(&row.created_at)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get(conn: &mut SqliteConnection, id: &str) -> Result<Option<SnapshotRow>, StoreError> {
    Ok(
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM snapshots WHERE id = ?"))
            .bind(id)
            .fetch_optional(conn)
            .await?,
    )
}

/// The newest snapshot of a workspace: the state codewhale last recorded.
/// A fork point only names an older state for another thread, so it is
/// never "the last recorded".
pub async fn latest(
    conn: &mut SqliteConnection,
    workspace: &str,
) -> Result<Option<SnapshotRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM snapshots WHERE workspace = ? AND kind != 'fork_point'
         ORDER BY rowid DESC LIMIT 1"
    ))
    .bind(workspace)
    .fetch_optional(conn)
    .await?)
}

/// Newest first, every workspace.
pub async fn recent(
    conn: &mut SqliteConnection,
    limit: u32,
) -> Result<Vec<SnapshotRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM snapshots ORDER BY rowid DESC LIMIT ?"
    ))
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// Newest first, one thread's.
pub async fn by_thread(
    conn: &mut SqliteConnection,
    thread_id: &str,
    limit: u32,
) -> Result<Vec<SnapshotRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM snapshots WHERE thread_id = ? ORDER BY rowid DESC LIMIT ?"
    ))
    .bind(thread_id)
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// The snapshot of `kind` taken for a turn.
pub async fn of_turn(
    conn: &mut SqliteConnection,
    turn_id: &str,
    kind: &str,
) -> Result<Option<SnapshotRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM snapshots WHERE turn_id = ? AND kind = ? ORDER BY rowid LIMIT 1"
    ))
    .bind(turn_id)
    .bind(kind)
    .fetch_optional(conn)
    .await?)
}

/// The newest snapshot of a workspace taken before `created_at` (an RFC
/// 3339 time, as every row's).
pub async fn latest_before(
    conn: &mut SqliteConnection,
    workspace: &str,
    created_at: &str,
) -> Result<Option<SnapshotRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM snapshots
         WHERE workspace = ? AND created_at <= ? AND kind != 'fork_point'
         ORDER BY rowid DESC LIMIT 1"
    ))
    .bind(workspace)
    .bind(created_at)
    .fetch_optional(conn)
    .await?)
}
