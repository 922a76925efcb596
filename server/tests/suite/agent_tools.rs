//! Workspace tools called by a (mock) model: results reach the model, every
//! call is a tool_call item, and nothing outside the workspace is readable.

use crate::common;

use common::{
    agent::{setup_in, Setup},
    Events,
};
use mock_provider::{Chunk, Reply};
use serde_json::{json, Value};

/// A reply that calls `name` with `arguments`, split across chunks the way
/// providers stream them.
fn tool_call(name: &str, arguments: Value) -> Reply {
    let args = arguments.to_string();
    let (a, b) = args.split_at(args.len() / 2);
    Reply::Stream {
        chunks: vec![
            Chunk::Reasoning {
                text: "I should look.".into(),
            },
            Chunk::ToolCall {
                index: 0,
                id: Some("call_1".into()),
                name: Some(name.into()),
                arguments: String::new(),
            },
            Chunk::ToolCall {
                index: 0,
                id: None,
                name: None,
                arguments: a.into(),
            },
            Chunk::ToolCall {
                index: 0,
                id: None,
                name: None,
                arguments: b.into(),
            },
            Chunk::Finish {
                reason: "tool_calls".into(),
            },
        ],
        delay_ms: 0,
    }
}

/// Runs one turn in which the model calls one tool, then answers; returns
/// (the tool item, what the model was sent back, all events).
async fn one_call(s: &Setup, name: &str, arguments: Value) -> (Value, Value, Events) {
    s.mock.push(tool_call(name, arguments));
    s.mock.push(Reply::text(&["done"]));
    let events = s.run("please use the tool").await;
    let item = events.last_item("tool_call");
    let requests = s.mock.requests();
    let second = requests.last().unwrap()["messages"].clone();
    (item, second, events)
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn answer() -> u32 { 42 }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("blob.bin"), [0u8, 1, 2, 3, 0, 9]).unwrap();
    std::fs::write(dir.path().join(".gitignore"), "ignored/\n").unwrap();
    std::fs::create_dir(dir.path().join("ignored")).unwrap();
    std::fs::write(dir.path().join("ignored/secret.rs"), "pub fn answer() {}\n").unwrap();
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    dir
}

#[tokio::test]
async fn read_file_result_reaches_the_model_and_the_transcript() {
    let ws = workspace();
    let s = setup_in(None, Some(ws.path())).await;
    let (item, messages, events) = one_call(
        &s,
        "read_file",
        json!({"path": "notes.txt", "start_line": 2, "end_line": 3}),
    )
    .await;
    assert_eq!(item["status"], "completed");
    assert_eq!(item["summary"], "read_file notes.txt");
    assert_eq!(item["metadata"]["tool"], "read_file");
    assert!(item["detail"].as_str().unwrap().contains("beta"));
    assert!(!item["detail"].as_str().unwrap().contains("alpha"));
    // The second request replays the assistant's call (with DeepSeek's
    // reasoning_content) and carries the tool's output.
    let n = messages.as_array().unwrap().len();
    let assistant = &messages[n - 2];
    assert_eq!(assistant["tool_calls"][0]["function"]["name"], "read_file");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        json!({"path": "notes.txt", "start_line": 2, "end_line": 3}).to_string()
    );
    assert_eq!(assistant["reasoning_content"], "I should look.");
    let tool = &messages[n - 1];
    assert_eq!(tool["role"], "tool");
    assert_eq!(tool["tool_call_id"], "call_1");
    assert!(tool["content"].as_str().unwrap().contains("     2\tbeta"));
    assert_eq!(events.text("agent_message"), "done");
    assert_eq!(events.completed_turn()["status"], "completed");
}

#[tokio::test]
async fn escapes_are_refused() {
    let ws = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("private.txt"), "top secret").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("private.txt"),
        ws.path().join("link.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.path().join("linkdir")).unwrap();
    let s = setup_in(None, Some(ws.path())).await;
    let escape = format!(
        "../{}/private.txt",
        outside.path().file_name().unwrap().to_str().unwrap()
    );
    for (tool, args) in [
        ("read_file", json!({"path": escape})),
        (
            "read_file",
            json!({"path": outside.path().join("private.txt")}),
        ),
        ("read_file", json!({"path": "link.txt"})),
        ("list_dir", json!({"path": "linkdir"})),
        (
            "grep_files",
            json!({"pattern": "secret", "path": "linkdir"}),
        ),
    ] {
        let (item, messages, _) = one_call(&s, tool, args.clone()).await;
        assert_eq!(item["status"], "failed", "{tool} {args}");
        let detail = item["detail"].as_str().unwrap();
        assert!(
            detail.contains("outside the workspace"),
            "{tool} {args}: {detail}"
        );
        let sent = messages.as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            sent.starts_with("error:") && !sent.contains("top secret"),
            "{sent}"
        );
    }
}

#[tokio::test]
async fn binary_missing_and_bad_arguments_fail_readably() {
    let ws = workspace();
    let s = setup_in(None, Some(ws.path())).await;
    for (tool, args, expected) in [
        ("read_file", json!({"path": "blob.bin"}), "binary"),
        ("read_file", json!({"path": "nope.txt"}), "no such file"),
        ("read_file", json!({}), "missing string argument"),
        ("grep_files", json!({"pattern": "("}), "invalid pattern"),
        ("no_such_tool", json!({}), "unknown tool"),
    ] {
        let (item, _, _) = one_call(&s, tool, args).await;
        assert_eq!(item["status"], "failed");
        assert!(
            item["detail"].as_str().unwrap().contains(expected),
            "{tool}: {}",
            item["detail"]
        );
    }
}

#[tokio::test]
async fn huge_files_need_a_line_range() {
    let ws = workspace();
    let big: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(ws.path().join("big.txt"), big).unwrap();
    let s = setup_in(None, Some(ws.path())).await;
    let (item, _, _) = one_call(&s, "read_file", json!({"path": "big.txt"})).await;
    assert_eq!(item["status"], "failed");
    assert!(item["detail"].as_str().unwrap().contains("line range"));
    let (item, _, _) = one_call(
        &s,
        "read_file",
        json!({"path": "big.txt", "start_line": 100, "end_line": 101}),
    )
    .await;
    assert_eq!(item["detail"], "   100\tline 99\n   101\tline 100\n");
}

#[tokio::test]
async fn search_honours_gitignore() {
    let ws = workspace();
    let s = setup_in(None, Some(ws.path())).await;
    let (item, _, _) = one_call(&s, "grep_files", json!({"pattern": "fn answer"})).await;
    let found = item["detail"].as_str().unwrap();
    assert!(found.contains("src/lib.rs:1:"), "{found}");
    assert!(!found.contains("ignored/"), "{found}");
    let (item, _, _) = one_call(&s, "file_search", json!({"pattern": "**/*.rs"})).await;
    assert_eq!(item["detail"], "src/lib.rs");
    let (item, _, _) = one_call(&s, "list_dir", json!({})).await;
    let listing = item["detail"].as_str().unwrap();
    assert!(
        listing.contains("src/") && listing.contains("notes.txt"),
        "{listing}"
    );
    let (item, _, _) = one_call(&s, "git_status", json!({})).await;
    assert_eq!(item["status"], "completed");
    assert!(item["detail"].as_str().unwrap().contains("notes.txt"));
}
