//! Turn and item rows.

use super::StoreError;
use protocol::{ItemKind, ItemStatus, TurnItemRecord, TurnRecord, TurnStatus, Usage};
use sqlx::SqliteConnection;

/// A turn as stored; also read from a JSON array of `TURN_COLUMNS`
/// (`thread_detail`), hence `Deserialize`.
#[derive(Debug, sqlx::FromRow, serde::Deserialize)]
pub(super) struct TurnRow {
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
    undone_at: Option<String>,
    instructions: String,
}

pub(super) const TURN_COLUMNS: &str =
    "id, thread_id, status, input_summary, created_at, started_at, \
    ended_at, duration_ms, usage, effective_provider, effective_model, effective_billing_surface, \
    error, steer_count, undone_at, instructions";

pub(super) const ITEM_COLUMNS: &str =
    "id, turn_id, kind, status, summary, detail, metadata, started_at, ended_at";

/// An item as stored; read from JSON too, as `TurnRow`.
#[derive(Debug, sqlx::FromRow, serde::Deserialize)]
pub(super) struct ItemRow {
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
            undone_at: row.undone_at,
            instructions: decode(&row.instructions, "turns.instructions")?,
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
            status: ItemStatus::parse(&row.status)
                .ok_or_else(|| StoreError::Corrupt(format!("items.status: {}", row.status)))?,
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
    let rows: Vec<TurnRow> = sqlx::query_as(&format!(
        "SELECT {TURN_COLUMNS} FROM turns WHERE thread_id = ?1 ORDER BY created_at, rowid"
    ))
    .bind(thread_id)
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(TurnRecord::try_from).collect()
}

pub async fn items_by_thread(
    conn: &mut SqliteConnection,
    thread_id: &str,
) -> Result<Vec<TurnItemRecord>, StoreError> {
    items_where(conn, "thread_id", thread_id).await
}

/// The thread's items from position `offset` on, at most `limit` of them,
/// in order (a page of a long transcript).
pub async fn items_in_range(
    conn: &mut SqliteConnection,
    thread_id: &str,
    offset: i64,
    limit: i64,
) -> Result<Vec<TurnItemRecord>, StoreError> {
    let rows: Vec<ItemRow> = sqlx::query_as(&format!(
        "SELECT {ITEM_COLUMNS} FROM items WHERE thread_id = ?1 ORDER BY position LIMIT ?2 OFFSET ?3"
    ))
    .bind(thread_id)
    .bind(limit)
    .bind(offset)
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(TurnItemRecord::try_from).collect()
}

/// One turn's items, in order.
pub async fn items_of_turn(
    conn: &mut SqliteConnection,
    turn_id: &str,
) -> Result<Vec<TurnItemRecord>, StoreError> {
    items_where(conn, "turn_id", turn_id).await
}

/// Items whose `column` (a fixed name, never input) is `value`, in order.
async fn items_where(
    conn: &mut SqliteConnection,
    column: &'static str,
    value: &str,
) -> Result<Vec<TurnItemRecord>, StoreError> {
    let sql = format!("SELECT {ITEM_COLUMNS} FROM items WHERE {column} = ?1 ORDER BY position");
    let rows: Vec<ItemRow> = sqlx::query_as(&sql).bind(value).fetch_all(conn).await?;
    rows.into_iter().map(TurnItemRecord::try_from).collect()
}

/// The items a model sees: those of turns not undone, in order.
pub async fn items_for_model(
    conn: &mut SqliteConnection,
    thread_id: &str,
) -> Result<Vec<TurnItemRecord>, StoreError> {
    let rows: Vec<ItemRow> = sqlx::query_as(&format!(
        "SELECT {ITEM_COLUMNS} FROM items WHERE thread_id = ?1
           AND turn_id NOT IN (SELECT id FROM turns WHERE thread_id = ?1 AND undone_at IS NOT NULL)
         ORDER BY position"
    ))
    .bind(thread_id)
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(TurnItemRecord::try_from).collect()
}

/// Status of each listed turn, for summaries: one query for the page.
pub async fn statuses_of(
    conn: &mut SqliteConnection,
    turn_ids: &[&str],
) -> Result<std::collections::HashMap<String, TurnStatus>, StoreError> {
    if turn_ids.is_empty() {
        return Ok(Default::default());
    }
    let ids = serde_json::to_string(turn_ids).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT id, status FROM turns WHERE id IN (SELECT value FROM json_each(?1))",
    )
    .bind(ids)
    .fetch_all(conn)
    .await?;
    rows.into_iter()
        .map(|(id, s)| {
            Ok((
                id,
                decode::<TurnStatus>(&format!("\"{s}\""), "turns.status")?,
            ))
        })
        .collect()
}

