//! A thread's snapshot (its row, turns, items and newest seq) in one
//! statement. One statement reads one WAL snapshot, so the parts agree
//! without a transaction, and it is one round trip to sqlx's SQLite
//! thread where a transaction of four reads was six: on a detail request
//! the hand-offs between threads, not SQLite, were most of the cost.
//!
//! Turns and items come back as JSON arrays of their columns (SQLite's
//! `json_array` quotes every text, the JSON ones included, so each is
//! read as the text a row would hold), each behind its sort key: an
//! aggregate's order is not promised, so Rust sorts by it.
//!
//! A thread whose packed form would pass SQLite's longest value (1 GB:
//! thousands of items holding large tool outputs) is read row by row, in
//! one read transaction, as it was before.

use super::{
    threads::{ThreadRow, COLUMNS},
    turns::{ItemRow, TurnRow, ITEM_COLUMNS, TURN_COLUMNS},
    StoreError,
};
use protocol::{TurnItemRecord, TurnRecord};
use sqlx::{Connection, SqliteConnection};

/// SQLITE_TOOBIG: a value longer than SQLite's length limit.
const TOO_BIG: &str = "18";

pub struct ThreadSnapshot {
    pub thread: ThreadRow,
    pub turns: Vec<TurnRecord>,
    pub items: Vec<TurnItemRecord>,
    /// The seq of the thread's newest event (0 with none).
    pub latest_seq: i64,
}

#[derive(sqlx::FromRow)]
struct Packed {
    #[sqlx(flatten)]
    thread: ThreadRow,
    latest_seq: Option<i64>,
    turns: String,
    items: String,
}

pub async fn read(
    conn: &mut SqliteConnection,
    id: &str,
) -> Result<Option<ThreadSnapshot>, StoreError> {
    match read_packed(conn, id).await {
        Err(StoreError::Sqlx(sqlx::Error::Database(e))) if e.code().as_deref() == Some(TOO_BIG) => {
            read_by_rows(conn, id).await
        }
        read => read,
    }
}

/// The four reads the packed statement replaces, in one transaction (a
/// reader given up halfway rolls it back first thing on its next use:
/// sqlx queues the rollback when the transaction is dropped).
async fn read_by_rows(
    conn: &mut SqliteConnection,
    id: &str,
) -> Result<Option<ThreadSnapshot>, StoreError> {
    let mut tx = conn.begin().await?;
    let Some(thread) = super::threads::get(&mut tx, id).await? else {
        return Ok(None);
    };
    let snapshot = ThreadSnapshot {
        thread,
        turns: super::turns::by_thread(&mut tx, id).await?,
        items: super::turns::items_by_thread(&mut tx, id).await?,
        latest_seq: super::events::latest_seq_in(&mut tx, id).await?,
    };
    tx.commit().await?;
    Ok(Some(snapshot))
}

