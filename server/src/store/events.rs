//! The append-only event log.

use super::{Committed, LiveEvent, StoreError, WriteTx, MAX_CARRIED_PAYLOAD};
use protocol::{EventName, EventPayload};
use sqlx::SqlitePool;
use std::sync::Arc;

/// An event to append; `seq` and `timestamp` are assigned by the store.
/// Its payload is typed, so the name and the payload's shape always agree
/// with the OpenAPI document.
#[derive(Clone, Debug)]
pub struct NewEvent {
    pub thread_id: String,
    pub turn_id: Option<String>,
    pub item_id: Option<String>,
    pub payload: EventPayload,
}

impl NewEvent {
    pub fn thread(thread_id: &str, payload: EventPayload) -> Self {
        Self {
            thread_id: thread_id.to_string(),
            turn_id: None,
            item_id: None,
            payload,
        }
    }

    pub fn turn(thread_id: &str, turn_id: &str, payload: EventPayload) -> Self {
        Self {
            turn_id: Some(turn_id.to_string()),
            ..Self::thread(thread_id, payload)
        }
    }

    pub fn item(thread_id: &str, turn_id: &str, item_id: &str, payload: EventPayload) -> Self {
        Self {
            item_id: Some(item_id.to_string()),
            ..Self::turn(thread_id, turn_id, payload)
        }
    }

    pub fn event(&self) -> EventName {
        self.payload.name()
    }
}

/// A committed event as stored; `payload` is raw JSON text.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct StoredEvent {
    pub seq: i64,
    pub thread_id: String,
    pub turn_id: Option<String>,
    pub item_id: Option<String>,
    pub event: String,
    pub timestamp: String,
    pub payload: String,
}

impl WriteTx<'_> {
    /// Appends inside this transaction and returns the allocated seq.
    pub async fn append(&mut self, event: NewEvent) -> Result<i64, StoreError> {
        Ok(self.append_all(vec![event]).await?[0])
    }

    /// Appends `events` in order, in one statement, and returns their seqs.
    pub async fn append_all(&mut self, events: Vec<NewEvent>) -> Result<Vec<i64>, StoreError> {
        let timestamp = crate::clock::now();
        let mut rows = Vec::with_capacity(events.len());
        for event in events {
            let seq = self.seqs.allocate()?;
            let name = event.event();
            let payload = serde_json::to_string(&event.payload.into_value())
                .map_err(|e| StoreError::Corrupt(e.to_string()))?;
            let key = self.thread_key(&event.thread_id).await?;
            let row = StoredEvent {
                seq,
                thread_id: event.thread_id,
                turn_id: event.turn_id,
                item_id: event.item_id,
                event: name.as_str().to_string(),
                timestamp: timestamp.clone(),
                payload,
            };
            rows.push((key, row));
        }
        let mut query = sqlx::QueryBuilder::new(
            "INSERT INTO events (seq, thread_id, turn_id, item_id, event, timestamp, payload) ",
        );
        query.push_values(&rows, |mut values, (_, row)| {
            values
                .push_bind(row.seq)
                .push_bind(&row.thread_id)
                .push_bind(&row.turn_id)
                .push_bind(&row.item_id)
                .push_bind(&row.event)
                .push_bind(&row.timestamp)
                .push_bind(&row.payload);
        });
        // As `threads::insert_all`: only the one-event form is cached.
        query
            .build()
            .persistent(rows.len() == 1)
            .execute(&mut *self.tx)
            .await?;
        let mut seqs = Vec::with_capacity(rows.len());
        for (thread_id, event) in rows {
            let seq = event.seq;
            let previous_in_thread = self
                .newest_in_thread
                .insert(thread_id.clone(), seq)
                .unwrap_or(0);
            let carried = (event.payload.len() <= MAX_CARRIED_PAYLOAD).then(|| {
                Arc::new(LiveEvent {
                    previous_in_thread,
                    event,
                    rendered: Default::default(),
                })
            });
            self.appended.push(Committed {
                thread_id,
                seq,
                event: carried,
            });
            seqs.push(seq);
        }
        Ok(seqs)
    }

    /// The shared key of a thread this transaction writes to; the first
    /// time, looks up the thread's newest seq (for `previous_in_thread`).
    async fn thread_key(&mut self, thread_id: &str) -> Result<Arc<str>, StoreError> {
        if let Some((id, _)) = self.newest_in_thread.get_key_value(thread_id) {
            return Ok(id.clone());
        }
        let newest = latest_seq_in(&mut self.tx, thread_id).await?;
        let id: Arc<str> = Arc::from(thread_id);
        self.newest_in_thread.insert(id.clone(), newest);
        Ok(id)
    }
}

