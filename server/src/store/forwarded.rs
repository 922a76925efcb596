//! Approval decisions handed from one process to another that shares the
//! store (`runtime::approvals` says when). SQL only.

use super::StoreError;
use sqlx::SqlitePool;

/// Where an approval is waiting if a running turn (of any process) asked
/// for it and nobody decided it yet: (thread id, seq of approval.required).
pub async fn waiting_elsewhere(
    pool: &SqlitePool,
    approval_id: &str,
) -> Result<Option<(String, i64)>, StoreError> {
    // Running turns are few (a partial index finds them); their events are
    // found through the thread index.
    Ok(sqlx::query_as(
        "SELECT e.thread_id, e.seq FROM turns t
           JOIN events e ON e.thread_id = t.thread_id AND e.turn_id = t.id
          WHERE t.status IN ('queued', 'in_progress') AND e.event = 'approval.required'
            AND json_extract(e.payload, '$.approval_id') = ?1
            AND NOT EXISTS (
              SELECT 1 FROM events d
               WHERE d.thread_id = e.thread_id AND d.seq > e.seq
                 AND d.event = 'approval.decided'
                 AND json_extract(d.payload, '$.approval_id') = ?1)
          LIMIT 1",
    )
    .bind(approval_id)
    .fetch_optional(pool)
    .await?)
}

/// The decision recorded for an approval of `thread_id` asked at seq
/// `after`, if any (only that thread's later events are read).
pub async fn decided(
    pool: &SqlitePool,
    thread_id: &str,
    after: i64,
    approval_id: &str,
) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT json_extract(payload, '$.decision') FROM events
          WHERE thread_id = ?1 AND seq > ?2 AND event = 'approval.decided'
            AND json_extract(payload, '$.approval_id') = ?3
          LIMIT 1",
    )
    .bind(thread_id)
    .bind(after)
    .bind(approval_id)
    .fetch_optional(pool)
    .await?)
}

pub async fn put(
    pool: &SqlitePool,
    approval_id: &str,
    decision: &str,
    remember: bool,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT OR REPLACE INTO forwarded_decisions (approval_id, decision, remember, created_at)
         VALUES (?1, ?2, ?3, ?4)",
    )
    .bind(approval_id)
    .bind(decision)
    .bind(remember)
    .bind(crate::clock::now())
    .execute(pool)
    .await?;
    Ok(())
}

/// Every forwarded decision: (approval id, decision, remember).
pub async fn all(pool: &SqlitePool) -> Result<Vec<(String, String, bool)>, StoreError> {
    Ok(
        sqlx::query_as("SELECT approval_id, decision, remember FROM forwarded_decisions")
            .fetch_all(pool)
            .await?,
    )
}

pub async fn remove(pool: &SqlitePool, approval_id: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM forwarded_decisions WHERE approval_id = ?1")
        .bind(approval_id)
        .execute(pool)
        .await?;
    Ok(())
}
