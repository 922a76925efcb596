//! The store itself: sequence allocation, reopening, schema fail-closed.

use codewhale::store::{NewEvent, Store, StoreError};

fn event(thread: &str) -> NewEvent {
    NewEvent::thread(
        thread,
        protocol::EventPayload::TurnInterruptRequested(protocol::TurnInterruptRequestedPayload {
            turn_id: "turn_test".into(),
        }),
    )
}

#[tokio::test]
async fn seq_is_global_monotonic_and_never_reused_after_rollback_or_restart() {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(home.path()).await.unwrap();

    let mut tx = store.begin_write().await.unwrap();
    let a = tx.append(event("thr_a")).await.unwrap();
    let b = tx.append(event("thr_b")).await.unwrap();
    tx.commit().await.unwrap();
    assert!(b > a);

    let mut rolled_back = store.begin_write().await.unwrap();
    let lost = rolled_back.append(event("thr_a")).await.unwrap();
    drop(rolled_back);

    let mut tx = store.begin_write().await.unwrap();
    let c = tx.append(event("thr_a")).await.unwrap();
    tx.commit().await.unwrap();
    assert!(c > lost, "a rolled-back seq is not handed out again");
    store.close().await;

    let reopened = Store::open(home.path()).await.unwrap();
    let mut tx = reopened.begin_write().await.unwrap();
    let d = tx.append(event("thr_a")).await.unwrap();
    tx.commit().await.unwrap();
    assert!(
        d > c && d > lost,
        "a new process starts above everything handed out"
    );
}

#[tokio::test]
async fn a_newer_schema_fails_closed() {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(home.path()).await.unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (9999, 'from the future', 1, x'00', 0)",
    )
    .execute(store.pool())
    .await
    .unwrap();
    store.close().await;
    match Store::open(home.path()).await {
        Err(error @ StoreError::NewerSchema { .. }) => {
            assert!(error.to_string().contains("newer codewhale"), "{error}");
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a newer schema must not open"),
    }
}
