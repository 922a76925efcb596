//! Fleet runs, their workers and the runs' event log. A worker's status,
//! thread and answer are its current task's (`tasks.rs`): one row says
//! where an attempt is, so the queue, cancel and restart recovery are the
//! tasks' own.

use super::StoreError;
use sqlx::{Sqlite, SqliteExecutor, SqlitePool, Transaction};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FleetRunRow {
    pub id: String,
    pub workspace: String,
    pub isolation: String,
    pub max_parallel: i64,
    pub auto_approve: bool,
    pub base_commit: Option<String>,
    pub repo_top: Option<String>,
    pub cleaned_up: bool,
    pub created_at: String,
    pub stopped_at: Option<String>,
    pub finished_at: Option<String>,
}

const RUN_COLUMNS: &str = "id, workspace, isolation, max_parallel, auto_approve, base_commit, \
    repo_top, cleaned_up, created_at, stopped_at, finished_at";

/// A worker as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FleetWorkerRow {
    pub id: String,
    pub run_id: String,
    pub idx: i64,
    pub prompt: String,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub mode: Option<String>,
    pub workspace: String,
    pub worktree: Option<String>,
    pub git_dir: Option<String>,
    pub branch: Option<String>,
    pub task_id: String,
    pub thread_id: Option<String>,
    pub attempts: i64,
    pub settled_task_id: Option<String>,
    pub commit_oid: Option<String>,
    pub diff_stat: Option<String>,
}

/// A worker with its current task's state.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct WorkerView {
    #[sqlx(flatten)]
    pub worker: FleetWorkerRow,
    pub status: String,
    pub task_thread_id: Option<String>,
    pub turn_id: Option<String>,
    pub answer: Option<String>,
    pub error: Option<String>,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
}

const WORKER_VIEW: &str = "SELECT w.id, w.run_id, w.idx, w.prompt, w.model, w.model_provider, \
    w.mode, w.workspace, w.worktree, w.git_dir, w.branch, w.task_id, w.thread_id, w.attempts, \
    w.settled_task_id, w.commit_oid, w.diff_stat, t.status, t.thread_id AS task_thread_id, t.turn_id, t.answer, \
    t.error, t.started_at, t.finished_at \
    FROM fleet_workers w JOIN tasks t ON t.id = w.task_id";

pub async fn insert_run(
    tx: &mut Transaction<'_, Sqlite>,
    run: &FleetRunRow,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO fleet_runs (id, workspace, isolation, max_parallel, auto_approve,
             base_commit, repo_top, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&run.id)
    .bind(&run.workspace)
    .bind(&run.isolation)
    .bind(run.max_parallel)
    .bind(run.auto_approve)
    .bind(&run.base_commit)
    .bind(&run.repo_top)
    .bind(&run.created_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub async fn insert_worker(
    tx: &mut Transaction<'_, Sqlite>,
    worker: &FleetWorkerRow,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO fleet_workers (id, run_id, idx, prompt, model, model_provider, mode,
             workspace, worktree, git_dir, branch, task_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&worker.id)
    .bind(&worker.run_id)
    .bind(worker.idx)
    .bind(&worker.prompt)
    .bind(&worker.model)
    .bind(&worker.model_provider)
    .bind(&worker.mode)
    .bind(&worker.workspace)
    .bind(&worker.worktree)
    .bind(&worker.git_dir)
    .bind(&worker.branch)
    .bind(&worker.task_id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub async fn run(db: impl SqliteExecutor<'_>, id: &str) -> Result<Option<FleetRunRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {RUN_COLUMNS} FROM fleet_runs WHERE id = ?"
    ))
    .bind(id)
    .fetch_optional(db)
    .await?)
}

/// Newest first.
pub async fn runs(pool: &SqlitePool, limit: u32) -> Result<Vec<FleetRunRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {RUN_COLUMNS} FROM fleet_runs ORDER BY seq DESC LIMIT ?"
    ))
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// A run's workers in their order.
pub async fn workers(
    db: impl SqliteExecutor<'_>,
    run_id: &str,
) -> Result<Vec<WorkerView>, StoreError> {
    Ok(
        sqlx::query_as(&format!("{WORKER_VIEW} WHERE w.run_id = ? ORDER BY w.idx"))
            .bind(run_id)
            .fetch_all(db)
            .await?,
    )
}

pub async fn worker(
    db: impl SqliteExecutor<'_>,
    id: &str,
) -> Result<Option<WorkerView>, StoreError> {
    Ok(sqlx::query_as(&format!("{WORKER_VIEW} WHERE w.id = ?"))
        .bind(id)
        .fetch_optional(db)
        .await?)
}

/// A restart: the worker's new attempt is `task_id` (already queued in
/// `tx`). False when the worker's attempt was no longer `previous`.
pub async fn restart(
    tx: &mut Transaction<'_, Sqlite>,
    worker_id: &str,
    previous: &str,
    task_id: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE fleet_workers SET task_id = ?, attempts = attempts + 1
         WHERE id = ? AND task_id = ? AND settled_task_id IS task_id
           AND (SELECT cleaned_up FROM fleet_runs WHERE id = run_id) = 0",
    )
    .bind(task_id)
    .bind(worker_id)
    .bind(previous)
    .execute(&mut **tx)
    .await?;
    sqlx::query("UPDATE fleet_runs SET finished_at = NULL, stopped_at = NULL WHERE id = (SELECT run_id FROM fleet_workers WHERE id = ?)")
        .bind(worker_id)
        .execute(&mut **tx)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// The worker's thread, from its first attempt that started one.
