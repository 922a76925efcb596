//! Automations and their runs. The scheduler claims a due run by moving
//! `next_run_at` forward only if it still holds the value it read, inside
//! the transaction that queues the run's task: two processes on one store
//! never both fire the same occurrence.

use super::{tasks, StoreError};
use sqlx::{SqliteConnection, SqlitePool};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AutomationRow {
    pub id: String,
    pub name: String,
    pub prompt: String,
    pub schedule: Option<String>,
    pub interval_seconds: Option<i64>,
    pub timezone: String,
    pub workspace: String,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub mode: Option<String>,
    pub auto_approve: bool,
    pub paused: bool,
    pub next_run_at: Option<String>,
    pub last_run_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Goes up with every write (see `update`).
    pub version: i64,
}

const COLUMNS: &str = "id, name, prompt, schedule, interval_seconds, timezone, workspace, model, \
    model_provider, mode, auto_approve, paused, next_run_at, last_run_at, created_at, updated_at, \
    version";
/// Runs kept per automation; older ones are dropped as new ones come.
pub const KEPT_RUNS: i64 = 200;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RunRow {
    pub id: String,
    pub automation_id: String,
    pub trigger: String,
    pub scheduled_for: Option<String>,
    pub skipped: Option<String>,
    pub task_id: Option<String>,
    pub created_at: String,
}

/// A transaction holding the write lock from its start: the claim, the
/// overlap check and the inserts see one state.
pub async fn begin(pool: &SqlitePool) -> Result<sqlx::Transaction<'_, sqlx::Sqlite>, StoreError> {
    Ok(pool.begin_with("BEGIN IMMEDIATE").await?)
}

pub async fn commit(tx: sqlx::Transaction<'_, sqlx::Sqlite>) -> Result<(), StoreError> {
    Ok(tx.commit().await?)
}

pub async fn insert(pool: &SqlitePool, row: &AutomationRow) -> Result<(), StoreError> {
    sqlx::query(&format!(
        "INSERT INTO automations ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)"
    ))
    .bind(&row.id)
    .bind(&row.name)
    .bind(&row.prompt)
    .bind(&row.schedule)
    .bind(row.interval_seconds)
    .bind(&row.timezone)
    .bind(&row.workspace)
    .bind(&row.model)
    .bind(&row.model_provider)
    .bind(&row.mode)
    .bind(row.auto_approve)
    .bind(row.paused)
    .bind(&row.next_run_at)
    .bind(&row.last_run_at)
    .bind(&row.created_at)
    .bind(&row.updated_at)
    .execute(pool)
    .await?;
    Ok(())
}

/// Writes every field the user can change, and the next run, only if the
/// row is still the `row.version` it was read as; false when another write
/// (a pause, the scheduler, another patch) came first or it is gone.
pub async fn update(pool: &SqlitePool, row: &AutomationRow) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE automations SET name = ?, prompt = ?, schedule = ?, interval_seconds = ?,
             timezone = ?, workspace = ?, model = ?, model_provider = ?, mode = ?,
             auto_approve = ?, paused = ?, next_run_at = ?, updated_at = ?,
             version = version + 1
         WHERE id = ? AND version = ?",
    )
    .bind(&row.name)
    .bind(&row.prompt)
    .bind(&row.schedule)
    .bind(row.interval_seconds)
    .bind(&row.timezone)
    .bind(&row.workspace)
    .bind(&row.model)
    .bind(&row.model_provider)
    .bind(&row.mode)
    .bind(row.auto_approve)
    .bind(row.paused)
    .bind(&row.next_run_at)
    .bind(&row.updated_at)
    .bind(&row.id)
    .bind(row.version)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn get(pool: &SqlitePool, id: &str) -> Result<Option<AutomationRow>, StoreError> {
    Ok(
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM automations WHERE id = ?"))
            .bind(id)
            .fetch_optional(pool)
            .await?,
    )
}

/// Oldest first.
pub async fn list(pool: &SqlitePool) -> Result<Vec<AutomationRow>, StoreError> {
    Ok(
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM automations ORDER BY seq"))
            .fetch_all(pool)
            .await?,
    )
}

