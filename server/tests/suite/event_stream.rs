//! `/v1/threads/{id}/events`: replay, live hand-off, cursors and limits.

use crate::common;

use codewhale::store::NewEvent;
use common::{Api, Harness};
use protocol::{EventPayload, ItemDeltaPayload, ItemKind, TurnSteeredPayload};
use serde_json::json;

/// A filler event numbered `n`, for tests that write straight to the store.
fn steered(n: u32) -> EventPayload {
    EventPayload::TurnSteered(TurnSteeredPayload {
        turn_id: "turn_test".into(),
        prompt: format!("steer {n}"),
        steer_count: n,
    })
}

fn delta(text: &str) -> EventPayload {
    EventPayload::ItemDelta(ItemDeltaPayload {
        delta: text.to_string(),
        kind: ItemKind::AgentMessage,
    })
}

async fn thread(api: &Api) -> String {
    api.create_thread(json!({})).await.id
}

/// Appends `n` events to `thread` straight through the store, one commit each.
async fn append(h: &Harness, thread: &str, n: usize) -> Vec<i64> {
    let mut seqs = Vec::new();
    for i in 0..n {
        let mut tx = h.state.runtime.store().begin_write().await.unwrap();
        let event = NewEvent::thread(thread, steered(i as u32));
        seqs.push(tx.append(event).await.unwrap());
        tx.commit().await.unwrap();
    }
    seqs
}

#[tokio::test]
async fn replays_history_then_delivers_live_with_a_previous_seq_chain() {
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread(&api).await;
    let other = thread(&api).await;
    append(&h, &id, 3).await;
    append(&h, &other, 2).await; // interleaved: gaps in this thread's seqs are legal

    let mut reader = api.events(&id).await;
    let (sse_id, name, first) = reader.next().await;
    assert_eq!(name, "thread.started");
    assert_eq!(first["event"], "thread.started");
    assert_eq!(first["kind"], "thread.started");
    assert_eq!(first["schema_version"], 1);
    assert_eq!(first["previous_seq"], 0);
    assert_eq!(first["thread_id"], id);
    assert_eq!(first["timestamp"], first["created_at"]);
    assert_eq!(sse_id, first["seq"].as_i64().unwrap().to_string());
    let mut previous = first["seq"].as_i64().unwrap();
    for n in 0..3 {
        let (_, _, event) = reader.next().await;
        assert_eq!(event["previous_seq"], previous);
        assert_eq!(event["payload"]["steer_count"], n);
        previous = event["seq"].as_i64().unwrap();
    }
    // Live: appended after the reader caught up.
    let live = append(&h, &id, 1).await[0];
    let (_, _, event) = reader.next().await;
    assert_eq!(event["seq"], live);
    assert_eq!(event["previous_seq"], previous);
    assert!(
        reader.quiet_for(200).await,
        "other threads' events are not delivered"
    );
}

#[tokio::test]
async fn cursors_since_seq_last_event_id_and_replay_limit() {
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread(&api).await;
    let seqs = append(&h, &id, 10).await;

    let mut from_cursor = api.events_since(&id, seqs[6]).await;
    let (_, _, event) = from_cursor.next().await;
    assert_eq!(event["seq"], seqs[7]);
    assert_eq!(event["previous_seq"], seqs[6]);

    let last_id = seqs[8].to_string();
    let mut resumed = api
        .open_events(&id, "", &[("last-event-id", &last_id)])
        .await;
    assert_eq!(resumed.next().await.2["seq"], seqs[9]);

    let mut tail = api.open_events(&id, "?replay_limit=3", &[]).await;
    let (_, _, event) = tail.next().await;
    assert_eq!(event["seq"], seqs[7]);
    assert_eq!(
        event["previous_seq"], seqs[6],
        "the seq of the last omitted event"
    );
    assert_eq!(tail.next().await.2["seq"], seqs[8]);
    assert_eq!(tail.next().await.2["seq"], seqs[9]);
    assert!(tail.quiet_for(100).await);

    for bad in [
        "?replay_limit=4097",
        "?replay_limit=-1",
        "?since_seq=-5",
        "?since_seq=abc",
        "?cursor=1",
    ] {
        let reply = api.get(&format!("/v1/threads/{id}/events{bad}")).await;
        assert_eq!(reply.status, 400, "{bad}");
    }
    let url = api.url(&format!("/v1/threads/{id}/events"));
    let reply = api
        .send(api.http().get(url).header("last-event-id", "nope"))
        .await;
    assert_eq!(reply.status, 400);
    let unknown = api.get("/v1/threads/thr_00ff00ff00ff00ff/events").await;
    assert_eq!(unknown.status, 404);
    // A cursor beyond every event of this store (a reset home, another
    // server) would skip everything up to it: refused, not followed.
    let newest = seqs[9];
    let ahead = api
        .get(&format!(
            "/v1/threads/{id}/events?since_seq={}",
            newest + 1000
        ))
        .await;
    assert_eq!(ahead.status, 409);
    assert!(
        ahead.error_message().contains("latest_seq"),
        "{}",
        ahead.error_message()
    );
    let at_newest = api
        .open_events(&id, &format!("?since_seq={newest}"), &[])
        .await;
    drop(at_newest);
}

