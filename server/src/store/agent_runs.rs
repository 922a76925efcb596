//! Sub-agent runs (`runtime/agent_runs/`): which child thread and turn a
//! parent's `spawn_agent` call started, and whether the run's end has been
//! announced on the parent's stream (`ended_at`).

use super::StoreError;
use sqlx::{SqliteConnection, SqlitePool};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AgentRunRow {
    pub id: String,
    pub parent_thread_id: String,
    pub parent_turn_id: String,
    pub parent_item_id: String,
    pub thread_id: String,
    pub turn_id: String,
    pub depth: i64,
    pub prompt: String,
    pub mode: String,
    pub isolation: String,
    pub wait: bool,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub workspace: String,
    pub worktree: Option<String>,
    pub git_dir: Option<String>,
    pub branch: Option<String>,
    pub base_commit: Option<String>,
    pub commit_oid: Option<String>,
    pub diff_stat: Option<String>,
    pub created_at: String,
    pub ended_at: Option<String>,
    /// The top of the repository a worktree run's worktree belongs to.
    pub repo_top: Option<String>,
    /// When the worktree was removed (`POST /v1/agent-runs/{id}/cleanup`).
    pub cleaned_up_at: Option<String>,
}

const COLUMNS: &str = "id, parent_thread_id, parent_turn_id, parent_item_id, thread_id, turn_id, \
    depth, prompt, mode, isolation, wait, model, model_provider, workspace, worktree, git_dir, \
    branch, base_commit, commit_oid, diff_stat, created_at, ended_at, repo_top, cleaned_up_at";

pub async fn insert(conn: &mut SqliteConnection, run: &AgentRunRow) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO agent_runs (id, parent_thread_id, parent_turn_id, parent_item_id, thread_id,
             turn_id, depth, prompt, mode, isolation, wait, model, model_provider, workspace,
             worktree, git_dir, branch, base_commit, created_at, repo_top)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&run.id)
    .bind(&run.parent_thread_id)
    .bind(&run.parent_turn_id)
    .bind(&run.parent_item_id)
    .bind(&run.thread_id)
    .bind(&run.turn_id)
    .bind(run.depth)
    .bind(&run.prompt)
    .bind(&run.mode)
    .bind(&run.isolation)
    .bind(run.wait)
    .bind(&run.model)
    .bind(&run.model_provider)
    .bind(&run.workspace)
    .bind(&run.worktree)
    .bind(&run.git_dir)
    .bind(&run.branch)
    .bind(&run.base_commit)
    .bind(&run.created_at)
    .bind(&run.repo_top)
    .execute(conn)
    .await?;
    Ok(())
}

/// A run by its id or by its child thread's id (the "worker id").
pub async fn get(pool: &SqlitePool, id: &str) -> Result<Option<AgentRunRow>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM agent_runs WHERE id = ?1 OR thread_id = ?1");
    Ok(sqlx::query_as(&sql).bind(id).fetch_optional(pool).await?)
}

/// Newest first; only `parent`'s runs when given.
pub async fn list(
    pool: &SqlitePool,
    parent: Option<&str>,
    limit: i64,
) -> Result<Vec<AgentRunRow>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM agent_runs WHERE ?1 IS NULL OR parent_thread_id = ?1
         ORDER BY seq DESC LIMIT ?2"
    );
    Ok(sqlx::query_as(&sql)
        .bind(parent)
        .bind(limit)
        .fetch_all(pool)
        .await?)
}

/// How deep `thread_id` is: its run's depth, 0 for a thread no run made.
pub async fn depth_of(conn: &mut SqliteConnection, thread_id: &str) -> Result<i64, StoreError> {
    let depth: Option<i64> = sqlx::query_scalar("SELECT depth FROM agent_runs WHERE thread_id = ?")
        .bind(thread_id)
        .fetch_optional(conn)
        .await?;
    Ok(depth.unwrap_or(0))
}

/// (runs this parent turn has spawned, runs not yet ended anywhere).
pub async fn counts(
    conn: &mut SqliteConnection,
    parent_turn_id: &str,
) -> Result<(i64, i64), StoreError> {
    Ok(sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM agent_runs WHERE parent_turn_id = ?),
                (SELECT COUNT(*) FROM agent_runs WHERE ended_at IS NULL)",
    )
    .bind(parent_turn_id)
    .fetch_one(conn)
    .await?)
}

/// The unended run whose child turn this is.
pub async fn open_for_turn(
    conn: &mut SqliteConnection,
    turn_id: &str,
) -> Result<Option<AgentRunRow>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM agent_runs WHERE turn_id = ? AND ended_at IS NULL");
    Ok(sqlx::query_as(&sql)
        .bind(turn_id)
        .fetch_optional(conn)
        .await?)
}

/// Marks the run ended; false when it already was (its end is announced once).
pub async fn end(conn: &mut SqliteConnection, id: &str, now: &str) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE agent_runs SET ended_at = ? WHERE id = ? AND ended_at IS NULL")
        .bind(now)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Records the commit and diff stat of a worktree run's work.
pub async fn set_result(
    pool: &SqlitePool,
    id: &str,
    commit_oid: Option<&str>,
    diff_stat: &str,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE agent_runs SET commit_oid = ?, diff_stat = ? WHERE id = ?")
        .bind(commit_oid)
        .bind(diff_stat)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}

/// Marks an ended run's worktree removed; false when it already was (or
/// the run has not ended).
pub async fn mark_cleaned_up(pool: &SqlitePool, id: &str, now: &str) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE agent_runs SET cleaned_up_at = ?
         WHERE id = ? AND ended_at IS NOT NULL AND cleaned_up_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Whether a run with this id is recorded.
pub async fn exists(pool: &SqlitePool, id: &str) -> Result<bool, StoreError> {
    let found: Option<i64> = sqlx::query_scalar("SELECT 1 FROM agent_runs WHERE id = ?")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    Ok(found.is_some())
}

/// Unended runs spawned by this parent turn (stopped with it).
pub async fn open_children(
    pool: &SqlitePool,
    parent_turn_id: &str,
) -> Result<Vec<AgentRunRow>, StoreError> {
    let sql =
        format!("SELECT {COLUMNS} FROM agent_runs WHERE parent_turn_id = ? AND ended_at IS NULL");
    Ok(sqlx::query_as(&sql)
        .bind(parent_turn_id)
        .fetch_all(pool)
        .await?)
}

/// Marks the parent's `spawn_agent` item with the run and the child's
/// thread while it runs (its end rewrites the metadata whole).
pub async fn link_item(conn: &mut SqliteConnection, run: &AgentRunRow) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE items SET metadata = json_set(metadata, '$.run_id', ?, '$.child_thread_id', ?)
         WHERE id = ?",
    )
    .bind(&run.id)
    .bind(&run.thread_id)
    .bind(&run.parent_item_id)
    .execute(conn)
    .await?;
    Ok(())
}