/// Deletes it and its run history (its tasks and threads stay).
pub async fn delete(pool: &SqlitePool, id: &str) -> Result<bool, StoreError> {
    let done = sqlx::query("DELETE FROM automations WHERE id = ?")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Active automations whose next run is at or before `now`.
pub async fn due(pool: &SqlitePool, now: &str) -> Result<Vec<AutomationRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM automations
         WHERE paused = 0 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at"
    ))
    .bind(now)
    .fetch_all(pool)
    .await?)
}

/// The soonest next run of an active automation.
pub async fn earliest(pool: &SqlitePool) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT MIN(next_run_at) FROM automations WHERE paused = 0 AND next_run_at IS NOT NULL",
    )
    .fetch_one(pool)
    .await?)
}

/// Moves the next run from `expected` to `next`; false when another
/// process (or a patch) moved it first.
pub async fn advance(
    conn: &mut SqliteConnection,
    id: &str,
    expected: &str,
    next: Option<&str>,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE automations SET next_run_at = ?, version = version + 1
         WHERE id = ? AND next_run_at = ? AND paused = 0",
    )
    .bind(next)
    .bind(id)
    .bind(expected)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Pauses an automation whose runs cannot start (in the run's
/// transaction).
pub async fn pause_broken(
    conn: &mut SqliteConnection,
    id: &str,
    now: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE automations SET paused = 1, next_run_at = NULL, updated_at = ?,
             version = version + 1
         WHERE id = ?",
    )
    .bind(now)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// The status of the newest run's task, if it has one still stored.
pub async fn last_task_status(
    conn: &mut SqliteConnection,
    automation_id: &str,
) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT t.status FROM automation_runs r JOIN tasks t ON t.id = r.task_id
         WHERE r.automation_id = ? ORDER BY r.seq DESC LIMIT 1",
    )
    .bind(automation_id)
    .fetch_optional(conn)
    .await?)
}

/// Records a run, and queues its task when it has one.
pub async fn insert_run(
    conn: &mut SqliteConnection,
    run: &RunRow,
    task: Option<&tasks::TaskRow>,
) -> Result<(), StoreError> {
    if let Some(task) = task {
        tasks::insert(&mut *conn, task).await?;
        sqlx::query("UPDATE automations SET last_run_at = ? WHERE id = ?")
            .bind(&run.created_at)
            .bind(&run.automation_id)
            .execute(&mut *conn)
            .await?;
    }
    sqlx::query(
        "INSERT INTO automation_runs (id, automation_id, trigger, scheduled_for, skipped, task_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&run.id)
    .bind(&run.automation_id)
    .bind(&run.trigger)
    .bind(&run.scheduled_for)
    .bind(&run.skipped)
    .bind(&run.task_id)
    .bind(&run.created_at)
    .execute(&mut *conn)
    .await?;
    // The history stays bounded; the tasks and threads of dropped runs stay.
    sqlx::query(
        "DELETE FROM automation_runs WHERE automation_id = ?1 AND seq <= (
             SELECT seq FROM automation_runs WHERE automation_id = ?1
             ORDER BY seq DESC LIMIT 1 OFFSET ?2)",
    )
    .bind(&run.automation_id)
    .bind(KEPT_RUNS)
    .execute(conn)
    .await?;
    Ok(())
}

/// Newest first, with each run's task when it is still stored.
pub async fn runs(
    pool: &SqlitePool,
    automation_id: &str,
    limit: u32,
) -> Result<Vec<(RunRow, Option<tasks::TaskRow>)>, StoreError> {
    let runs: Vec<RunRow> = sqlx::query_as(
        "SELECT id, automation_id, trigger, scheduled_for, skipped, task_id, created_at
         FROM automation_runs WHERE automation_id = ? ORDER BY seq DESC LIMIT ?",
    )
    .bind(automation_id)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let task = match &run.task_id {
            Some(id) => tasks::get(pool, id).await?,
            None => None,
        };
        out.push((run, task));
    }
    Ok(out)
}