#[tokio::test]
async fn no_gap_and_no_duplicate_while_history_and_live_overlap() {
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread(&api).await;
    // More history than one replay batch, then a writer racing the reader.
    let mut expected = vec![];
    expected.extend(append(&h, &id, 700).await);
    let mut reader = api.events_since(&id, 0).await;
    let writer = {
        let store = h.state.runtime.store().clone();
        let id = id.clone();
        tokio::spawn(async move {
            let mut seqs = Vec::new();
            for i in 0..300 {
                let mut tx = store.begin_write().await.unwrap();
                seqs.push(
                    tx.append(NewEvent::thread(&id, delta(&i.to_string())))
                        .await
                        .unwrap(),
                );
                tx.commit().await.unwrap();
            }
            seqs
        })
    };
    let mut seen = Vec::new();
    let mut previous = 0;
    // thread.started + 700 + 300
    for _ in 0..1001 {
        let (_, _, event) = reader.next().await;
        assert_eq!(event["previous_seq"], previous, "chain unbroken");
        previous = event["seq"].as_i64().unwrap();
        seen.push(previous);
    }
    expected.extend(writer.await.unwrap());
    assert_eq!(&seen[1..], &expected[..], "every event once, in order");
    assert!(reader.quiet_for(100).await);
}

#[tokio::test]
async fn thread_updates_are_events() {
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread(&api).await;
    let mut reader = api.events(&id).await;
    assert_eq!(reader.next().await.1, "thread.started");
    api.try_patch_thread(&id, json!({"title": "Renamed", "archived": true}))
        .await;
    let (_, name, event) = reader.next().await;
    assert_eq!(name, "thread.updated");
    assert_eq!(event["payload"]["thread"]["title"], "Renamed");
    assert_eq!(event["payload"]["changed"], json!(["archived", "title"]));
    // A patch that changes nothing records nothing.
    api.try_patch_thread(&id, json!({"title": "Renamed"})).await;
    assert!(reader.quiet_for(200).await);
}

#[tokio::test]
async fn a_lagging_subscriber_catches_up_from_the_store() {
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread(&api).await;
    let other = thread(&api).await;
    let mut reader = api.events(&id).await;
    assert_eq!(reader.next().await.1, "thread.started");
    // The client reads nothing: ~8 MB of events fill the socket and the
    // stream's channel, so its task blocks; meanwhile more commits than the
    // live wake-up channel holds go by. It must recover from SQLite.
    let big = "x".repeat(4096);
    let mut expected = Vec::new();
    for _ in 0..2000 {
        let mut tx = h.state.runtime.store().begin_write().await.unwrap();
        expected.push(tx.append(NewEvent::thread(&id, delta(&big))).await.unwrap());
        tx.commit().await.unwrap();
    }
    append(&h, &other, 5000).await;
    expected.extend(append(&h, &id, 10).await);
    for seq in &expected {
        assert_eq!(reader.next().await.2["seq"], *seq);
    }
    assert!(reader.quiet_for(100).await);
}

/// Under load — four writers committing at once, twenty subscribers of
/// which four stop reading until the writers are done — the stopped ones
/// fall further behind than the live broadcast holds (their socket and
/// channel fill with ~20 MB of events, so their tasks block). Every subscriber still gets every event of its
/// thread once, in order, with an unbroken `previous_seq` chain.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn subscribers_forced_to_lag_under_load_still_get_every_event_once() {
    use codewhale::runtime::stream;
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread(&api).await;
    let other = thread(&api).await;
    let lags_before = stream::lag_recoveries();
    let mut readers = Vec::new();
    for _ in 0..20 {
        readers.push(api.events(&id).await);
    }
    let (written, writers_done) = tokio::sync::watch::channel(false);
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let store = h.state.runtime.store().clone();
            let (id, other) = (id.clone(), other.clone());
            tokio::spawn(async move {
                let text = format!("writer {w} ").repeat(900); // ~8 KB: still carried
                let mut mine = Vec::new();
                for i in 0..600 {
                    let mut tx = store.begin_write().await.unwrap();
                    mine.push(
                        tx.append(NewEvent::thread(&id, delta(&text)))
                            .await
                            .unwrap(),
                    );
                    if i % 3 == 0 {
                        tx.append(NewEvent::thread(&other, delta("noise")))
                            .await
                            .unwrap();
                    }
                    tx.commit().await.unwrap();
                }
                mine
            })
        })
        .collect();
    let checks: Vec<_> = readers
        .into_iter()
        .enumerate()
        .map(|(n, mut reader)| {
            let mut writers_done = writers_done.clone();
            tokio::spawn(async move {
                let (_, name, first) = reader.next().await;
                assert_eq!(name, "thread.started");
                let mut previous = first["seq"].as_i64().unwrap();
                let mut seqs = Vec::new();
                while seqs.len() < 2400 {
                    if n % 5 == 0 && seqs.len() == 10 {
                        // This one stops reading until every event is written.
                        writers_done.wait_for(|done| *done).await.unwrap();
                    }
                    let (_, _, event) = reader.next().await;
                    assert_eq!(
                        event["previous_seq"], previous,
                        "reader {n}: chain unbroken"
                    );
                    previous = event["seq"].as_i64().unwrap();
                    seqs.push(previous);
                }
                assert!(reader.quiet_for(100).await, "reader {n}: nothing more");
                seqs
            })
        })
        .collect();
    let mut expected = Vec::new();
    for writer in writers {
        expected.extend(writer.await.unwrap());
    }
    written.send(true).unwrap();
    expected.sort_unstable();
    for check in checks {
        assert_eq!(check.await.unwrap(), expected, "every event once, in order");
    }
    assert!(
        stream::lag_recoveries() > lags_before,
        "the slow readers lagged and caught up from the store"
    );
}