pub async fn set_thread(
    db: impl SqliteExecutor<'_>,
    worker_id: &str,
    thread_id: &str,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE fleet_workers SET thread_id = ? WHERE id = ? AND thread_id IS NULL")
        .bind(thread_id)
        .bind(worker_id)
        .execute(db)
        .await?;
    Ok(())
}

/// Runs not marked finished (a crash can fall between the last worker's
/// end and the mark).
pub async fn unfinished_runs(pool: &SqlitePool) -> Result<Vec<String>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT id FROM fleet_runs WHERE finished_at IS NULL")
            .fetch_all(pool)
            .await?,
    )
}

/// Records the end of the worker's attempt `task_id` once: false when it
/// was already recorded (or is no longer the current attempt).
pub async fn settle(
    db: impl SqliteExecutor<'_>,
    worker_id: &str,
    task_id: &str,
    commit: Option<&str>,
    diff_stat: Option<&str>,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE fleet_workers SET settled_task_id = task_id,
             commit_oid = COALESCE(?, commit_oid), diff_stat = COALESCE(?, diff_stat)
         WHERE id = ? AND task_id = ? AND settled_task_id IS NOT task_id",
    )
    .bind(commit)
    .bind(diff_stat)
    .bind(worker_id)
    .bind(task_id)
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Workers whose current attempt ended and was not recorded yet (the
/// process stopped in between).
pub async fn unsettled(pool: &SqlitePool) -> Result<Vec<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT w.id FROM fleet_workers w JOIN tasks t ON t.id = w.task_id
         WHERE t.status NOT IN ('queued', 'running') AND w.settled_task_id IS NOT w.task_id",
    )
    .fetch_all(pool)
    .await?)
}

/// Marks the run stopped; false when it already was.
pub async fn stop(
    db: impl SqliteExecutor<'_>,
    run_id: &str,
    now: &str,
) -> Result<bool, StoreError> {
    let done =
        sqlx::query("UPDATE fleet_runs SET stopped_at = ? WHERE id = ? AND stopped_at IS NULL")
            .bind(now)
            .bind(run_id)
            .execute(db)
            .await?;
    Ok(done.rows_affected() == 1)
}

/// Marks the run finished if every worker's attempt has ended and every
/// end is recorded; true only for the call that marked it.
pub async fn finish_if_done(
    db: impl SqliteExecutor<'_>,
    run_id: &str,
    now: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE fleet_runs SET finished_at = ? WHERE id = ? AND finished_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM fleet_workers w JOIN tasks t ON t.id = w.task_id
                           WHERE w.run_id = ?
                             AND (t.status IN ('queued', 'running')
                                  OR w.settled_task_id IS NOT w.task_id))",
    )
    .bind(now)
    .bind(run_id)
    .bind(run_id)
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Marks the run's worktrees removed; false when they already were.
pub async fn mark_cleaned_up(
    db: impl SqliteExecutor<'_>,
    run_id: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE fleet_runs SET cleaned_up = 1 WHERE id = ? AND cleaned_up = 0")
        .bind(run_id)
        .execute(db)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// One event of a run's log.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FleetEventRow {
    pub seq: i64,
    pub run_id: String,
    pub worker_id: Option<String>,
    pub event: String,
    pub timestamp: String,
    pub payload: String,
}

pub async fn append_event(
    db: impl SqliteExecutor<'_>,
    run_id: &str,
    worker_id: Option<&str>,
    event: &str,
    payload: &str,
    now: &str,
) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar(
        "INSERT INTO fleet_events (run_id, worker_id, event, timestamp, payload)
         VALUES (?, ?, ?, ?, ?) RETURNING seq",
    )
    .bind(run_id)
    .bind(worker_id)
    .bind(event)
    .bind(now)
    .bind(payload)
    .fetch_one(db)
    .await?)
}

/// The run's events after `seq`, oldest first.
pub async fn events_after(
    pool: &SqlitePool,
    run_id: &str,
    seq: i64,
    limit: i64,
) -> Result<Vec<FleetEventRow>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT seq, run_id, worker_id, event, timestamp, payload FROM fleet_events
         WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    )
    .bind(run_id)
    .bind(seq)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// The newest fleet event's seq in this store (0 with none).
pub async fn latest_event_seq(pool: &SqlitePool) -> Result<i64, StoreError> {
    let seq: Option<i64> = sqlx::query_scalar("SELECT MAX(seq) FROM fleet_events")
        .fetch_one(pool)
        .await?;
    Ok(seq.unwrap_or(0))
}

/// The cursor that replays only the newest `keep` of the run's events
/// after `after`.
pub async fn tail_cursor(
    pool: &SqlitePool,
    run_id: &str,
    after: i64,
    keep: i64,
) -> Result<i64, StoreError> {
    let omitted: Option<i64> = sqlx::query_scalar(
        "SELECT seq FROM fleet_events WHERE run_id = ? AND seq > ? ORDER BY seq DESC LIMIT 1 OFFSET ?",
    )
    .bind(run_id)
    .bind(after)
    .bind(keep)
    .fetch_optional(pool)
    .await?;
    Ok(omitted.unwrap_or(after))
}
