//! Turns through the real router and a scripted engine: the state machine,
//! its records and its events.

use crate::common;

use codewhale::runtime::{Runtime, RuntimeOptions};
use common::{
    scripted::{pieces, Scripted, Step},
    Api, EventReader, Harness, Reply,
};
use protocol::{ThreadDetail, TurnStatus};
use serde_json::{json, Value};
use std::sync::Arc;

struct Setup {
    /// Owns the temporary CODEWHALE_HOME for the test's duration.
    _h: Harness,
    api: Api,
    thread: String,
}

async fn setup(steps: Vec<Step>) -> Setup {
    let h = Harness::with_engine(Scripted::new(steps)).await;
    let api = h.api().await;
    let thread = api.create_thread(json!({"title": "turns"})).await.id;
    Setup { _h: h, api, thread }
}

impl Setup {
    async fn start(&self, prompt: &str) -> Reply {
        let body = json!({ "prompt": prompt });
        self.api.try_start_turn(&self.thread, body).await
    }

    async fn events(&self) -> EventReader {
        self.api.events(&self.thread).await
    }

    async fn detail(&self) -> ThreadDetail {
        self.api.thread(&self.thread).await
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
    let started = s
        .api
        .start_turn(&s.thread, json!({"prompt": "  Say hello  "}))
        .await;
    assert_eq!(started.turn.status, TurnStatus::InProgress);
    assert_eq!(started.turn.input_summary, "Say hello");
    assert_eq!(started.thread.latest_turn_id, Some(started.turn.id.clone()));

    let events = reader.until("turn.completed").await;
    let names = events.names();
    assert_eq!(names[0], "thread.started");
    assert_eq!(
        &names[1..4],
        ["turn.started", "item.started", "item.completed"]
    );
    assert_eq!(names.last(), Some(&"turn.completed"));
    assert_eq!(events.text("agent_reasoning"), "thinking it over");
    assert_eq!(events.text("agent_message"), "Hello there, friend.");
    let (_, completed) = events.last().unwrap();
    assert_eq!(completed["payload"]["turn"]["status"], "completed");
    assert_eq!(completed["payload"]["turn"]["usage"]["input_tokens"], 120);
    assert_eq!(completed["payload"]["turn"]["usage"]["reasoning_tokens"], 7);

    let detail = s.detail().await;
    assert_eq!(detail.turns[0].status, TurnStatus::Completed);
    assert!(detail.turns[0].duration_ms.is_some());
    let kinds: Vec<&str> = detail.items.iter().map(|i| i.kind.as_str()).collect();
    assert_eq!(kinds, ["user_message", "agent_reasoning", "agent_message"]);
    assert_eq!(detail.items[0].detail.as_deref(), Some("Say hello"));
    assert_eq!(
        detail.items[2].detail.as_deref(),
        Some("Hello there, friend.")
    );
    assert_eq!(detail.items[2].status, protocol::ItemStatus::Completed);
    assert_eq!(completed["seq"], detail.latest_seq);
    assert_eq!(detail.thread.latest_turn_id, Some(started.turn.id));

    let summary = s.api.summary(&[]).await;
    assert_eq!(summary[0].latest_turn_status, Some(TurnStatus::Completed));
    assert_eq!(summary[0].preview.as_deref(), Some("Say hello"));
}

#[tokio::test]
async fn adjacent_deltas_are_coalesced_and_lose_nothing() {
    let parts: Vec<String> = (0..2000).map(|i| format!("{i} ")).collect();
    let expected: String = parts.concat();
    let s = setup(vec![Step::Say(parts)]).await;
    let mut reader = s.events().await;
    assert_eq!(s.start("count").await.status, 201);
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
    assert_eq!(s.detail().await.items[1].detail, Some(expected));
}

#[tokio::test]
async fn one_active_turn_per_thread_even_under_concurrency() {
    let s = setup(vec![Step::StreamUntilInterrupted]).await;
    let prompts: Vec<String> = (0..8).map(|i| format!("race {i}")).collect();
    let starts = prompts.iter().map(|p| s.start(p));
    let statuses: Vec<u16> = futures::future::join_all(starts)
        .await
        .iter()
        .map(|r| r.status.as_u16())
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
    assert_eq!(reply.status, 409);
    assert!(reply.error_message().contains("active turn"));
    assert_eq!(s.detail().await.turns.len(), 1);
}

#[tokio::test]
async fn steer_is_recorded_then_delivered() {
    let s = setup(vec![Step::AwaitSteer]).await;
    let mut reader = s.events().await;
    let started = s.start("wait for me").await.json();
    let turn = started["turn"]["id"].as_str().unwrap();
    let (api, thread) = (&s.api, s.thread.as_str());

    let empty = api.try_steer(thread, turn, json!({"prompt": " "})).await;
    assert_eq!(empty.status, 400);
    let steered = api
        .try_steer(thread, turn, json!({"prompt": "go left"}))
        .await;
    assert_eq!(steered.json()["steer_count"], 1);

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
    assert_eq!(events.all_text(), "steered: go left");
    assert_eq!(
        events.last().unwrap().1["payload"]["turn"]["steer_count"],
        1
    );

    // Finished turn: 409. Unknown turn: 404. Malformed: 400.
    let late = api
        .try_steer(thread, turn, json!({"prompt": "too late"}))
        .await;
    assert_eq!(late.status, 409);
    let unknown = api
        .try_steer(thread, "turn_00000000", json!({"prompt": "x"}))
        .await;
    assert_eq!(unknown.status, 404);
    let malformed = api.try_steer(thread, "nope", json!({"prompt": "x"})).await;
    assert_eq!(malformed.status, 400);
}

#[tokio::test]
async fn interrupt_ends_the_turn_and_its_open_items() {
    let s = setup(vec![Step::StreamUntilInterrupted]).await;
    let mut reader = s.events().await;
    let started = s.start("go on forever").await.json();
    let turn = started["turn"]["id"].as_str().unwrap();
    reader.until("item.delta").await;
    let reply = s.api.try_interrupt(&s.thread, turn).await;
    assert_eq!(reply.status, 200);
    let events = reader.until("turn.completed").await;
    let names = events.names();
    assert!(names.contains(&"turn.interrupt_requested"), "{names:?}");
    assert!(names.contains(&"item.interrupted"), "{names:?}");
    assert_eq!(
        events.last().unwrap().1["payload"]["turn"]["status"],
        "interrupted"
    );
    assert_eq!(s.api.try_interrupt(&s.thread, turn).await.status, 409);
    // The thread is free again.
    assert_eq!(s.start("again").await.status, 201);
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
        assert_eq!(s.start("try").await.status, 201);
        let events = reader.until("turn.completed").await;
        let turn = &events.last().unwrap().1["payload"]["turn"];
        assert_eq!(turn["status"], "failed");
        assert_eq!(turn["error"], error);
    }
}

