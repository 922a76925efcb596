//! Compaction: automatic when a call's prompt reaches the configured
//! fraction of the context window, manual through `POST /compact`; either
//! way later model calls start from the recorded summary.

use crate::common;

use common::agent::setup_with_provider;
use mock_provider::{Chunk, Reply};
use protocol::{ItemKind, ThreadDetail, TurnItemRecord};
use serde_json::json;

/// A 1,000-token window compacting at 80%.
const SMALL_WINDOW: &str = "context_window = 1000\n[compaction]\nauto_fraction = 0.8";

fn read_call(prompt_tokens: u64) -> Reply {
    Reply::Stream {
        chunks: vec![
            Chunk::ToolCall {
                index: 0,
                id: Some("call_r".into()),
                name: Some("list_dir".into()),
                arguments: "{}".into(),
            },
            Chunk::Finish {
                reason: "tool_calls".into(),
            },
            Chunk::Usage {
                prompt_tokens,
                completion_tokens: 10,
                cached_tokens: 0,
                reasoning_tokens: 0,
            },
        ],
        delay_ms: 0,
    }
}

fn compaction_items(detail: &ThreadDetail) -> Vec<TurnItemRecord> {
    detail
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::ContextCompaction)
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_full_window_is_summarized_mid_turn_and_the_turn_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup_with_provider(SMALL_WINDOW, json!({ "workspace": dir.path() })).await;
    s.mock.push(Reply::text(&["earlier answer"]));
    let mut reader = s.events().await;
    s.start("earlier question").await;
    reader.until("turn.completed").await;
    s.mock.reset();

    s.mock.push(read_call(900)); // 910 >= 800: compact before the next call
    s.mock
        .push(Reply::text(&["SUMMARY-7Q: the user wants a listing."]));
    s.mock.push(Reply::text(&["Here is the listing."]));
    s.start("list the workspace").await;
    let done = reader.until("turn.completed").await;
    assert_eq!(done.completed_turn()["status"], "completed");

    let requests = s.mock.requests();
    assert_eq!(requests.len(), 3);
    // The summarizer got the transcript as text, without tools.
    let summarize = &requests[1];
    assert!(summarize.get("tools").is_none());
    let transcript = summarize["messages"][1]["content"].as_str().unwrap();
    assert!(transcript.contains("USER: earlier question"));
    assert!(transcript.contains("ASSISTANT: earlier answer"));
    // The call whose results are pending is kept, not summarized.
    assert!(!transcript.contains("[calls list_dir"));
    // The next call starts from the summary and keeps the prompt and the
    // tool call with its result.
    let next = requests[2]["messages"].as_array().unwrap();
    assert!(next[0]["content"].as_str().unwrap().contains("SUMMARY-7Q"));
    let roles: Vec<&str> = next.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool"]);
    assert_eq!(next[1]["content"], "list the workspace");
    assert!(!requests[2].to_string().contains("earlier question"));

    let snapshot = s.detail().await;
    let items = compaction_items(&snapshot);
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].status, protocol::ItemStatus::Completed);
    assert_eq!(items[0].metadata["auto"], true);
    assert_eq!(items[0].metadata["threshold"], 800);
    assert_eq!(items[0].metadata["tokens_before"], 910);
    assert!(items[0]
        .detail
        .as_deref()
        .unwrap()
        .starts_with("SUMMARY-7Q"));
    // Usage counts the summarizer's call too (3 calls × 100 or more).
    let usage = &snapshot.turns[1].usage;
    assert_eq!(usage.input_tokens, 900 + 100 + 100);

    // The next turn starts from the summary, not from the summarized prompt.
    s.mock.push(Reply::text(&["ok"]));
    s.start("thanks").await;
    reader.until("turn.completed").await;
    let first = s.mock.requests().pop().unwrap();
    let chat = first["messages"].to_string();
    assert!(chat.contains("SUMMARY-7Q") && chat.contains("thanks"));
    assert!(!chat.contains("list the workspace") && !chat.contains("earlier question"));
}

#[tokio::test]
async fn below_the_threshold_or_switched_off_nothing_is_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let off = "context_window = 1000\n[compaction]\nauto_fraction = 0";
    for (config, tokens) in [(SMALL_WINDOW, 500), (off, 5_000)] {
        let s = setup_with_provider(config, json!({ "workspace": dir.path() })).await;
        s.mock.push(read_call(tokens));
        s.mock.push(Reply::text(&["done"]));
        let mut reader = s.events().await;
        s.start("list").await;
        reader.until("turn.completed").await;
        assert_eq!(s.mock.requests().len(), 2, "{config}");
        assert!(compaction_items(&s.detail().await).is_empty());
    }
}

