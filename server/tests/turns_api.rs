//! Turns through the real router and a scripted engine: the state machine,
//! its records and its events.

mod common;

use codewhale::runtime::{Runtime, RuntimeOptions};
use common::{
    api_client,
    scripted::{pieces, Scripted, Step},
    EventReader, Harness,
};
use serde_json::{json, Value};
use std::sync::Arc;

struct Setup {
    /// Owns the temporary CODEWHALE_HOME for the test's duration.
    _h: Harness,
    base: String,
    client: reqwest::Client,
    thread: String,
}

async fn setup(steps: Vec<Step>) -> Setup {
    let h = Harness::with_engine(Scripted::new(steps)).await;
    let base = h.serve().await;
    let client = api_client();
    let thread: Value = client
        .post(format!("{base}/v1/threads"))
        .json(&json!({"title": "turns"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let thread = thread["id"].as_str().unwrap().to_string();
    Setup {
        _h: h,
        base,
        client,
        thread,
    }
}

impl Setup {
    async fn start(&self, prompt: &str) -> reqwest::Response {
        self.client
            .post(format!("{}/v1/threads/{}/turns", self.base, self.thread))
            .json(&json!({ "prompt": prompt }))
            .send()
            .await
            .unwrap()
    }

    async fn events(&self) -> EventReader {
        let url = format!("{}/v1/threads/{}/events", self.base, self.thread);
        EventReader::open(&self.client, &url, &[]).await
    }

    async fn detail(&self) -> Value {
        let url = format!("{}/v1/threads/{}", self.base, self.thread);
        self.client
            .get(url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

#[tokio::test]
async fn a_turn_streams_items_and_completes() {
    let s = setup(vec![
        Step::Reason(pieces("thinking it over")),
        Step::Say(pieces("Hello there, friend.")),
    ])
    .await;
    let mut reader = s.events().await;
    let reply = s.start("  Say hello  ").await;
    assert_eq!(reply.status(), 201);
    let started: Value = reply.json().await.unwrap();
    assert_eq!(started["turn"]["status"], "in_progress");
    assert_eq!(started["turn"]["input_summary"], "Say hello");
    assert_eq!(started["thread"]["latest_turn_id"], started["turn"]["id"]);

    let events = reader.until("turn.completed").await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[0], "thread.started");
    assert_eq!(
        &names[1..4],
        ["turn.started", "item.started", "item.completed"]
    );
    assert_eq!(names.last(), Some(&"turn.completed"));
    let text_of = |kind: &str| -> String {
        events
            .iter()
            .filter(|(n, e)| n == "item.delta" && e["payload"]["kind"] == kind)
            .map(|(_, e)| e["payload"]["delta"].as_str().unwrap())
            .collect()
    };
    assert_eq!(text_of("agent_reasoning"), "thinking it over");
    assert_eq!(text_of("agent_message"), "Hello there, friend.");
    let (_, completed) = events.last().unwrap();
    assert_eq!(completed["payload"]["turn"]["status"], "completed");
    assert_eq!(completed["payload"]["turn"]["usage"]["input_tokens"], 120);
    assert_eq!(completed["payload"]["turn"]["usage"]["reasoning_tokens"], 7);

    let detail = s.detail().await;
    assert_eq!(detail["turns"][0]["status"], "completed");
    assert!(detail["turns"][0]["duration_ms"].is_u64());
    let kinds: Vec<&str> = detail["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["user_message", "agent_reasoning", "agent_message"]);
    assert_eq!(detail["items"][0]["detail"], "Say hello");
    assert_eq!(detail["items"][2]["detail"], "Hello there, friend.");
    assert_eq!(detail["items"][2]["status"], "completed");
    assert_eq!(detail["latest_seq"], completed["seq"]);
    assert_eq!(detail["thread"]["latest_turn_id"], started["turn"]["id"]);

    let summary: Value = s
        .client
        .get(format!("{}/v1/threads/summary", s.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(summary[0]["latest_turn_status"], "completed");
    assert_eq!(summary[0]["preview"], "Say hello");
}

#[tokio::test]
async fn adjacent_deltas_are_coalesced_and_lose_nothing() {
    let parts: Vec<String> = (0..2000).map(|i| format!("{i} ")).collect();
    let expected: String = parts.concat();
    let s = setup(vec![Step::Say(parts)]).await;
    let mut reader = s.events().await;
    assert_eq!(s.start("count").await.status(), 201);
    let events = reader.until("turn.completed").await;
    let deltas: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n == "item.delta")
        .map(|(_, e)| e)
        .collect();
    let text: String = deltas
        .iter()
        .map(|e| e["payload"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, expected);
    assert!(
        deltas.len() < 200,
        "2000 fragments became {} events",
        deltas.len()
    );
    assert_eq!(s.detail().await["items"][1]["detail"], expected);
}

#[tokio::test]
async fn one_active_turn_per_thread_even_under_concurrency() {
    let s = setup(vec![Step::StreamUntilInterrupted]).await;
    let prompts: Vec<String> = (0..8).map(|i| format!("race {i}")).collect();
    let starts = prompts.iter().map(|p| s.start(p));
    let statuses: Vec<u16> = futures::future::join_all(starts)
        .await
        .iter()
        .map(|r| r.status().as_u16())
        .collect();
    assert_eq!(
        statuses.iter().filter(|&&s| s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|&&s| s == 409).count(),
        7,
        "{statuses:?}"
    );
    let reply = s.start("one more").await;
    assert_eq!(reply.status(), 409);
    let body: Value = reply.json().await.unwrap();
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("active turn"));
    assert_eq!(s.detail().await["turns"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn steer_is_recorded_then_delivered() {
    let s = setup(vec![Step::AwaitSteer]).await;
    let mut reader = s.events().await;
    let started: Value = s.start("wait for me").await.json().await.unwrap();
    let turn = started["turn"]["id"].as_str().unwrap();
    let url = format!("{}/v1/threads/{}/turns/{turn}/steer", s.base, s.thread);

    let empty = s
        .client
        .post(&url)
        .json(&json!({"prompt": " "}))
        .send()
        .await
        .unwrap();
    assert_eq!(empty.status(), 400);
    let steered: Value = s
        .client
        .post(&url)
        .json(&json!({"prompt": "go left"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(steered["steer_count"], 1);

    let events = reader.until("turn.completed").await;
    let at = events
        .iter()
        .position(|(n, _)| n == "turn.steered")
        .unwrap();
    assert_eq!(events[at].1["payload"]["prompt"], "go left");
    // The steer is also a user message in the transcript.
    assert_eq!(events[at + 2].0, "item.completed");
    assert_eq!(events[at + 2].1["payload"]["item"]["kind"], "user_message");
    assert_eq!(events[at + 2].1["payload"]["item"]["detail"], "go left");
    let said: String = events
        .iter()
        .filter(|(n, _)| n == "item.delta")
        .map(|(_, e)| e["payload"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(said, "steered: go left");
    assert_eq!(
        events.last().unwrap().1["payload"]["turn"]["steer_count"],
        1
    );

    // Finished turn: 409. Unknown turn: 404. Malformed: 400.
    let late = s
        .client
        .post(&url)
        .json(&json!({"prompt": "too late"}))
        .send()
        .await
        .unwrap();
    assert_eq!(late.status(), 409);
    let unknown = format!(
        "{}/v1/threads/{}/turns/turn_00000000/steer",
        s.base, s.thread
    );
    assert_eq!(
        s.client
            .post(&unknown)
            .json(&json!({"prompt": "x"}))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let malformed = format!("{}/v1/threads/{}/turns/nope/steer", s.base, s.thread);
    assert_eq!(
        s.client
            .post(&malformed)
            .json(&json!({"prompt": "x"}))
            .send()
            .await
            .unwrap()
            .status(),
        400
    );
}

#[tokio::test]
async fn interrupt_ends_the_turn_and_its_open_items() {
    let s = setup(vec![Step::StreamUntilInterrupted]).await;
    let mut reader = s.events().await;
    let started: Value = s.start("go on forever").await.json().await.unwrap();
    let turn = started["turn"]["id"].as_str().unwrap();
    reader.until("item.delta").await;
    let url = format!("{}/v1/threads/{}/turns/{turn}/interrupt", s.base, s.thread);
    let reply = s.client.post(&url).send().await.unwrap();
    assert_eq!(reply.status(), 200);
    let events = reader.until("turn.completed").await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"turn.interrupt_requested"), "{names:?}");
    assert!(names.contains(&"item.interrupted"), "{names:?}");
    assert_eq!(
        events.last().unwrap().1["payload"]["turn"]["status"],
        "interrupted"
    );
    assert_eq!(s.client.post(&url).send().await.unwrap().status(), 409);
    // The thread is free again.
    assert_eq!(s.start("again").await.status(), 201);
}

#[tokio::test]
async fn failures_and_crashes_end_the_turn_failed() {
    for (step, error) in [
        (
            Step::Fail("provider overloaded".into()),
            "provider overloaded",
        ),
        (Step::Crash, "the engine crashed"),
    ] {
        let s = setup(vec![Step::Say(pieces("partial ")), step]).await;
        let mut reader = s.events().await;
        assert_eq!(s.start("try").await.status(), 201);
        let events = reader.until("turn.completed").await;
        let turn = &events.last().unwrap().1["payload"]["turn"];
        assert_eq!(turn["status"], "failed");
        assert_eq!(turn["error"], error);
    }
}

#[tokio::test]
async fn compaction_runs_as_a_turn() {
    let s = setup(vec![Step::Say(pieces("summary of the conversation"))]).await;
    let url = format!("{}/v1/threads/{}/compact", s.base, s.thread);
    let reply = s
        .client
        .post(&url)
        .json(&json!({"reason": "too long"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 202);
    let started: Value = reply.json().await.unwrap();
    assert_eq!(started["turn"]["input_summary"], "Compact: too long");
    let bare = s.client.post(&url).send().await.unwrap();
    assert!(
        bare.status() == 202 || bare.status() == 409,
        "{}",
        bare.status()
    );
}

#[tokio::test]
async fn turn_requests_are_validated() {
    let s = setup(vec![]).await;
    let url = format!("{}/v1/threads/{}/turns", s.base, s.thread);
    for body in [
        json!({}),
        json!({"prompt": ""}),
        json!({"prompt": 5}),
        json!({"prompt": "x", "mode": "turbo"}),
        json!({"prompt": "x", "model": ""}),
        json!({"prompt": "x", "extra": 1}),
    ] {
        let reply = s.client.post(&url).json(&body).send().await.unwrap();
        assert_eq!(reply.status(), 400, "{body}");
    }
    let unknown = format!("{}/v1/threads/thr_0000000000000000/turns", s.base);
    assert_eq!(
        s.client
            .post(&unknown)
            .json(&json!({"prompt": "x"}))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    assert_eq!(s.detail().await["turns"], json!([]));
}

#[tokio::test]
async fn without_a_provider_a_turn_is_refused_and_nothing_is_written() {
    let h = Harness::app_server().await;
    let base = h.serve().await;
    let client = api_client();
    let thread: Value = client
        .post(format!("{base}/v1/threads"))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = thread["id"].as_str().unwrap();
    let before: Value = client
        .get(format!("{base}/v1/threads/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let reply = client
        .post(format!("{base}/v1/threads/{id}/turns"))
        .json(&json!({"prompt": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 400);
    let body: Value = reply.json().await.unwrap();
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("DEEPSEEK_API_KEY"));
    let after: Value = client
        .get(format!("{base}/v1/threads/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(before, after);
}

#[tokio::test]
async fn restart_recovery_interrupts_unfinished_turns_exactly_once() {
    let home = tempfile::tempdir().unwrap();
    let options = |engine: Arc<dyn codewhale::runtime::engine::Engine>| RuntimeOptions {
        home: home.path().to_path_buf(),
        engine,
        pricing: Default::default(),
        default_workspace: home.path().to_path_buf(),
        wait_timeout: common::WAIT_TIMEOUT,
    };
    let before = Runtime::open(options(Scripted::new(vec![
        Step::Say(pieces("half ")),
        Step::Hang,
    ])))
    .await
    .unwrap();
    let thread = before.create_thread(Default::default()).await.unwrap();
    let started = before
        .start_turn(
            &thread.id,
            protocol::StartTurn {
                prompt: "hang".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await; // the message item is open
    drop(before); // the "process" is gone; its turn stays in_progress on disk

    let after_restart = Runtime::open(options(Scripted::new(vec![]))).await.unwrap();
    assert_eq!(after_restart.recovered_turns(), 1);
    let again = Runtime::open(options(Scripted::new(vec![]))).await.unwrap();
    assert_eq!(again.recovered_turns(), 0, "a second restart finds nothing");
    let store = after_restart.store().clone();

    let detail = codewhale::runtime::threads::detail(&store, &thread.id)
        .await
        .unwrap();
    let turn = &detail.turns[0];
    assert_eq!(turn.id, started.turn.id);
    assert_eq!(turn.status, protocol::TurnStatus::Interrupted);
    assert_eq!(
        turn.error.as_deref(),
        Some("Interrupted by process restart")
    );
    assert!(detail
        .items
        .iter()
        .all(|i| i.status != protocol::ItemStatus::InProgress));
    let events = codewhale::store::events::after(store.pool(), &thread.id, 0, 1000)
        .await
        .unwrap();
    let completions: Vec<_> = events
        .iter()
        .filter(|e| e.event == "turn.completed")
        .collect();
    assert_eq!(completions.len(), 1);
    assert!(completions[0].payload.contains("\"recovered\":true"));
}

#[tokio::test]
async fn fork_copies_finished_history_into_a_sibling() {
    let s = setup(vec![Step::Say(pieces("the answer"))]).await;
    let mut reader = s.events().await;
    assert_eq!(s.start("question").await.status(), 201);
    reader.until("turn.completed").await;

    let url = format!("{}/v1/threads/{}/fork", s.base, s.thread);
    let reply = s.client.post(&url).send().await.unwrap();
    assert_eq!(reply.status(), 201);
    let fork: Value = reply.json().await.unwrap();
    assert_ne!(fork["id"], s.thread);
    assert_eq!(fork["title"], "turns (fork)");

    let detail: Value = s
        .client
        .get(format!(
            "{}/v1/threads/{}",
            s.base,
            fork["id"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let source = s.detail().await;
    assert_eq!(detail["turns"].as_array().unwrap().len(), 1);
    assert_ne!(detail["turns"][0]["id"], source["turns"][0]["id"]);
    assert_eq!(detail["thread"]["latest_turn_id"], detail["turns"][0]["id"]);
    let texts = |d: &Value| -> Vec<Value> {
        d["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["detail"].clone())
            .collect()
    };
    assert_eq!(texts(&detail), texts(&source));

    let fork_events = format!(
        "{}/v1/threads/{}/events",
        s.base,
        fork["id"].as_str().unwrap()
    );
    let mut fork_reader = EventReader::open(&s.client, &fork_events, &[]).await;
    let (_, name, event) = fork_reader.next().await;
    assert_eq!(name, "thread.forked");
    assert_eq!(event["payload"]["source_thread_id"], s.thread);

    let missing = format!("{}/v1/threads/thr_0000000000000000/fork", s.base);
    assert_eq!(s.client.post(&missing).send().await.unwrap().status(), 404);
}

#[tokio::test]
async fn resume_unarchives() {
    let s = setup(vec![]).await;
    let url = format!("{}/v1/threads/{}", s.base, s.thread);
    s.client
        .patch(&url)
        .json(&json!({"archived": true}))
        .send()
        .await
        .unwrap();
    let resumed: Value = s
        .client
        .post(format!("{url}/resume"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(resumed["archived"], false);
    // Resuming an active thread changes nothing and still answers 200.
    assert_eq!(
        s.client
            .post(format!("{url}/resume"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}
