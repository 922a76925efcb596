//! What usage reports read: finished turns' token counts in a time range.

use super::StoreError;
use sqlx::SqlitePool;

/// One finished turn, as the usage report needs it (`usage` is its JSON).
#[derive(sqlx::FromRow)]
pub struct UsageRow {
    pub thread_id: String,
    pub created_at: String,
    pub effective_provider: Option<String>,
    pub effective_model: Option<String>,
    pub usage: String,
}

/// Finished turns created within `[since, until]` (either bound optional;
/// both in the stored RFC 3339 form).
pub async fn finished_turns(
    pool: &SqlitePool,
    since: Option<&str>,
    until: Option<&str>,
) -> Result<Vec<UsageRow>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT thread_id, created_at, effective_provider, effective_model, usage FROM turns
         WHERE status NOT IN ('queued', 'in_progress')
           AND (?1 IS NULL OR created_at >= ?1) AND (?2 IS NULL OR created_at <= ?2)",
    )
    .bind(since)
    .bind(until)
    .fetch_all(pool)
    .await?)
}
