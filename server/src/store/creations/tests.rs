//! Group commit on a real store: creations queued behind a busy writer are
//! written together, and each still succeeds or fails on its own.

use super::*;
use protocol::{EventPayload, ThreadRecord, ThreadStartedPayload};
use std::time::Duration;

fn row(id: &str) -> ThreadRow {
    ThreadRow {
        id: id.to_string(),
        created_at: crate::clock::now(),
        updated_at: crate::clock::now(),
        model: None,
        model_provider: None,
        workspace: Some("/tmp".into()),
        mode: "agent".into(),
        allow_shell: true,
        trust_mode: false,
        auto_approve: false,
        title: Some(format!("title of {id}")),
        system_prompt: None,
        task_id: None,
        latest_turn_id: None,
        latest_response_bookmark: None,
        archived: false,
        dynamic_tools: "[]".into(),
        preview: None,
    }
}

fn started(row: &ThreadRow) -> NewEvent {
    NewEvent::thread(
        &row.id,
        EventPayload::ThreadStarted(ThreadStartedPayload {
            thread: ThreadRecord::from(row.clone()),
        }),
    )
}

async fn open() -> (tempfile::TempDir, Arc<Store>) {
    let home = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(home.path()).await.unwrap());
    (home, store)
}

fn create(store: &Arc<Store>, id: &str) -> tokio::task::JoinHandle<Result<(), StoreError>> {
    let (store, row) = (store.clone(), row(id));
    tokio::spawn(async move {
        let event = started(&row);
        store.create_thread(row, event).await
    })
}

/// Waits until `n` creations wait for the writer.
async fn queued(store: &Store, n: usize) {
    for _ in 0..10_000 {
        if store.creations.lock().len() == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("{n} creations never queued");
}

/// (thread id, event name, timestamp) of every event, in seq order.
async fn events(store: &Store) -> Vec<(String, String, String)> {
    sqlx::query_as("SELECT thread_id, event, timestamp FROM events ORDER BY seq")
        .fetch_all(store.pool())
        .await
        .unwrap()
}

async fn thread_ids(store: &Store) -> Vec<String> {
    sqlx::query_scalar("SELECT id FROM threads ORDER BY id")
        .fetch_all(store.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn creations_behind_a_busy_writer_commit_together_in_order() {
    let (_home, store) = open().await;
    let mut live = store.subscribe();
    let busy = store.begin_write().await.unwrap();
    let mut tasks = Vec::new();
    for n in 0..20 {
        tasks.push(create(&store, &format!("thread_{n:02}")));
        // One at a time, so the queue's order is known.
        queued(&store, n + 1).await;
    }
    drop(busy);
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    let expected: Vec<String> = (0..20).map(|n| format!("thread_{n:02}")).collect();
    assert_eq!(thread_ids(&store).await, expected);
    let events = events(&store).await;
    let threads: Vec<&str> = events.iter().map(|(t, _, _)| t.as_str()).collect();
    assert_eq!(
        threads, expected,
        "one first event per thread, in queue order"
    );
    assert!(events.iter().all(|(_, name, _)| name == "thread.started"));
    // One transaction, one clock reading: 20 transactions one after the
    // other would not all fall in one millisecond.
    assert!(
        events.iter().all(|(_, _, at)| *at == events[0].2),
        "{events:?}"
    );
    // Announced to live subscribers after the commit, carrying the event.
    for id in &expected {
        let committed = live.recv().await.unwrap();
        assert_eq!(&*committed.thread_id, id);
        assert!(committed.event.is_some());
    }
    assert!(store.creations.lock().is_empty());
}

#[tokio::test]
async fn a_failing_creation_does_not_fail_the_others() {
    let (_home, store) = open().await;
    create(&store, "thread_taken").await.unwrap().unwrap();
    let busy = store.begin_write().await.unwrap();
    let good_before = create(&store, "thread_a");
    queued(&store, 1).await;
    // The same id again: its insert breaks the batch's statement.
    let clash = create(&store, "thread_taken");
    queued(&store, 2).await;
    let good_after = create(&store, "thread_b");
    queued(&store, 3).await;
    drop(busy);
    good_before.await.unwrap().unwrap();
    good_after.await.unwrap().unwrap();
    let refused = clash.await.unwrap().unwrap_err();
    assert!(refused.to_string().contains("UNIQUE"), "{refused}");
    assert_eq!(
        thread_ids(&store).await,
        ["thread_a", "thread_b", "thread_taken"]
    );
    let events = events(&store).await;
    let threads: Vec<&str> = events.iter().map(|(t, _, _)| t.as_str()).collect();
    assert_eq!(threads, ["thread_taken", "thread_a", "thread_b"]);
}

#[tokio::test]
async fn a_caller_that_goes_away_leaves_the_batch_alone() {
    let (_home, store) = open().await;
    let busy = store.begin_write().await.unwrap();
    let gone = create(&store, "thread_gone");
    queued(&store, 1).await;
    let stays = create(&store, "thread_stays");
    queued(&store, 2).await;
    gone.abort();
    assert!(gone.await.unwrap_err().is_cancelled());
    drop(busy);
    stays.await.unwrap().unwrap();
    // Its request was accepted before it left: the thread is written, as a
    // lone creation whose response was lost would be.
    assert_eq!(thread_ids(&store).await, ["thread_gone", "thread_stays"]);
    assert_eq!(events(&store).await.len(), 2);
}

#[tokio::test]
async fn more_than_a_batch_is_written_in_several() {
    let (_home, store) = open().await;
    let busy = store.begin_write().await.unwrap();
    let count = MAX_BATCH + 44;
    let mut tasks = Vec::new();
    for n in 0..count {
        tasks.push(create(&store, &format!("thread_{n:04}")));
    }
    queued(&store, count).await;
    drop(busy);
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    assert_eq!(thread_ids(&store).await.len(), count);
    let events = events(&store).await;
    assert_eq!(events.len(), count);
    // Each event belongs to its own thread.
    let mut threads: Vec<&str> = events.iter().map(|(t, _, _)| t.as_str()).collect();
    threads.sort_unstable();
    threads.dedup();
    assert_eq!(threads.len(), count);
    assert!(store.creations.lock().is_empty());
}

#[tokio::test]
async fn a_flush_gone_before_it_took_its_batch_does_not_strand_later_creations() {
    let (_home, store) = open().await;
    let busy = store.begin_write().await.unwrap();
    // A caller whose flush task ends (at shutdown, or in a panic) while it
    // waits for the writer, before it took the batch.
    let (done, heard) = oneshot::channel();
    let stranded = row("stranded");
    let event = started(&stranded);
    store.creations.lock().push((stranded, event, done));
    let gone = tokio::time::timeout(Duration::from_millis(20), flush(store.clone())).await;
    assert!(gone.is_err(), "the flush waited for the busy writer");
    assert!(
        heard.await.is_err(),
        "its caller hears that it was abandoned"
    );
    assert!(store.creations.lock().is_empty());
    drop(busy);
    // The next creation finds the list empty, so it spawns a flush itself.
    tokio::time::timeout(Duration::from_secs(10), create(&store, "next"))
        .await
        .expect("a later creation is not stranded")
        .unwrap()
        .unwrap();
    assert_eq!(thread_ids(&store).await, ["next"]);
}
