//! `/v1/tasks`: the durable queue, run by the real agent against the mock
//! provider — order, the concurrency limit (two here), cancelling queued
//! and running tasks, answers, and refusals of bad requests.

use crate::common;

use common::agent::{setup_with, slow_words, Setup};
use mock_provider::Reply;
use serde_json::{json, Value};
use std::time::Duration;

async fn create(s: &Setup, body: Value) -> Value {
    let reply = s.api.post("/v1/tasks", &body).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    reply.json()
}

async fn get(s: &Setup, id: &str) -> Value {
    let reply = s.api.get(&format!("/v1/tasks/{id}")).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()
}

/// Polls until the task's status is `status` (10 s at most).
async fn until(s: &Setup, id: &str, status: &str) -> Value {
    for _ in 0..200 {
        let task = get(s, id).await;
        if task["status"] == status {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never became {status}: {}", get(s, id).await);
}

/// Polls until the running task's turn has started (10 s at most).
async fn until_turn(s: &Setup, id: &str) -> Value {
    for _ in 0..200 {
        let task = get(s, id).await;
        if task["status"] == "running" && task["turn_id"].is_string() {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never started a turn: {}", get(s, id).await);
}

#[tokio::test]
async fn the_queue_runs_in_order_two_at_a_time_and_cancels() {
    let s = setup_with(json!({})).await;
    let workspace = std::env::current_dir().unwrap();
    for _ in 0..4 {
        s.mock.push(slow_words(40));
    }
    let body = |n: u32| json!({ "prompt": format!("task {n}"), "workspace": workspace });
    let first = create(&s, body(1)).await;
    assert_eq!(first["status"], "queued");
    assert!(first["id"].as_str().unwrap().starts_with("task_"));
    let second = create(&s, body(2)).await;
    let third = create(&s, body(3)).await;
    let id = |task: &Value| task["id"].as_str().unwrap().to_string();
    let (first, second, third) = (id(&first), id(&second), id(&third));

    until(&s, &first, "running").await;
    until(&s, &second, "running").await;
    // The limit is two: the third waits, and cancelling it ends it at once.
    assert_eq!(get(&s, &third).await["status"], "queued");
    let cancelled = s.api.post_empty(&format!("/v1/tasks/{third}/cancel")).await;
    assert_eq!(cancelled.status, 200);
    assert_eq!(cancelled.json()["status"], "cancelled");
    let again = s.api.post_empty(&format!("/v1/tasks/{third}/cancel")).await;
    assert_eq!(again.status, 409, "{}", again.text());

    let fourth = id(&create(&s, body(4)).await);
    assert_eq!(get(&s, &fourth).await["status"], "queued");
    // Cancelling a running task interrupts its turn; the slot goes to the next.
    // A claimed task is `running` a moment before its turn has started.
    let running = until_turn(&s, &first).await;
    let reply = s.api.post_empty(&format!("/v1/tasks/{first}/cancel")).await;
    assert_eq!(reply.status, 200);
    let ended = until(&s, &first, "cancelled").await;
    let thread = running["thread_id"].as_str().unwrap();
    let turn = running["turn_id"].as_str().unwrap();
    assert_eq!(ended["thread_id"], thread);
    let detail = s.api.thread(thread).await;
    let turn = detail.turns.iter().find(|t| t.id == turn).unwrap();
    assert_eq!(turn.status, protocol::TurnStatus::Interrupted);
    until(&s, &fourth, "running").await;

    let done = until(&s, &second, "completed").await;
    assert!(done["answer"].as_str().unwrap().starts_with("w0 w1 w2"));
    assert!(done["finished_at"].is_string());
    let thread = s.api.thread(done["thread_id"].as_str().unwrap()).await;
    assert_eq!(thread.thread.workspace.as_deref(), workspace.to_str());
    until(&s, &fourth, "completed").await;

    // Newest first; filtered by status; clear removes completed and cancelled.
    let list = s.api.get("/v1/tasks").await.json();
    let ids: Vec<String> = list.as_array().unwrap().iter().map(id).collect();
    assert_eq!(
        ids,
        [fourth.clone(), third.clone(), second.clone(), first.clone()]
    );
    let completed = s.api.get("/v1/tasks?status=completed").await.json();
    assert_eq!(completed.as_array().unwrap().len(), 2);
    let cleared = s.api.post_empty("/v1/tasks/clear").await;
    assert_eq!(cleared.json()["cleared"], 4);
    assert_eq!(s.api.get("/v1/tasks").await.json(), json!([]));
    // The threads stay.
    s.api.thread(thread.thread.id.as_str()).await;
}

#[tokio::test]
async fn a_task_on_a_given_thread_continues_it_and_failures_are_recorded() {
    let s = setup_with(json!({})).await;
    s.mock.push(Reply::text(&["Continued."]));
    let task = create(&s, json!({ "prompt": "go on", "thread_id": s.thread })).await;
    let done = until(&s, task["id"].as_str().unwrap(), "completed").await;
    assert_eq!(done["thread_id"], s.thread.as_str());
    assert_eq!(done["answer"], "Continued.");
    assert_eq!(s.detail().await.turns.len(), 1);

    // The provider fails: the task fails with the turn's error.
    s.mock.push(Reply::Error {
        status: 500,
        message: "upstream exploded".into(),
    });
    let task = create(&s, json!({ "prompt": "again", "thread_id": s.thread })).await;
    let failed = until(&s, task["id"].as_str().unwrap(), "failed").await;
    assert!(
        failed["error"].as_str().unwrap().contains("500"),
        "{failed}"
    );
}

#[tokio::test]
async fn bad_task_requests_are_refused_and_nothing_is_queued() {
    let s = setup_with(json!({})).await;
    let cases = [
        (json!({ "prompt": "  " }), 400),
        (
            json!({ "prompt": "x", "thread_id": s.thread, "workspace": "/" }),
            400,
        ),
        (
            json!({ "prompt": "x", "thread_id": "thr_00000000deadbeef" }),
            404,
        ),
        (json!({ "prompt": "x", "workspace": "/no/such/dir" }), 409),
        (json!({ "prompt": "x", "mode": "nonsense" }), 400),
        (json!({ "prompt": "x", "model": " " }), 400),
        (json!({ "prompt": "x", "surprise": true }), 400),
        (json!({ "prompt": "x".repeat(300 * 1024) }), 413),
    ];
    for (body, status) in cases {
        let reply = s.api.post("/v1/tasks", &body).await;
        assert_eq!(
            reply.status,
            status,
            "{}: {}",
            body.to_string().chars().take(80).collect::<String>(),
            reply.text()
        );
    }
    assert_eq!(s.api.get("/v1/tasks").await.json(), json!([]));
    assert_eq!(s.api.get("/v1/tasks/task_nope").await.status, 404);
    assert_eq!(
        s.api.post_empty("/v1/tasks/task_nope/cancel").await.status,
        404
    );
    assert_eq!(s.api.get("/v1/tasks?limit=0").await.status, 400);
    assert_eq!(s.api.get("/v1/tasks?status=bogus").await.status, 400);
}

/// The queue is reached only as `/v1` is: no credentials, a foreign Host,
/// a cookie caller from another site and an oversize body are refused,
/// and none of them queues anything.
#[tokio::test]
async fn hostile_task_requests_are_refused() {
    let s = setup_with(json!({})).await;
    let h = &s._h;
    let body = r#"{"prompt":"delete everything"}"#;
    let json = ("content-type", "application/json");
    let bearer = format!("Bearer {}", common::TOKEN);
    let auth = ("authorization", bearer.as_str());
    let none = h.request("POST", "/v1/tasks", &[json], body).await;
    assert_eq!(none.status, 401);
    let foreign = [json, auth, ("host", "attacker.example")];
    assert_eq!(
        h.request("POST", "/v1/tasks", &foreign, body).await.status,
        421
    );
    let big = format!(r#"{{"prompt":"{}"}}"#, "x".repeat(17 * 1024 * 1024));
    assert_eq!(
        h.request("POST", "/v1/tasks", &[json, auth], big)
            .await
            .status,
        413
    );
    let cookie = [
        json,
        ("cookie", "codewhale_runtime_token=x"),
        ("origin", "http://attacker.example"),
    ];
    assert!(h
        .request("POST", "/v1/tasks", &cookie, body)
        .await
        .status
        .is_client_error());
    assert_eq!(s.api.get("/v1/tasks").await.json(), json!([]));
}