#[tokio::test]
async fn manual_compaction_summarizes_everything_and_later_turns_use_it() {
    let s = setup_with_provider("", json!({ "system_prompt": "Be terse." })).await;
    s.mock.push(Reply::text(&["The answer is 42."]));
    let mut reader = s.events().await;
    s.start("what is the answer?").await;
    reader.until("turn.completed").await;

    s.mock.push(Reply::text(&["SUMMARY-M1: answered 42."]));
    s.api.compact(&s.thread, json!({"reason": "tidy up"})).await;
    reader.until("turn.completed").await;
    let summarize = s.mock.requests().pop().unwrap();
    let text = summarize["messages"][1]["content"].as_str().unwrap();
    assert!(
        text.contains("USER: what is the answer?") && text.contains("ASSISTANT: The answer is 42.")
    );
    assert!(text.contains("tidy up"));
    let items = compaction_items(&s.detail().await);
    assert_eq!(items[0].metadata["auto"], false);

    s.mock.push(Reply::text(&["Still 42."]));
    s.start("and again?").await;
    reader.until("turn.completed").await;
    let next = s.mock.requests().pop().unwrap();
    let system = next["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("Be terse.") && system.contains("SUMMARY-M1"));
    assert_eq!(next["messages"].as_array().unwrap().len(), 2);
}

/// The user's answers reach the model but are stored nowhere; compaction
/// stores a summary, so the summarizer must not read them either.
#[tokio::test]
async fn answers_to_the_user_s_questions_stay_out_of_the_summary() {
    const SECRET: &str = "answer-compaction-9d41e";
    let dir = tempfile::tempdir().unwrap();
    let s = setup_with_provider(SMALL_WINDOW, json!({ "workspace": dir.path() })).await;
    let questions = json!({"questions": [
        {"id": "name", "question": "Project name?", "allow_free_text": true}
    ]});
    s.mock.push(Reply::Stream {
        chunks: vec![
            Chunk::ToolCall {
                index: 0,
                id: Some("call_q".into()),
                name: Some("request_user_input".into()),
                arguments: questions.to_string(),
            },
            Chunk::Finish {
                reason: "tool_calls".into(),
            },
        ],
        delay_ms: 0,
    });
    s.mock.push(read_call(900)); // sees the answer; then the window is full
    s.mock
        .push(Reply::text(&["SUMMARY-UI: the user chose a project name."]));
    s.mock.push(Reply::text(&["Set up."]));
    let mut reader = s.events().await;
    s.start("set up a project").await;
    let required = reader.payload("user_input.required").await;
    let input = required["id"].as_str().unwrap();
    let answer = json!({"answers": [{"id": "name", "label": "Other", "value": SECRET}]});
    s.api.answer_user_input(&s.thread, input, answer).await;
    let done = reader.until("turn.completed").await;
    assert_eq!(done.completed_turn()["status"], "completed");

    let requests = s.mock.requests();
    assert_eq!(requests.len(), 4);
    // The model's next call had the answer...
    assert!(requests[1]["messages"].to_string().contains(SECRET));
    // ...the summarizer read a placeholder where it was.
    let summarize = &requests[2];
    assert!(summarize.get("tools").is_none());
    assert!(!summarize.to_string().contains(SECRET));
    let transcript = summarize["messages"][1]["content"].as_str().unwrap();
    let withheld = codewhale::agent::compaction::WITHHELD_ANSWER;
    assert!(
        transcript.contains(&format!("TOOL: {withheld}")),
        "{transcript}"
    );
    assert!(transcript.contains("[calls request_user_input"));

    // Nothing stored holds it: the summary item, the events, the files.
    let raw = s.api.try_thread(&s.thread).await;
    assert!(!raw.text().contains(SECRET));
    let snapshot: ThreadDetail = serde_json::from_slice(&raw.body).unwrap();
    let items = compaction_items(&snapshot);
    assert_eq!(items.len(), 1);
    assert!(items[0]
        .detail
        .as_deref()
        .unwrap()
        .starts_with("SUMMARY-UI"));
    let replay = s.events().await.through(snapshot.latest_seq).await;
    for (_, event) in replay.iter() {
        assert!(!event.to_string().contains(SECRET), "{event}");
    }
    for file in std::fs::read_dir(s._h.home.path()).unwrap() {
        let raw = std::fs::read(file.unwrap().path()).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&raw).contains(SECRET));
    }
}

#[tokio::test]
async fn an_out_of_range_fraction_is_a_config_error() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[compaction]\nauto_fraction = 1.5\n",
    )
    .unwrap();
    let error = codewhale::config::Config::load(home.path()).unwrap_err();
    assert!(error.to_string().contains("auto_fraction"));
}
