//! The task queue. Each change is one statement, so a claim is atomic even
//! with two processes on the store: a queued task goes to exactly one
//! runner, in the order it was queued (`seq`).

use super::StoreError;
use sqlx::SqlitePool;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TaskRow {
    pub id: String,
    pub status: String,
    pub prompt: String,
    pub workspace: Option<String>,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub mode: Option<String>,
    pub auto_approve: bool,
    pub requeue_on_restart: bool,
    pub thread_id: Option<String>,
    pub turn_id: Option<String>,
    pub answer: Option<String>,
    pub error: Option<String>,
    pub cancel_requested: bool,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    /// A fleet worker's attempt: claimed by the fleet's runner, at most
    /// the run's `max_parallel` at once, not by the general queue.
    pub fleet_run_id: Option<String>,
    pub fleet_worker_id: Option<String>,
}

const COLUMNS: &str = "id, status, prompt, workspace, model, model_provider, mode, auto_approve, \
    requeue_on_restart, thread_id, turn_id, answer, error, cancel_requested, created_at, started_at, finished_at, \
    fleet_run_id, fleet_worker_id";

pub async fn insert<'e>(
    db: impl sqlx::SqliteExecutor<'e>,
    row: &TaskRow,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO tasks (id, status, prompt, workspace, model, model_provider, mode, auto_approve,
             requeue_on_restart, thread_id, created_at, fleet_run_id, fleet_worker_id)
         VALUES (?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&row.id)
    .bind(&row.prompt)
    .bind(&row.workspace)
    .bind(&row.model)
    .bind(&row.model_provider)
    .bind(&row.mode)
    .bind(row.auto_approve)
    .bind(row.requeue_on_restart)
    .bind(&row.thread_id)
    .bind(&row.created_at)
    .bind(&row.fleet_run_id)
    .bind(&row.fleet_worker_id)
    .execute(db)
    .await?;
    Ok(())
}

pub async fn get(pool: &SqlitePool, id: &str) -> Result<Option<TaskRow>, StoreError> {
    Ok(
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM tasks WHERE id = ?"))
            .bind(id)
            .fetch_optional(pool)
            .await?,
    )
}

/// Newest first; only `status` when given.
pub async fn list(
    pool: &SqlitePool,
    status: Option<&str>,
    limit: u32,
) -> Result<Vec<TaskRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM tasks WHERE (?1 IS NULL OR status = ?1) ORDER BY seq DESC LIMIT ?2"
    ))
    .bind(status)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// Takes the oldest queued task that is not a fleet worker's, marking it
/// running.
pub async fn claim_next(pool: &SqlitePool, now: &str) -> Result<Option<TaskRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "UPDATE tasks SET status = 'running', started_at = ?
         WHERE seq = (SELECT seq FROM tasks WHERE status = 'queued' AND fleet_run_id IS NULL
                      ORDER BY seq LIMIT 1)
         RETURNING {COLUMNS}"
    ))
    .bind(now)
    .fetch_optional(pool)
    .await?)
}

/// Takes the oldest queued fleet worker's task whose run has fewer than
/// its `max_parallel` running. One statement: two processes never claim
/// past the limit.
pub async fn claim_fleet(pool: &SqlitePool, now: &str) -> Result<Option<TaskRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "UPDATE tasks SET status = 'running', started_at = ?
         WHERE seq = (
             SELECT t.seq FROM tasks t JOIN fleet_runs r ON r.id = t.fleet_run_id
             WHERE t.status = 'queued' AND r.stopped_at IS NULL
               AND (SELECT COUNT(*) FROM tasks u
                    WHERE u.fleet_run_id = t.fleet_run_id AND u.status = 'running') < r.max_parallel
             ORDER BY t.seq LIMIT 1)
         RETURNING {COLUMNS}"
    ))
    .bind(now)
    .fetch_optional(pool)
    .await?)
}

/// The running task got its thread and turn.
pub async fn started(
    pool: &SqlitePool,
    id: &str,
    thread_id: &str,
    turn_id: &str,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE tasks SET thread_id = ?, turn_id = ? WHERE id = ? AND status = 'running'")
        .bind(thread_id)
        .bind(turn_id)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}

/// Ends a running task; false when it was not running.
pub async fn finish(
    pool: &SqlitePool,
    id: &str,
    status: &str,
    answer: Option<&str>,
    error: Option<&str>,
    now: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE tasks SET status = ?, answer = ?, error = ?, finished_at = ?
         WHERE id = ? AND status = 'running'",
    )
    .bind(status)
    .bind(answer)
    .bind(error)
    .bind(now)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Cancels a queued task outright, or marks a running one for
/// cancelling (its runner interrupts the turn). Returns the row after.
pub async fn cancel(pool: &SqlitePool, id: &str, now: &str) -> Result<Option<TaskRow>, StoreError> {
    sqlx::query(
        "UPDATE tasks SET
             status = CASE status WHEN 'queued' THEN 'cancelled' ELSE status END,
             finished_at = CASE status WHEN 'queued' THEN ? ELSE finished_at END,
             cancel_requested = CASE status WHEN 'running' THEN 1 ELSE cancel_requested END
         WHERE id = ?",
    )
    .bind(now)
    .bind(id)
    .execute(pool)
    .await?;
    get(pool, id).await
}

/// Removes completed and cancelled tasks, except fleet workers' (their
/// run shows them).
pub async fn clear(pool: &SqlitePool) -> Result<u64, StoreError> {
    let done = sqlx::query(
        "DELETE FROM tasks WHERE status IN ('completed', 'cancelled') AND fleet_run_id IS NULL",
    )
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// After a restart: running tasks are queued again when they asked for
/// it, else recorded interrupted (a cancel that was asked for wins).
/// Returns (requeued, interrupted).
pub async fn recover(
    conn: &mut sqlx::SqliteConnection,
    error: &str,
    now: &str,
) -> Result<(u64, u64), StoreError> {
    let mut tx = sqlx::Connection::begin(conn).await?;
    let requeued = sqlx::query(
        "UPDATE tasks SET status = 'queued', started_at = NULL, turn_id = NULL
         WHERE status = 'running' AND requeue_on_restart = 1 AND cancel_requested = 0",
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    let interrupted = sqlx::query(
        "UPDATE tasks SET
             status = CASE cancel_requested WHEN 1 THEN 'cancelled' ELSE 'interrupted' END,
             error = CASE cancel_requested WHEN 1 THEN NULL ELSE ? END,
             finished_at = ?
         WHERE status = 'running'",
    )
    .bind(error)
    .bind(now)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok((requeued, interrupted))
}
