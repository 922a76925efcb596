//! Sessions through the real router and the real agent: a thread saved as
//! a session file (atomically, mode 0600), listed and searched, read whole,
//! resumed as a new thread whose next turn the model sees with the whole
//! conversation, and deleted; bad ids and files refused without harm.

use crate::common::agent::setup_in_workspace;
use mock_provider::Reply;
use serde_json::{json, Value};

fn ok(reply: crate::common::Reply, status: u16) -> Value {
    assert_eq!(reply.status, status, "{}", reply.text());
    reply.json()
}

#[tokio::test]
async fn a_thread_saved_as_a_session_comes_back_as_a_thread_that_continues() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let s = setup_in_workspace(
        &workspace,
        json!({"system_prompt": "You are terse.", "title": "Fix the parser"}),
    )
    .await;
    let home = s._h.home.path().to_path_buf();
    s.mock.push(Reply::text(&["First ", "answer."]));
    s.run("first question").await;
    s.mock.push(Reply::text(&["Second answer."]));
    s.run("second question").await;

    let saved = s
        .api
        .post(
            &format!("/v1/threads/{}/persist-session", s.thread),
            json!({"name": "parser work"}),
        )
        .await;
    let saved = ok(saved, 201);
    let id = saved["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("ses_"));
    assert_eq!(saved["name"], "parser work");
    assert_eq!(saved["title"], "Fix the parser");
    assert_eq!(saved["message_count"], 4);
    assert_eq!(saved["source_thread_id"], s.thread.as_str());
    let file = home.join("sessions").join(format!("{id}.json"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let detail = ok(s.api.get(&format!("/v1/sessions/{id}")).await, 200);
    assert_eq!(detail["system_prompt"], "You are terse.");
    let texts: Vec<&str> = detail["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "first question",
            "First answer.",
            "second question",
            "Second answer."
        ]
    );
    assert_eq!(detail["messages"][1]["role"], "assistant");

    let listed = ok(s.api.get("/v1/sessions?search=PARSER").await, 200);
    assert_eq!(listed["sessions"][0]["id"], id.as_str());
    let none = ok(s.api.get("/v1/sessions?search=nothing-like-it").await, 200);
    assert_eq!(none["sessions"], json!([]));

    // Resumed: a new thread with the conversation; its next turn's model
    // request carries all of it after the system prompt.
    let resumed = s
        .api
        .post_empty(&format!("/v1/sessions/{id}/resume-thread"))
        .await;
    let resumed = ok(resumed, 201);
    let thread = resumed["id"].as_str().unwrap().to_string();
    assert_ne!(thread, s.thread);
    assert_eq!(resumed["title"], "Fix the parser");
    assert_eq!(resumed["workspace"], workspace.to_str().unwrap());
    let snapshot = s.api.thread(&thread).await;
    assert_eq!(snapshot.turns.len(), 2);
    assert_eq!(snapshot.items.len(), 4);
    let before = s.mock.requests().len();
    s.mock.push(Reply::text(&["Third answer."]));
    let (_, events) = s
        .api
        .run_turn(&thread, json!({"prompt": "third question"}))
        .await;
    assert_eq!(events.completed_turn()["status"], "completed");
    let request = &s.mock.requests()[before];
    let chat: Vec<(String, String)> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(chat[0].0, "system");
    assert!(chat[0].1.starts_with("You are terse."));
    let rest: Vec<&str> = chat[1..].iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(
        rest,
        [
            "first question",
            "First answer.",
            "second question",
            "Second answer.",
            "third question"
        ]
    );

    let deleted = s
        .api
        .request(reqwest::Method::DELETE, &format!("/v1/sessions/{id}"), None)
        .await;
    assert_eq!(deleted.status, 204);
    assert!(!file.exists());
    assert_eq!(s.api.get(&format!("/v1/sessions/{id}")).await.status, 404);
}

#[tokio::test]
async fn bad_ids_and_files_are_refused_and_nothing_outside_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let s = setup_in_workspace(&workspace, json!({})).await;
    let home = s._h.home.path().to_path_buf();
    // An empty thread has nothing to save.
    let empty = s
        .api
        .post(
            &format!("/v1/threads/{}/persist-session", s.thread),
            json!({}),
        )
        .await;
    assert_eq!(empty.status, 409, "{}", empty.text());
    for id in [
        "..",
        "ses_x",
        "ses_..%2F..%2Fconfig",
        "thr_0000000000000000",
    ] {
        let reply = s.api.get(&format!("/v1/sessions/{id}")).await;
        assert_eq!(reply.status, 404, "{id}");
    }
    // A link in the sessions folder to a file outside is not followed; a
    // damaged file is skipped by the list and refused by a read.
    let sessions = home.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(workspace.join("outside.json"), r#"{"secret": 1}"#).unwrap();
    std::os::unix::fs::symlink(
        workspace.join("outside.json"),
        sessions.join("ses_linklinklinklinklink.json"),
    )
    .unwrap();
    std::fs::write(sessions.join("ses_brokenbrokenbroken.json"), "{").unwrap();
    let listed = s.api.get("/v1/sessions").await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json()["sessions"], json!([]));
    for id in ["ses_linklinklinklinklink", "ses_brokenbrokenbroken"] {
        let read = s.api.get(&format!("/v1/sessions/{id}")).await;
        assert_eq!(read.status, 409, "{id}: {}", read.text());
        let resumed = s
            .api
            .post_empty(&format!("/v1/sessions/{id}/resume-thread"))
            .await;
        assert_eq!(resumed.status, 409, "{id}");
    }
    assert_eq!(s.api.get("/v1/sessions?limit=0").await.status, 400);
    assert_eq!(s.api.get("/v1/sessions?limit=501").await.status, 400);
}
