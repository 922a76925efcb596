//! `codewhale exec` end to end: the real binary, a temp CODEWHALE_HOME, and
//! the mock provider over HTTP.

use mock_provider::{Chunk, Mock, Reply};
use serde_json::Value;
use std::process::Command;

async fn home_with_mock() -> (tempfile::TempDir, Mock) {
    let mock = Mock::default();
    let url = mock.serve(0).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!("[providers.mock]\nbase_url = \"{url}\"\nmodels = [\"mock-1\"]\n"),
    )
    .unwrap();
    (home, mock)
}

fn exec(
    home: &std::path::Path,
    workspace: &std::path::Path,
    args: &[&str],
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codewhale"))
        .arg("exec")
        .args(["--provider", "mock", "--workspace"])
        .arg(workspace)
        .args(args)
        .env("CODEWHALE_HOME", home)
        .output()
        .unwrap()
}

#[tokio::test]
async fn text_mode_prints_the_answer_and_exits_0() {
    let (home, mock) = home_with_mock().await;
    mock.push(Reply::text(&["The answer ", "is 42."]));
    let workspace = tempfile::tempdir().unwrap();
    let out = tokio::task::spawn_blocking({
        let (home, ws) = (home.path().to_path_buf(), workspace.path().to_path_buf());
        move || exec(&home, &ws, &["what", "is", "it?"])
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "The answer is 42.\n");
    assert_eq!(mock.requests()[0]["messages"][0]["content"], "what is it?");
    assert_eq!(mock.requests()[0]["model"], "mock-1");
}

#[tokio::test]
async fn stream_json_prints_every_envelope_and_failures_exit_1() {
    let (home, mock) = home_with_mock().await;
    mock.push(Reply::Stream {
        chunks: vec![
            Chunk::ToolCall {
                index: 0,
                id: Some("c1".into()),
                name: Some("write_file".into()),
                arguments: "{\"path\":\"x.txt\",\"content\":\"x\"}".into(),
            },
            Chunk::Finish {
                reason: "tool_calls".into(),
            },
        ],
        delay_ms: 0,
    });
    mock.push(Reply::Error {
        status: 401,
        message: "bad key".into(),
    });
    let workspace = tempfile::tempdir().unwrap();
    let out = tokio::task::spawn_blocking({
        let (home, ws) = (home.path().to_path_buf(), workspace.path().to_path_buf());
        move || exec(&home, &ws, &["--output-format", "stream-json", "write x"])
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON envelope per line"))
        .collect();
    let names: Vec<&str> = lines.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(names.first(), Some(&"thread.started"));
    assert_eq!(names.last(), Some(&"turn.completed"));
    // Headless without --auto-approve: the write was denied, not done.
    assert!(names.contains(&"approval.timeout"));
    assert!(!workspace.path().join("x.txt").exists());
    assert_eq!(lines.last().unwrap()["payload"]["turn"]["status"], "failed");
}