/// Up to `limit` events of a thread after `after`, oldest first.
pub async fn after(
    pool: &SqlitePool,
    thread_id: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<StoredEvent>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT seq, thread_id, turn_id, item_id, event, timestamp, payload
         FROM events WHERE thread_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
    )
    .bind(thread_id)
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// What `packed_after` read: `count` events as one text, records separated
/// by RS (U+001E), each `seq` US `event` US `tail` (US is U+001F), where
/// `tail` is the wire envelope from its `"event"` field on (`,"event":…,
/// "payload":…}`); `runtime::stream` writes the head, which holds the
/// cursor-dependent `previous_seq`. JSON text never holds a raw control
/// character, so the separators cannot occur inside the tail; `event` is
/// written raw, and `runtime::stream` checks it against its quoted copy.
#[derive(Debug)]
pub struct Packed {
    pub count: usize,
    /// True when no event follows the ones packed (yet).
    pub last: bool,
    pub text: String,
}

/// One record of `packed_after` (a SQLite `format` string).
const PACKED_RECORD: &str = concat!(
    "%d\u{1f}%s\u{1f}",
    r#","event":%s,"kind":%s,"thread_id":%s,"turn_id":%s,"item_id":%s,"#,
    r#""timestamp":%s,"created_at":%s,"payload":%s}"#
);

/// Up to `limit` events of a thread after `after`, oldest first, as one
/// row: what a long replay reads. With each event written by one printf,
/// a full replay went from ~170k to ~300k events/s (BENCHMARKS.md, issue
/// 18). `None` when a payload is not valid JSON: the caller reads row by
/// row and says which event.
pub async fn packed_after(
    pool: &SqlitePool,
    thread_id: &str,
    after: i64,
    limit: i64,
) -> Result<Option<Packed>, StoreError> {
    // One printf per event (a chain of `||` copies the growing text at
    // every step). No ORDER BY inside group_concat: it sorts through a
    // temporary b-tree; the rows arrive in the subquery's order, and
    // `runtime::stream` checks that the seqs rise (and reads row by row
    // if they do not). A running sum of the payloads' sizes, to cap a
    // batch's bytes here, cost a third of the speed: the caller sizes
    // `limit` from the last batch instead.
    let (count, corrupt, text): (i64, i64, String) = sqlx::query_as(
        "SELECT count(*), coalesce(sum(NOT json_valid(payload)), 0), coalesce(group_concat(
             format(?4, seq, event, event_json, event_json, json_quote(thread_id),
                    json_quote(turn_id), json_quote(item_id), timestamp_json, timestamp_json,
                    payload),
             char(30)), '')
         FROM (SELECT seq, thread_id, turn_id, item_id, event, json_quote(event) AS event_json,
                      json_quote(timestamp) AS timestamp_json, payload
               FROM events WHERE thread_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3)",
    )
    .bind(thread_id)
    .bind(after)
    .bind(limit)
    .bind(PACKED_RECORD)
    .fetch_one(pool)
    .await?;
    Ok((corrupt == 0).then_some(Packed {
        count: count as usize,
        last: count < limit,
        text,
    }))
}

/// The cursor from which only the newest `keep` events after `after` remain:
/// the seq of the last omitted event, or `after` when nothing is omitted.
pub async fn tail_cursor(
    pool: &SqlitePool,
    thread_id: &str,
    after: i64,
    keep: i64,
) -> Result<i64, StoreError> {
    let omitted: Option<i64> = sqlx::query_scalar(
        "SELECT seq FROM events WHERE thread_id = ?1 AND seq > ?2 ORDER BY seq DESC LIMIT 1 OFFSET ?3",
    )
    .bind(thread_id)
    .bind(after)
    .bind(keep)
    .fetch_optional(pool)
    .await?;
    Ok(omitted.unwrap_or(after))
}

/// The newest seq of a thread (0 when it has none).
pub async fn latest_seq_in(
    conn: &mut sqlx::SqliteConnection,
    thread_id: &str,
) -> Result<i64, StoreError> {
    let seq: Option<i64> = sqlx::query_scalar("SELECT MAX(seq) FROM events WHERE thread_id = ?1")
        .bind(thread_id)
        .fetch_one(conn)
        .await?;
    Ok(seq.unwrap_or(0))
}

/// The newest committed seq of any thread (0 when there is none).
pub async fn latest_seq(pool: &SqlitePool) -> Result<i64, StoreError> {
    let seq: Option<i64> = sqlx::query_scalar("SELECT MAX(seq) FROM events")
        .fetch_one(pool)
        .await?;
    Ok(seq.unwrap_or(0))
}

/// A turn's request and settlement events (approvals, user input, client
/// tool calls), oldest first: what restart recovery reconciles.
pub async fn of_turn(
    conn: &mut sqlx::SqliteConnection,
    thread_id: &str,
    turn_id: &str,
) -> Result<Vec<StoredEvent>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT seq, thread_id, turn_id, item_id, event, timestamp, payload
         FROM events WHERE thread_id = ?1 AND turn_id = ?2
           AND (event LIKE 'approval.%' OR event LIKE 'user_input.%' OR event LIKE 'tool_call.%')
         ORDER BY seq",
    )
    .bind(thread_id)
    .bind(turn_id)
    .fetch_all(conn)
    .await?)
}
