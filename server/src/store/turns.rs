//! Turn and item rows.

use super::StoreError;
use app::protocol::{ItemKind, TurnItemRecord, TurnRecord, TurnStatus, Usage};
use sqlx::SqliteConnection;

#[derive(Debug, sqlx::FromRow)]
struct TurnRow {
    id: String,
    thread_id: String,
    status: String,
    input_summary: String,
    created_at: String,
    started_at: Option<String>,
    ended_at: Option<String>,
    duration_ms: Option<i64>,
    usage: String,
    effective_provider: Option<String>,
    effective_model: Option<String>,
    effective_billing_surface: Option<String>,
    error: Option<String>,
    steer_count: i64,
}

#[derive(Debug, sqlx::FromRow)]
struct ItemRow {
    id: String,
    turn_id: String,
    kind: String,
    status: String,
    summary: String,
    detail: Option<String>,
    metadata: String,
    started_at: Option<String>,
    ended_at: Option<String>,
}

/// Parses a stored enum/JSON column; a bad value means the file was edited
/// or damaged, which must not pass silently.
fn decode<T: serde::de::DeserializeOwned>(json: &str, column: &str) -> Result<T, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::Corrupt(format!("{column}: {e}")))
}

impl TryFrom<TurnRow> for TurnRecord {
    type Error = StoreError;
    fn try_from(row: TurnRow) -> Result<Self, StoreError> {
        Ok(TurnRecord {
            status: decode::<TurnStatus>(&format!("\"{}\"", row.status), "turns.status")?,
            usage: decode::<Usage>(&row.usage, "turns.usage")?,
            id: row.id,
            thread_id: row.thread_id,
            input_summary: row.input_summary,
            created_at: row.created_at,
            started_at: row.started_at,
            ended_at: row.ended_at,
            duration_ms: row.duration_ms.map(|ms| ms.max(0) as u64),
            effective_provider: row.effective_provider,
            effective_model: row.effective_model,
            effective_billing_surface: row.effective_billing_surface,
            error: row.error,
            steer_count: row.steer_count.clamp(0, u32::MAX as i64) as u32,
        })
    }
}

impl TryFrom<ItemRow> for TurnItemRecord {
    type Error = StoreError;
    fn try_from(row: ItemRow) -> Result<Self, StoreError> {
        Ok(TurnItemRecord {
            kind: decode::<ItemKind>(&format!("\"{}\"", row.kind), "items.kind")?,
            metadata: decode(&row.metadata, "items.metadata")?,
            id: row.id,
            turn_id: row.turn_id,
            status: row.status,
            summary: row.summary,
            detail: row.detail,
            started_at: row.started_at,
            ended_at: row.ended_at,
        })
    }
}

pub async fn by_thread(
    conn: &mut SqliteConnection,
    thread_id: &str,
) -> Result<Vec<TurnRecord>, StoreError> {
    let rows: Vec<TurnRow> = sqlx::query_as(
        "SELECT id, thread_id, status, input_summary, created_at, started_at, ended_at, duration_ms,
                usage, effective_provider, effective_model, effective_billing_surface, error, steer_count
         FROM turns WHERE thread_id = ?1 ORDER BY created_at, rowid",
    )
    .bind(thread_id)
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(TurnRecord::try_from).collect()
}

pub async fn items_by_thread(
    conn: &mut SqliteConnection,
    thread_id: &str,
) -> Result<Vec<TurnItemRecord>, StoreError> {
    let rows: Vec<ItemRow> = sqlx::query_as(
        "SELECT id, turn_id, kind, status, summary, detail, metadata, started_at, ended_at
         FROM items WHERE thread_id = ?1 ORDER BY position",
    )
    .bind(thread_id)
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(TurnItemRecord::try_from).collect()
}

/// Status of each listed turn, for summaries.
pub async fn status_of(
    conn: &mut SqliteConnection,
    turn_id: &str,
) -> Result<Option<TurnStatus>, StoreError> {
    let status: Option<String> = sqlx::query_scalar("SELECT status FROM turns WHERE id = ?1")
        .bind(turn_id)
        .fetch_optional(conn)
        .await?;
    status
        .map(|s| decode::<TurnStatus>(&format!("\"{s}\""), "turns.status"))
        .transpose()
}