/// Writes a turn (insert or full update).
pub async fn upsert(conn: &mut SqliteConnection, turn: &TurnRecord) -> Result<(), StoreError> {
    let status = serde_json::to_value(turn.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let usage =
        serde_json::to_string(&turn.usage).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let instructions = serde_json::to_string(&turn.instructions)
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    sqlx::query(
        "INSERT INTO turns (id, thread_id, status, input_summary, created_at, started_at, ended_at,
            duration_ms, usage, effective_provider, effective_model, effective_billing_surface, error, steer_count, undone_at,
            instructions)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
         ON CONFLICT (id) DO UPDATE SET status = ?3, started_at = ?6, ended_at = ?7, duration_ms = ?8,
            usage = ?9, effective_provider = ?10, effective_model = ?11, effective_billing_surface = ?12,
            error = ?13, steer_count = ?14, undone_at = ?15",
    )
    .bind(&turn.id)
    .bind(&turn.thread_id)
    .bind(status)
    .bind(&turn.input_summary)
    .bind(&turn.created_at)
    .bind(&turn.started_at)
    .bind(&turn.ended_at)
    .bind(turn.duration_ms.map(|ms| ms.min(i64::MAX as u64) as i64))
    .bind(usage)
    .bind(&turn.effective_provider)
    .bind(&turn.effective_model)
    .bind(&turn.effective_billing_surface)
    .bind(&turn.error)
    .bind(turn.steer_count as i64)
    .bind(&turn.undone_at)
    .bind(instructions)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get(conn: &mut SqliteConnection, id: &str) -> Result<Option<TurnRecord>, StoreError> {
    let row: Option<TurnRow> =
        sqlx::query_as(&format!("SELECT {TURN_COLUMNS} FROM turns WHERE id = ?1"))
            .bind(id)
            .fetch_optional(conn)
            .await?;
    row.map(TurnRecord::try_from).transpose()
}

/// Writes an item (insert at the end of its thread, or full update).
pub async fn upsert_item(
    conn: &mut SqliteConnection,
    thread_id: &str,
    item: &TurnItemRecord,
) -> Result<(), StoreError> {
    let kind = serde_json::to_value(item.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    sqlx::query(
        "INSERT INTO items (id, turn_id, thread_id, kind, status, summary, detail, metadata, started_at, ended_at, position)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,
                 (SELECT COALESCE(MAX(position), 0) + 1 FROM items WHERE thread_id = ?3))
         ON CONFLICT (id) DO UPDATE SET status = ?5, summary = ?6, detail = ?7, metadata = ?8, ended_at = ?10",
    )
    .bind(&item.id)
    .bind(&item.turn_id)
    .bind(thread_id)
    .bind(kind)
    .bind(item.status.as_str())
    .bind(&item.summary)
    .bind(&item.detail)
    .bind(item.metadata.to_string())
    .bind(&item.started_at)
    .bind(&item.ended_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Appends streamed text to an item's detail.
pub async fn append_item_text(
    conn: &mut SqliteConnection,
    item_id: &str,
    text: &str,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE items SET detail = COALESCE(detail, '') || ?2 WHERE id = ?1")
        .bind(item_id)
        .bind(text)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn get_item(
    conn: &mut SqliteConnection,
    id: &str,
) -> Result<Option<TurnItemRecord>, StoreError> {
    let row: Option<ItemRow> =
        sqlx::query_as(&format!("SELECT {ITEM_COLUMNS} FROM items WHERE id = ?1"))
            .bind(id)
            .fetch_optional(conn)
            .await?;
    row.map(TurnItemRecord::try_from).transpose()
}

/// Turns left queued or in progress (by a process that died).
/// Newest first: a sub-agent's turn ends before its parent's.
pub async fn unfinished(conn: &mut SqliteConnection) -> Result<Vec<TurnRecord>, StoreError> {
    let rows: Vec<TurnRow> = sqlx::query_as(&format!(
        "SELECT {TURN_COLUMNS} FROM turns WHERE status IN ('queued', 'in_progress')
         ORDER BY created_at DESC, rowid DESC"
    ))
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(TurnRecord::try_from).collect()
}

/// Items of a turn still open.
pub async fn open_items(
    conn: &mut SqliteConnection,
    turn_id: &str,
) -> Result<Vec<TurnItemRecord>, StoreError> {
    let rows: Vec<ItemRow> = sqlx::query_as(&format!(
        "SELECT {ITEM_COLUMNS} FROM items
         WHERE turn_id = ?1 AND status IN ('queued', 'in_progress') ORDER BY position"
    ))
    .bind(turn_id)
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(TurnItemRecord::try_from).collect()
}

/// Marks a turn undone (or not, with `None`).
pub async fn set_undone(
    conn: &mut SqliteConnection,
    turn_id: &str,
    at: Option<&str>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE turns SET undone_at = ? WHERE id = ?")
        .bind(at)
        .bind(turn_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Whether a turn of the thread is queued or running (in any process).
pub async fn active_in(conn: &mut SqliteConnection, thread_id: &str) -> Result<bool, StoreError> {
    let found: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM turns WHERE thread_id = ?1 AND status IN ('queued', 'in_progress') LIMIT 1",
    )
    .bind(thread_id)
    .fetch_optional(conn)
    .await?;
    Ok(found.is_some())
}