async fn read_packed(
    conn: &mut SqliteConnection,
    id: &str,
) -> Result<Option<ThreadSnapshot>, StoreError> {
    let packed: Option<Packed> = sqlx::query_as(&format!(
        "SELECT {COLUMNS},
           (SELECT MAX(seq) FROM events WHERE thread_id = ?1) AS latest_seq,
           (SELECT json_group_array(json_array(created_at, rowid, json_array({TURN_COLUMNS})))
              FROM turns WHERE thread_id = ?1) AS turns,
           (SELECT json_group_array(json_array(position, json_array({ITEM_COLUMNS})))
              FROM items WHERE thread_id = ?1) AS items
         FROM threads WHERE id = ?1"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?;
    let Some(packed) = packed else {
        return Ok(None);
    };
    let mut turns: Vec<(String, i64, TurnRow)> = unpack(&packed.turns, "turns")?;
    turns.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let mut items: Vec<(i64, ItemRow)> = unpack(&packed.items, "items")?;
    items.sort_by_key(|item| item.0);
    Ok(Some(ThreadSnapshot {
        thread: packed.thread,
        turns: turns
            .into_iter()
            .map(|(_, _, row)| TurnRecord::try_from(row))
            .collect::<Result<_, _>>()?,
        items: items
            .into_iter()
            .map(|(_, row)| TurnItemRecord::try_from(row))
            .collect::<Result<_, _>>()?,
        latest_seq: packed.latest_seq.unwrap_or(0),
    }))
}

/// Each element is `[sort key…, [columns…]]`: serde reads the row (a
/// struct) from the inner array, in column order.
fn unpack<T: serde::de::DeserializeOwned>(json: &str, table: &str) -> Result<Vec<T>, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::Corrupt(format!("{table}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{events::latest_seq_in, threads, turns, NewEvent, Store};
    use protocol::{EventPayload, ItemDeltaPayload, ItemKind};

    /// Texts JSON must escape, text that looks like JSON, and unicode.
    const AWKWARD: [&str; 5] = [
        "\"quoted\" back\\slash",
        "line\nbreak\ttab \u{0}\u{1f}\u{7f}",
        "{\"looks\": [\"like\", \"json\"]}",
        "ünïcödé 🐋 \u{2028}",
        "",
    ];

    async fn exec(store: &Store, sql: &str, binds: &[Option<&str>]) {
        let mut query = sqlx::query(sql);
        for bind in binds {
            query = query.bind(*bind);
        }
        query.execute(store.pool()).await.unwrap();
    }

    /// What the snapshot replaces: the row-by-row reads.
    async fn by_rows(store: &Store, id: &str) -> serde_json::Value {
        let mut conn = store.conn().await.unwrap();
        as_json(ThreadSnapshot {
            thread: threads::get(&mut conn, id).await.unwrap().unwrap(),
            turns: turns::by_thread(&mut conn, id).await.unwrap(),
            items: turns::items_by_thread(&mut conn, id).await.unwrap(),
            latest_seq: latest_seq_in(&mut conn, id).await.unwrap(),
        })
    }

    fn as_json(snapshot: ThreadSnapshot) -> serde_json::Value {
        serde_json::json!({
            "thread": protocol::ThreadRecord::from(snapshot.thread),
            "turns": snapshot.turns,
            "items": snapshot.items,
            "latest_seq": snapshot.latest_seq,
        })
    }

    /// What a thread too big to pack is read by.
    async fn by_fallback(store: &Store, id: &str) -> serde_json::Value {
        let mut conn = store.conn().await.unwrap();
        as_json(read_by_rows(&mut conn, id).await.unwrap().unwrap())
    }

    #[tokio::test]
    async fn a_value_past_sqlites_length_limit_is_told_apart() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(home.path()).await.unwrap();
        let mut conn = store.conn().await.unwrap();
        // zeroblob checks the limit before it allocates anything.
        let error = sqlx::query_scalar::<_, Vec<u8>>("SELECT zeroblob(2000000000)")
            .fetch_one(&mut *conn)
            .await
            .unwrap_err();
        assert_eq!(
            error.as_database_error().and_then(|e| e.code()).as_deref(),
            Some(TOO_BIG),
            "{error}"
        );
        assert!(read_by_rows(&mut conn, "thr_none").await.unwrap().is_none());
    }

    async fn by_snapshot(store: &Store, id: &str) -> serde_json::Value {
        let mut conn = store.conn().await.unwrap();
        as_json(read(&mut conn, id).await.unwrap().unwrap())
    }

    #[tokio::test]
    async fn one_statement_reads_what_the_row_by_row_reads_do() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(home.path()).await.unwrap();
        for id in ["thr_full", "thr_empty"] {
            exec(
                &store,
                "INSERT INTO threads (id, created_at, updated_at, title) VALUES (?1, 'now', 'now', ?2)",
                &[Some(id), Some(AWKWARD[0])],
            )
            .await;
        }
        let usage = serde_json::to_string(&protocol::Usage {
            input_tokens: 7,
            output_tokens: 3,
            ..Default::default()
        })
        .unwrap();
        // Two turns created in the same instant (ordered by rowid), one
        // earlier one inserted last.
        for (turn, created, error) in [
            ("turn_b", "2026-01-02", Some(AWKWARD[1])),
            ("turn_c", "2026-01-02", None),
            ("turn_a", "2026-01-01", Some(AWKWARD[3])),
        ] {
            exec(
                &store,
                "INSERT INTO turns (id, thread_id, status, input_summary, created_at, error, usage, duration_ms)
                 VALUES (?1, 'thr_full', 'completed', ?2, ?3, ?4, ?5, 1234)",
                &[Some(turn), Some(AWKWARD[2]), Some(created), error, Some(&usage)],
            )
            .await;
        }
        // Items inserted against their order, with NULL and JSON columns.
        for (n, position) in [4, 1, 3, 0, 2].into_iter().enumerate() {
            let id = format!("item_{position}");
            let summary = AWKWARD[n % AWKWARD.len()];
            let detail = (n % 2 == 0).then_some(AWKWARD[(n + 1) % AWKWARD.len()]);
            let metadata = format!("{{\"n\": {n}, \"text\": {}}}", serde_json::json!(summary));
            exec(
                &store,
                &format!(
                    "INSERT INTO items (id, turn_id, thread_id, kind, status, summary, detail, metadata, position)
                     VALUES (?1, 'turn_a', 'thr_full', 'agent_message', 'in_progress', ?2, ?3, ?4, {position})"
                ),
                &[Some(&id), Some(summary), detail, Some(&metadata)],
            )
            .await;
        }
        let mut tx = store.begin_write().await.unwrap();
        for _ in 0..3 {
            tx.append(NewEvent::thread(
                "thr_full",
                EventPayload::ItemDelta(ItemDeltaPayload {
                    delta: "x".into(),
                    kind: ItemKind::AgentMessage,
                }),
            ))
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();

        let full = by_snapshot(&store, "thr_full").await;
        assert_eq!(full, by_rows(&store, "thr_full").await);
        assert_eq!(full, by_fallback(&store, "thr_full").await);
        let turn_ids: Vec<&str> = full["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap())
            .collect();
        assert_eq!(turn_ids, ["turn_a", "turn_b", "turn_c"]);
        assert_eq!(full["items"].as_array().unwrap().len(), 5);
        assert_eq!(full["items"][0]["id"], "item_0");
        assert_eq!(full["items"][4]["id"], "item_4");
        assert_eq!(full["turns"][1]["error"], AWKWARD[1]);
        assert!(full["latest_seq"].as_i64().unwrap() > 0);

        let empty = by_snapshot(&store, "thr_empty").await;
        assert_eq!(empty, by_rows(&store, "thr_empty").await);
        assert_eq!(empty["turns"], serde_json::json!([]));
        assert_eq!(empty["latest_seq"], 0);

        let mut conn = store.conn().await.unwrap();
        assert!(read(&mut conn, "thr_missing").await.unwrap().is_none());
        // A damaged column is reported, as the row-by-row read reports it.
        sqlx::query("UPDATE items SET metadata = 'not json' WHERE id = 'item_2'")
            .execute(&mut *conn)
            .await
            .unwrap();
        let error = read(&mut conn, "thr_full").await.err().unwrap();
        assert!(error.to_string().contains("items.metadata"), "{error}");
    }
}
