//! The model-backed engine against the scripted mock provider, over real
//! HTTP and SSE on both sides: streaming, reasoning, usage, retries, error
//! classification, steer and interrupt.

mod common;

use common::agent::{setup, text};
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
        text(&events, "agent_reasoning"),
        "The user greets; greet back."
    );
    assert_eq!(text(&events, "agent_message"), "Hello, world!");
    let turn = &events.last().unwrap().1["payload"]["turn"];
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
    assert_eq!(text(&events, "agent_message"), "made it");
    assert_eq!(
        events.last().unwrap().1["payload"]["turn"]["status"],
        "completed"
    );
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
    let turn = &events.last().unwrap().1["payload"]["turn"];
    assert_eq!(turn["status"], "failed");
    assert!(
        turn["error"]
            .as_str()
            .unwrap()
            .contains("rejected the API key"),
        "{turn}"
    );
    let error_item = events
        .iter()
        .find(|(n, e)| n == "item.completed" && e["payload"]["item"]["kind"] == "error")
        .expect("a readable error item");
    assert!(error_item.1["payload"]["item"]["detail"]
        .as_str()
        .unwrap()
        .contains("HTTP 401"));
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
    let turn = &events.last().unwrap().1["payload"]["turn"];
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
    loop {
        if reader.next().await.1 == "item.delta" {
            break;
        }
    }
    let turn = started["turn"]["id"].as_str().unwrap();
    let asked = std::time::Instant::now();
    let reply = s
        .client
        .post(format!(
            "{}/v1/threads/{}/turns/{turn}/interrupt",
            s.base, s.thread
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let events = reader.until("turn.completed").await;
    assert!(
        asked.elapsed() < std::time::Duration::from_secs(1),
        "stopped within 1 s"
    );
    assert_eq!(
        events.last().unwrap().1["payload"]["turn"]["status"],
        "interrupted"
    );
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
    loop {
        if reader.next().await.1 == "item.delta" {
            break;
        }
    }
    let turn = started["turn"]["id"].as_str().unwrap();
    let reply = s
        .client
        .post(format!(
            "{}/v1/threads/{}/turns/{turn}/steer",
            s.base, s.thread
        ))
        .json(&json!({"prompt": "go left instead"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let events = reader.until("turn.completed").await;
    assert_eq!(
        events.last().unwrap().1["payload"]["turn"]["status"],
        "completed"
    );
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    let last = requests[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last, json!({"role": "user", "content": "go left instead"}));
    assert!(text(&events, "agent_message").ends_with("ok, going left"));
}

/// A turn may pick another provider than its thread's; an unknown one is
/// refused before anything is written.
#[tokio::test]
async fn a_turn_can_override_the_provider() {
    let s = common::agent::setup_with(json!({ "model_provider": "nowhere" })).await;
    let url = format!("{}/v1/threads/{}/turns", s.base, s.thread);
    let refused = s
        .client
        .post(&url)
        .json(&json!({ "prompt": "hi" }))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    let message = refused.json::<Value>().await.unwrap()["error"]["message"].clone();
    assert!(message.as_str().unwrap().contains("[providers.nowhere]"));

    s.mock.push(Reply::text(&["hello from mock"]));
    let mut reader = s.events().await;
    let started = s
        .client
        .post(&url)
        .json(&json!({ "prompt": "hi", "model_provider": "mock" }))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), 201);
    let turn: Value = started.json().await.unwrap();
    assert_eq!(turn["turn"]["effective_provider"], "mock");
    let events = reader.until("turn.completed").await;
    assert_eq!(text(&events, "agent_message"), "hello from mock");
}