#[tokio::test]
async fn compaction_runs_as_a_turn() {
    let s = setup(vec![Step::Say(pieces("summary of the conversation"))]).await;
    let started = s
        .api
        .compact(&s.thread, json!({"reason": "too long"}))
        .await;
    assert_eq!(started.turn.input_summary, "Compact: too long");
    let bare = s.api.try_compact(&s.thread, None).await;
    assert!(bare.status == 202 || bare.status == 409, "{}", bare.status);
}

#[tokio::test]
async fn turn_requests_are_validated() {
    let s = setup(vec![]).await;
    for body in [
        json!({}),
        json!({"prompt": ""}),
        json!({"prompt": 5}),
        json!({"prompt": "x", "mode": "turbo"}),
        json!({"prompt": "x", "model": ""}),
        json!({"prompt": "x", "extra": 1}),
    ] {
        let reply = s.api.try_start_turn(&s.thread, &body).await;
        assert_eq!(reply.status, 400, "{body}");
    }
    let unknown = s
        .api
        .try_start_turn("thr_0000000000000000", json!({"prompt": "x"}))
        .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(s.detail().await.turns, vec![]);
}

#[tokio::test]
async fn without_a_provider_a_turn_is_refused_and_nothing_is_written() {
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = api.create_thread(json!({})).await.id;
    let before = api.try_thread(&id).await.json();
    let reply = api.try_start_turn(&id, json!({"prompt": "hi"})).await;
    assert_eq!(reply.status, 409);
    assert!(reply.error_message().contains("DEEPSEEK_API_KEY"));
    let after = api.try_thread(&id).await.json();
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
        clock: Default::default(),
        sub_agents: Default::default(),
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
    // Wait until the engine has said its piece (the message item is open
    // and the engine hangs): a sleep here raced the turn's setup under load.
    let mut frames = before
        .subscribe(
            &thread.id,
            codewhale::runtime::stream::Cursor {
                since_seq: 0,
                replay_limit: None,
            },
        )
        .await
        .unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(frame) = frames.recv().await {
            if frame.event == "item.delta" && frame.data.contains("half ") {
                return;
            }
        }
        panic!("the stream ended before the message's delta");
    })
    .await
    .expect("the message's delta arrives");
    drop(frames);
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
    assert_eq!(s.start("question").await.status, 201);
    reader.until("turn.completed").await;

    let fork = s.api.fork(&s.thread).await;
    assert_ne!(fork.id, s.thread);
    assert_eq!(fork.title.as_deref(), Some("turns (fork)"));

    let detail = s.api.thread(&fork.id).await;
    let source = s.detail().await;
    assert_eq!(detail.turns.len(), 1);
    assert_ne!(detail.turns[0].id, source.turns[0].id);
    assert_eq!(
        detail.thread.latest_turn_id,
        Some(detail.turns[0].id.clone())
    );
    let texts = |d: &ThreadDetail| -> Vec<Option<String>> {
        d.items.iter().map(|i| i.detail.clone()).collect()
    };
    assert_eq!(texts(&detail), texts(&source));

    let mut fork_reader = s.api.events(&fork.id).await;
    let (_, name, event) = fork_reader.next().await;
    assert_eq!(name, "thread.forked");
    assert_eq!(event["payload"]["source_thread_id"], s.thread);

    let missing = s.api.try_fork("thr_0000000000000000").await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn resume_unarchives() {
    let s = setup(vec![]).await;
    s.api
        .try_patch_thread(&s.thread, json!({"archived": true}))
        .await;
    let resumed = s.api.try_resume(&s.thread).await.json();
    assert_eq!(resumed["archived"], false);
    // Resuming an active thread changes nothing and still answers 200.
    assert_eq!(s.api.try_resume(&s.thread).await.status, 200);
}
