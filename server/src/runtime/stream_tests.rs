//! The packed replay read against the row-by-row one, on a real store.

use super::*;
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
        "\u{1}\u{1e}\u{1f}\u{7f} ",
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

/// Every batch of a thread, read `read_batch`'s way, as (seq, event, data).
async fn replay(store: &Store, thread: &str) -> Vec<(i64, String, String)> {
    let mut frames = Vec::new();
    let (mut position, mut limit) = (0, PACKED_FIRST);
    loop {
        let batch = next_batch(store, thread, position, limit).await.unwrap();
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
    let batch = next_batch(&store, &thread, 0, PACKED_FIRST).await.unwrap();
    assert_eq!(batch.corrupt, Some(seqs[6]));
    let delivered: Vec<i64> = batch.frames.iter().map(|f| f.seq).collect();
    assert_eq!(delivered, seqs[..6]);
    // From just before it, nothing good is left to deliver first.
    let batch = next_batch(&store, &thread, seqs[5], PACKED_FIRST)
        .await
        .unwrap();
    assert_eq!((batch.frames.len(), batch.corrupt), (0, Some(seqs[6])));
}

#[tokio::test]
async fn big_payloads_come_in_batches_of_about_a_mebibyte() {
    let big = |n: usize| format!("{n} {}", "x".repeat(300_000));
    let (_home, store, thread) = store_of(10, big).await;
    // The first read takes what it asked for; the next asks for what
    // fits a mebibyte at that size.
    let first = next_batch(&store, &thread, 0, 2).await.unwrap();
    assert_eq!((first.frames.len(), first.next_limit), (2, 3));
    let small = |n: usize| format!("{n}");
    let (_home, small_store, small_thread) = store_of(10, small).await;
    let few = next_batch(&small_store, &small_thread, 0, 2).await.unwrap();
    assert_eq!(few.next_limit, PACKED_BATCH);
    let frames = replay(&store, &thread).await;
    assert_eq!(frames.len(), 10);
    for (n, (_, _, data)) in frames.iter().enumerate() {
        let parsed: serde_json::Value = serde_json::from_str(data).unwrap();
        assert_eq!(parsed["payload"]["delta"], big(n));
    }
    // Events bigger than the whole budget still go, one at a time.
    let huge = |_| "y".repeat(2 << 20);
    let (_home, store, thread) = store_of(3, huge).await;
    let first = next_batch(&store, &thread, 0, 2).await.unwrap();
    assert_eq!((first.frames.len(), first.next_limit), (2, 1));
    assert_eq!(replay(&store, &thread).await.len(), 3);
}
