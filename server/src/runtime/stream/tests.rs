//! The packed replay read against the row-by-row one, on a real store.

use super::{
    replay::{next_batch, unpack, FIRST_LIMIT, PACKED_BATCH},
    *,
};
use crate::store::NewEvent;
use protocol::{EventPayload, ItemDeltaPayload, ItemKind};

fn delta(text: String) -> EventPayload {
    EventPayload::ItemDelta(ItemDeltaPayload {
        delta: text,
        kind: ItemKind::AgentMessage,
    })
}

/// Text that JSON must escape, separators included, and text it must not.
fn awkward(n: usize) -> String {
    let pieces = [
        "plain ",
        "\"quoted\" ",
        "back\\slash ",
        "line\nbreak\ttab ",
        "\u{0}\u{1}\u{8}\u{c}\r\u{1e}\u{1f}\u{7f} ",
        "ünïcödé 🐋 ",
        "</script> ",
        "\u{2028}\u{2029} ",
    ];
    format!("{n}: {}", pieces[n % pieces.len()])
}

async fn store_with(events: usize) -> (tempfile::TempDir, Arc<Store>, String) {
    store_of(events, awkward).await
}

async fn store_of(
    events: usize,
    text: fn(usize) -> String,
) -> (tempfile::TempDir, Arc<Store>, String) {
    let home = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(home.path()).await.unwrap());
    let thread = "thread_packed".to_string();
    sqlx::query("INSERT INTO threads (id, created_at, updated_at) VALUES (?1, 'now', 'now')")
        .bind(&thread)
        .execute(store.pool())
        .await
        .unwrap();
    for chunk in (0..events).collect::<Vec<_>>().chunks(100) {
        let mut tx = store.begin_write().await.unwrap();
        for &n in chunk {
            let event = match n % 3 {
                0 => NewEvent::thread(&thread, delta(text(n))),
                1 => NewEvent::turn(&thread, "turn_1", delta(text(n))),
                _ => NewEvent::item(&thread, "turn_1", "item_\"1", delta(text(n))),
            };
            tx.append(event).await.unwrap();
        }
        tx.commit().await.unwrap();
    }
    (home, store, thread)
}

/// Every batch of a thread, read as a stream reads them, as (seq, event,
/// data); each batch must have been read packed.
async fn replay(store: &Store, thread: &str) -> Vec<(i64, String, String)> {
    let mut frames = Vec::new();
    let (mut position, mut limit) = (0, FIRST_LIMIT);
    loop {
        let batch = next_batch(store, thread, position, limit).await.unwrap();
        assert!(batch.packed, "after {position}: read row by row");
        assert!((1..=PACKED_BATCH).contains(&batch.next_limit));
        limit = batch.next_limit;
        assert_eq!(batch.corrupt, None);
        for frame in batch.frames {
            position = frame.seq;
            frames.push((frame.seq, frame.event, frame.data.to_string()));
        }
        if batch.caught_up {
            return frames;
        }
    }
}

#[tokio::test]
async fn packed_batches_are_byte_for_byte_the_frames_serde_writes() {
    let (_home, store, thread) = store_with(2 * PACKED_BATCH as usize + 7).await;
    let packed = replay(&store, &thread).await;
    let stored = store::events::after(store.pool(), &thread, 0, 10_000)
        .await
        .unwrap();
    assert_eq!(packed.len(), stored.len());
    let mut previous = 0;
    for (event, (seq, name, data)) in stored.iter().zip(&packed) {
        let expected = frame(event, previous).unwrap();
        assert_eq!(
            (*seq, name.as_str()),
            (expected.seq, expected.event.as_str())
        );
        assert_eq!(data.as_str(), &*expected.data, "seq {seq}");
        previous = event.seq;
    }
    // The separators in a payload's text travel escaped, never raw.
    let parsed: serde_json::Value = serde_json::from_str(&packed[4].2).unwrap();
    assert_eq!(parsed["payload"]["delta"], awkward(4));
    assert_eq!(parsed["item_id"], serde_json::Value::Null);
    let parsed: serde_json::Value = serde_json::from_str(&packed[2].2).unwrap();
    assert_eq!(parsed["item_id"], "item_\"1");
}

#[tokio::test]
async fn a_corrupt_payload_ends_the_batch_before_it() {
    let (_home, store, thread) = store_with(10).await;
    let seqs: Vec<i64> = sqlx::query_scalar("SELECT seq FROM events ORDER BY seq")
        .fetch_all(store.pool())
        .await
        .unwrap();
    sqlx::query("UPDATE events SET payload = '{\"delta\": \u{1e}' WHERE seq = ?1")
        .bind(seqs[6])
        .execute(store.pool())
        .await
        .unwrap();
    let batch = next_batch(&store, &thread, 0, FIRST_LIMIT).await.unwrap();
    assert!(!batch.packed);
    assert_eq!(batch.corrupt, Some(seqs[6]));
    let delivered: Vec<i64> = batch.frames.iter().map(|f| f.seq).collect();
    assert_eq!(delivered, seqs[..6]);
    // From just before it, nothing good is left to deliver first.
    let batch = next_batch(&store, &thread, seqs[5], FIRST_LIMIT)
        .await
        .unwrap();
    assert_eq!((batch.frames.len(), batch.corrupt), (0, Some(seqs[6])));
}

