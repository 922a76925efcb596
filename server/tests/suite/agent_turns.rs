//! The model-backed engine against the scripted mock provider, over real
//! HTTP and SSE on both sides: streaming, reasoning, usage, retries, error
//! classification, steer and interrupt.

use crate::common;

use common::agent::setup;
use mock_provider::{Chunk, Reply};
use serde_json::{json, Value};

#[tokio::test]
async fn streams_reasoning_and_answer_with_usage() {
    let s = setup(Some("You are terse.")).await;
    s.mock.push(Reply::Stream {
        chunks: vec![
            Chunk::Reasoning {
                text: "The user greets; ".into(),
            },
            Chunk::Reasoning {
                text: "greet back.".into(),
            },
            Chunk::Text {
                text: "Hello".into(),
            },
            Chunk::Text {
                text: ", world!".into(),
            },
            Chunk::Finish {
                reason: "stop".into(),
            },
            Chunk::Usage {
                prompt_tokens: 50,
                completion_tokens: 9,
                cached_tokens: 32,
                reasoning_tokens: 5,
            },
        ],
        delay_ms: 2,
    });
    let mut reader = s.events().await;
    s.start("hi there").await;
    let events = reader.until("turn.completed").await;
    assert_eq!(
        events.text("agent_reasoning"),
        "The user greets; greet back."
    );
    assert_eq!(events.text("agent_message"), "Hello, world!");
    let turn = events.completed_turn();
    assert_eq!(turn["status"], "completed");
    assert_eq!(
        turn["usage"],
        json!({"input_tokens": 50, "output_tokens": 9, "cached_tokens": 32, "reasoning_tokens": 5})
    );

    let request = &s.mock.requests()[0];
    assert_eq!(request["model"], "mock-large");
    assert_eq!(request["stream"], true);
    assert_eq!(request["stream_options"]["include_usage"], true);
    assert_eq!(
        request["messages"],
        json!([{"role": "system", "content": "You are terse."}, {"role": "user", "content": "hi there"}])
    );

    // The next turn carries the conversation so far.
    s.mock.push(Reply::text(&["again"]));
    s.start("once more").await;
    reader.until("turn.completed").await;
    let roles: Vec<Value> = s.mock.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(
        roles,
        [
            json!("system"),
            json!("user"),
            json!("assistant"),
            json!("user")
        ]
    );
}

#[tokio::test]
async fn overloaded_then_success_is_retried() {
    let s = setup(None).await;
    s.mock.push(Reply::Error {
        status: 429,
        message: "slow down".into(),
    });
    s.mock.push(Reply::Error {
        status: 503,
        message: "busy".into(),
    });
    s.mock.push(Reply::text(&["made it"]));
    let mut reader = s.events().await;
    s.start("try hard").await;
    let events = reader.until("turn.completed").await;
    assert_eq!(events.text("agent_message"), "made it");
    assert_eq!(events.completed_turn()["status"], "completed");
    assert_eq!(s.mock.requests().len(), 3);
}

#[tokio::test]
async fn authentication_failures_are_not_retried_and_say_why() {
    let s = setup(None).await;
    s.mock.push(Reply::Error {
        status: 401,
        message: "bad key".into(),
    });
    let mut reader = s.events().await;
    s.start("hello").await;
    let events = reader.until("turn.completed").await;
    let turn = events.completed_turn();
    assert_eq!(turn["status"], "failed");
    assert!(
        turn["error"]
            .as_str()
            .unwrap()
            .contains("rejected the API key"),
        "{turn}"
    );
    let error_item = events.completed_item("error");
    assert!(error_item["detail"].as_str().unwrap().contains("HTTP 401"));
    assert_eq!(s.mock.requests().len(), 1, "not retried");
}

#[tokio::test]
async fn a_bad_request_fails_with_the_provider_message() {
    let s = setup(None).await;
    s.mock.push(Reply::Error {
        status: 400,
        message: "model does not exist".into(),
    });
    let mut reader = s.events().await;
    s.start("hello").await;
    let events = reader.until("turn.completed").await;
    let turn = events.completed_turn();
    assert_eq!(turn["status"], "failed");
    assert!(turn["error"]
        .as_str()
        .unwrap()
        .contains("model does not exist"));
}

#[tokio::test]
async fn interrupt_stops_a_slow_stream() {
    let s = setup(None).await;
    let chunks = (0..500)
        .map(|i| Chunk::Text {
            text: format!("{i} "),
        })
        .collect();
    s.mock.push(Reply::Stream {
        chunks,
        delay_ms: 20,
    });
    let mut reader = s.events().await;
    let started = s.start("count slowly").await;
    reader.until("item.delta").await;
    let asked = std::time::Instant::now();
    s.api.interrupt(&s.thread, &started.turn.id).await;
    let events = reader.until("turn.completed").await;
    assert!(
        asked.elapsed() < std::time::Duration::from_secs(1),
        "stopped within 1 s"
    );
    assert_eq!(events.completed_turn()["status"], "interrupted");
    assert!(events.iter().any(|(n, _)| n == "item.interrupted"));
}

#[tokio::test]
async fn a_steer_reaches_the_model_before_its_next_call() {
    let s = setup(None).await;
    let chunks = (0..40)
        .map(|i| Chunk::Text {
            text: format!("{i} "),
        })
        .collect();
    s.mock.push(Reply::Stream {
        chunks,
        delay_ms: 15,
    });
    s.mock.push(Reply::text(&["ok, ", "going left"]));
    let mut reader = s.events().await;
    let started = s.start("walk").await;
    reader.until("item.delta").await;
    let steer = json!({"prompt": "go left instead"});
    s.api.steer(&s.thread, &started.turn.id, steer).await;
    let events = reader.until("turn.completed").await;
    assert_eq!(events.completed_turn()["status"], "completed");
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    let last = requests[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last, json!({"role": "user", "content": "go left instead"}));
    assert!(events.text("agent_message").ends_with("ok, going left"));
}

/// A turn may pick another provider than its thread's; an unknown one is
/// refused (a conflict with the configuration, 409) before anything is
/// written.
#[tokio::test]
async fn a_turn_can_override_the_provider() {
    let s = common::agent::setup_with(json!({ "model_provider": "nowhere" })).await;
    let refused = s
        .api
        .try_start_turn(&s.thread, json!({ "prompt": "hi" }))
        .await;
    assert_eq!(refused.status, 409);
    assert!(refused.error_message().contains("[providers.nowhere]"));

    s.mock.push(Reply::text(&["hello from mock"]));
    let mut reader = s.events().await;
    let body = json!({ "prompt": "hi", "model_provider": "mock" });
    let turn = s.api.start_turn(&s.thread, body).await;
    assert_eq!(turn.turn.effective_provider.as_deref(), Some("mock"));
    let events = reader.until("turn.completed").await;
    assert_eq!(events.text("agent_message"), "hello from mock");
}
