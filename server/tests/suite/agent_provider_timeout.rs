//! A provider that stops streaming for longer than its configured idle
//! timeout fails the turn with a readable error item.

use crate::common;

use common::agent::setup_with_provider;
use mock_provider::{Chunk, Reply};
use serde_json::json;

#[tokio::test]
async fn a_stalled_stream_fails_after_the_configured_idle_timeout() {
    let s = setup_with_provider("idle_timeout_secs = 1", json!({})).await;
    // The first chunk comes at once, the next only after 3 s.
    s.mock.push(Reply::Stream {
        chunks: vec![
            Chunk::Text {
                text: "Thinking about".into(),
            },
            Chunk::Text { text: " it".into() },
            Chunk::Finish {
                reason: "stop".into(),
            },
        ],
        delay_ms: 3000,
    });
    let mut reader = s.events_from_now().await;
    let started = std::time::Instant::now();
    s.start("hello").await;
    let events = reader.until("turn.completed").await;
    let elapsed = started.elapsed();
    assert!(
        elapsed < std::time::Duration::from_millis(2900),
        "failed by the idle timeout, not the stream's end: {elapsed:?}"
    );

    let turn = events.completed_turn();
    assert_eq!(turn["status"], "failed");
    let error = turn["error"].as_str().unwrap();
    assert!(
        error.contains("mock stopped streaming: nothing for 1 s"),
        "{error}"
    );
    let item = events.completed_item("error");
    let detail = item["detail"].as_str().unwrap();
    assert!(
        detail.contains("nothing for 1 s") && detail.contains("idle_timeout_secs"),
        "{detail}"
    );
    // What had arrived before the stall is kept.
    assert_eq!(events.text("agent_message"), "Thinking about");
    assert_eq!(
        s.mock.requests().len(),
        1,
        "a stall mid-stream is not retried"
    );
}