#[tokio::test]
async fn batches_are_sized_by_their_biggest_event_and_grow_at_most_twofold() {
    // Record sizes alternate: ~300 kB and a few bytes.
    let mixed = |n: usize| match n % 2 {
        0 => format!("{n} {}", "x".repeat(300_000)),
        _ => format!("{n}"),
    };
    let (_home, store, thread) = store_of(10, mixed).await;
    let first = next_batch(&store, &thread, 0, 2).await.unwrap();
    // Three of the biggest fit a mebibyte; twice 2 would allow four.
    assert_eq!((first.frames.len(), first.next_limit), (2, 3));
    let frames = replay(&store, &thread).await;
    assert_eq!(frames.len(), 10);
    for (n, (_, _, data)) in frames.iter().enumerate() {
        let parsed: serde_json::Value = serde_json::from_str(data).unwrap();
        assert_eq!(parsed["payload"]["delta"], mixed(n));
    }
    // Small events: the limit doubles up to PACKED_BATCH.
    let (_home, small, small_thread) = store_of(10, |n| format!("{n}")).await;
    let few = next_batch(&small, &small_thread, 0, 2).await.unwrap();
    assert_eq!(few.next_limit, 4);
    let many = next_batch(&small, &small_thread, 0, PACKED_BATCH)
        .await
        .unwrap();
    assert_eq!(many.next_limit, PACKED_BATCH);
    // Events bigger than the whole budget still go, one at a time.
    let (_home, store, thread) = store_of(3, |_| "y".repeat(2 << 20)).await;
    let first = next_batch(&store, &thread, 0, 2).await.unwrap();
    assert_eq!((first.frames.len(), first.next_limit), (2, 1));
    assert_eq!(replay(&store, &thread).await.len(), 3);
}

#[tokio::test]
async fn a_batch_of_exactly_the_limit_is_not_caught_up_and_the_next_is_empty() {
    let (_home, store, thread) = store_with(4).await;
    let full = next_batch(&store, &thread, 0, 4).await.unwrap();
    assert_eq!((full.frames.len(), full.caught_up), (4, false));
    let last = full.frames.last().unwrap().seq;
    let rest = next_batch(&store, &thread, last, 4).await.unwrap();
    assert_eq!(
        (rest.frames.len(), rest.caught_up, rest.packed),
        (0, true, true)
    );
}

/// A record as SQLite writes it, for `unpack`.
fn record(seq: i64, event: &str, tail_event: &str, payload: &str) -> String {
    format!(
        "{seq}\u{1f}{event}\u{1f},\"event\":\"{tail_event}\",\"kind\":\"{tail_event}\",\"thread_id\":\"t\",\"turn_id\":null,\"item_id\":null,\"timestamp\":\"x\",\"created_at\":\"x\",\"payload\":{payload}}}"
    )
}

#[test]
fn unpack_refuses_records_that_do_not_check_out() {
    let good = [record(3, "a.b", "a.b", "{}"), record(5, "c", "c", "[1]")].join("\u{1e}");
    let (frames, biggest) = unpack(&good, 1).unwrap();
    assert_eq!(frames.iter().map(|f| f.seq).collect::<Vec<_>>(), [3, 5]);
    assert_eq!(biggest, record(3, "a.b", "a.b", "{}").len());
    let first: serde_json::Value = serde_json::from_str(&frames[0].data).unwrap();
    assert_eq!(
        (first["previous_seq"].as_i64(), first["seq"].as_i64()),
        (Some(1), Some(3))
    );
    let second: serde_json::Value = serde_json::from_str(&frames[1].data).unwrap();
    assert_eq!(second["previous_seq"], 3);
    assert_eq!(unpack("", 7).unwrap().0.len(), 0);

    let refused = [
        // Seqs that do not rise, or do not pass the cursor.
        [record(5, "c", "c", "{}"), record(3, "a", "a", "{}")].join("\u{1e}"),
        record(1, "a", "a", "{}"),
        // A missing separator, a seq that is not a number.
        "3,a.b,{}".to_string(),
        record(3, "a", "a", "{}").replacen('3', "x", 1),
        // A raw name that is not the quoted one (a separator or a quote in
        // a name would show this way).
        record(3, "a", "b", "{}"),
        record(3, "a\"", "a\\\"", "{}"),
        // A line break would end an SSE data line early.
        record(3, "a", "a", "{\n}"),
        record(3, "a", "a", "{}\r"),
    ];
    for text in refused {
        assert!(unpack(&text, 1).is_none(), "{text:?}");
    }
}