/// Commits land exactly inside each race window of the replay → live
/// hand-off; every event must still arrive once, in order.
#[tokio::test]
async fn handoff_is_lossless_with_commits_injected_at_every_race_window() {
    use codewhale::runtime::stream::{self, Cursor, Pauses, RaceWindow};
    use std::sync::{Arc, Mutex};

    let h = Harness::app_server().await;
    let store = h.state.runtime.store().clone();
    let thread = codewhale::runtime::threads::create(&store, h.home.path(), Default::default())
        .await
        .unwrap();
    let mut expected = vec![1]; // thread.started is seq 1 in a fresh store
    expected.extend(append(&h, &thread.id, stream::BATCH as usize + 44).await); // more than one batch
    let injected = Arc::new(Mutex::new(Vec::new()));
    let windows_seen = Arc::new(Mutex::new(Vec::new()));
    let pauses: Pauses = {
        let store = store.clone();
        let id = thread.id.clone();
        let injected = injected.clone();
        let windows_seen = windows_seen.clone();
        Arc::new(move |window: RaceWindow| {
            let store = store.clone();
            let id = id.clone();
            let injected = injected.clone();
            windows_seen.lock().unwrap().push(window);
            let first_time = windows_seen
                .lock()
                .unwrap()
                .iter()
                .filter(|w| **w == window)
                .count()
                <= 2;
            Box::pin(async move {
                if first_time {
                    let mut tx = store.begin_write().await.unwrap();
                    let seq = tx
                        .append(NewEvent::thread(&id, {
                            let mut payload = steered(0);
                            if let EventPayload::TurnSteered(p) = &mut payload {
                                p.prompt = format!("{window:?}");
                            }
                            payload
                        }))
                        .await
                        .unwrap();
                    tx.commit().await.unwrap();
                    injected.lock().unwrap().push(seq);
                }
            })
        })
    };
    let (_stop, shutdown) = tokio::sync::watch::channel(false);
    let cursor = Cursor {
        since_seq: 0,
        replay_limit: None,
    };
    let mut frames = stream::open_with_pauses(
        store.clone(),
        thread.id.clone(),
        cursor,
        shutdown,
        Some(pauses),
    )
    .await
    .unwrap();
    let mut seen = Vec::new();
    let mut previous = 0;
    loop {
        let frame =
            tokio::time::timeout(std::time::Duration::from_millis(500), frames.recv()).await;
        let Ok(Some(frame)) = frame else { break };
        let envelope: serde_json::Value = serde_json::from_str(&frame.data).unwrap();
        assert_eq!(envelope["previous_seq"], previous);
        previous = frame.seq;
        seen.push(frame.seq);
    }
    let windows = windows_seen.lock().unwrap().clone();
    for window in [
        RaceWindow::Subscribed,
        RaceWindow::BatchRead,
        RaceWindow::CaughtUp,
    ] {
        assert!(windows.contains(&window), "{window:?} was exercised");
    }
    expected.extend(injected.lock().unwrap().iter());
    expected.sort_unstable();
    assert_eq!(seen, expected, "every event once, in order");
}

/// A stream opened while the server is shutting down (a browser
/// reconnecting at that moment) ends too, so the shutdown never waits on it.
#[tokio::test]
async fn a_stream_opened_after_shutdown_began_ends() {
    use codewhale::runtime::stream::Cursor;
    let h = Harness::app_server().await;
    let runtime = &h.state.runtime;
    let thread = runtime.create_thread(Default::default()).await.unwrap();
    runtime.stop_streams();
    let cursor = Cursor {
        since_seq: 0,
        replay_limit: None,
    };
    let mut frames = runtime.subscribe(&thread.id, cursor).await.unwrap();
    let drained = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        let mut names = Vec::new();
        while let Some(frame) = frames.recv().await {
            names.push(frame.event);
        }
        names
    })
    .await
    .expect("the stream ended");
    assert_eq!(drained, ["thread.started"], "history first, then the end");
}
