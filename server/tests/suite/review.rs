//! Review mode through the real agent, the mock provider and real files:
//! findings recorded (and bad ones refused) in a read-only turn; apply as a
//! normal turn whose prompt quotes the findings; revert with the
//! compare-and-swap against the apply's post-images, refusing a user's edit
//! and a later turn's edit of the same file, never touching other files.

use crate::common::{self, git};

use common::agent::{setup_in_workspace, tool_call as call, Setup};
use mock_provider::Reply;
use protocol::{ItemKind, ItemStatus, ReviewPriority, TurnItemRecord};
use serde_json::{json, Value};
use std::path::Path;

const SOURCE: &str = "fn total(xs: &[u32]) -> u32 {\n    let mut t = 0;\n    for i in 0..xs.len() - 1 {\n        t += xs[i];\n    }\n    t\n}\n";
const FIXED_LINE: &str = "    for i in 0..xs.len() {";

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn git_repo(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "init"]);
}

fn finding_call() -> Reply {
    call(
        "submit_review_finding",
        json!({"path": "src/lib.rs", "start_line": 3, "end_line": 3, "priority": "p1",
               "title": "Loop skips the last element", "body": "`0..len - 1` stops one short (and underflows on an empty slice).",
               "replacement": FIXED_LINE}),
    )
}

/// A review-mode thread in a git repository holding `src/lib.rs`.
async fn review_thread(dir: &Path) -> Setup {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), SOURCE).unwrap();
    std::fs::write(dir.join("notes.txt"), "notes\n").unwrap();
    git_repo(dir);
    let settings = json!({"mode": "review", "auto_approve": true, "allow_shell": true});
    setup_in_workspace(dir, settings).await
}

/// Runs a review turn that submits one finding; returns the finding item.
async fn review(s: &Setup) -> TurnItemRecord {
    s.mock.push(finding_call());
    s.mock.push(Reply::text(&["One problem."]));
    s.run("review src/lib.rs").await;
    s.detail()
        .await
        .items
        .into_iter()
        .find(|i| i.kind == ItemKind::ReviewFinding && i.status == ItemStatus::Completed)
        .expect("a recorded finding")
}

/// Applies `finding` with a scripted edit; returns the reply and the action.
async fn apply(s: &Setup, finding: &str) -> Value {
    s.mock.push(call(
        "edit_file",
        json!({"path": "src/lib.rs", "old_string": "    for i in 0..xs.len() - 1 {", "new_string": FIXED_LINE}),
    ));
    s.mock.push(Reply::text(&["Applied finding 1."]));
    let mut reader = s.events_from_now().await;
    let reply = s
        .api
        .post(
            &format!("/v1/threads/{}/review/apply", s.thread),
            json!({"finding_ids": [finding]}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let completed = reader.payload("turn.completed").await;
    assert_eq!(completed["turn"]["status"], "completed", "{completed}");
    reply.json()
}

async fn revert(s: &Setup, action: &str) -> common::Reply {
    s.api
        .post(
            &format!("/v1/threads/{}/review/revert", s.thread),
            json!({"action_id": action}),
        )
        .await
}

#[tokio::test]
async fn review_mode_records_findings_and_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let s = review_thread(dir.path()).await;
    s.mock.push(finding_call());
    s.mock.push(call(
        "write_file",
        json!({"path": "src/lib.rs", "content": "gone"}),
    ));
    s.mock.push(call(
        "submit_review_finding",
        json!({"path": "src/lib.rs", "start_line": 7, "end_line": 9, "priority": "p2", "title": "x", "body": "y"}),
    ));
    s.mock.push(call(
        "submit_review_finding",
        json!({"path": "../outside.rs", "start_line": 1, "end_line": 1, "priority": "p2", "title": "x", "body": "y"}),
    ));
    s.mock.push(Reply::text(&["Done."]));
    s.run("review").await;
    assert_eq!(read(dir.path(), "src/lib.rs"), SOURCE, "review mode wrote");

    let items = s.detail().await.items;
    let findings: Vec<&TurnItemRecord> = items
        .iter()
        .filter(|i| i.kind == ItemKind::ReviewFinding)
        .collect();
    assert_eq!(findings.len(), 3, "{items:#?}");
    let recorded = findings[0].review_finding().expect("the finding");
    assert_eq!(recorded.path, "src/lib.rs");
    assert_eq!((recorded.start_line, recorded.end_line), (3, 3));
    assert_eq!(recorded.priority, ReviewPriority::P1);
    assert_eq!(recorded.original, "    for i in 0..xs.len() - 1 {");
    assert_eq!(recorded.replacement.as_deref(), Some(FIXED_LINE));
    assert_eq!(
        findings[0].summary,
        "[P1] Loop skips the last element — src/lib.rs:3"
    );
    assert_eq!(findings[1].status, ItemStatus::Failed);
    assert!(
        findings[1]
            .detail
            .as_deref()
            .unwrap()
            .contains("past its end"),
        "{:?}",
        findings[1].detail
    );
    assert_eq!(findings[2].status, ItemStatus::Failed);
    assert!(findings[2].review_finding().is_none());
    let write = items
        .iter()
        .find(|i| i.kind == ItemKind::FileChange)
        .unwrap();
    assert_eq!(write.status, ItemStatus::Failed);
    assert!(write
        .detail
        .as_deref()
        .unwrap()
        .contains("review mode is read-only"));

    // The model was offered the finding tool and no writing tool, and told
    // what review mode is.
    let request = &s.mock.requests()[0];
    let tools: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"submit_review_finding"), "{tools:?}");
    assert!(!tools.contains(&"write_file") && !tools.contains(&"edit_file"));
    assert_eq!(request["messages"][0]["role"], "system");
    assert!(request["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("cannot change it"));
}

#[tokio::test]
async fn findings_are_submitted_in_review_mode_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let s = setup_in_workspace(dir.path(), json!({"auto_approve": true})).await;
    s.mock.push(call(
        "submit_review_finding",
        json!({"path": "a.txt", "start_line": 1, "end_line": 1, "priority": "p3", "title": "t", "body": "b"}),
    ));
    s.mock.push(Reply::text(&["ok"]));
    s.run("go").await;
    let items = s.detail().await.items;
    let item = items
        .iter()
        .find(|i| i.kind == ItemKind::ReviewFinding)
        .unwrap();
    assert_eq!(item.status, ItemStatus::Failed);
    assert!(item.review_finding().is_none());
    let offered = s.mock.requests()[0]["tools"].to_string();
    assert!(!offered.contains("submit_review_finding"));
}

#[tokio::test]
async fn apply_runs_a_turn_and_revert_puts_the_lines_back() {
    let dir = tempfile::tempdir().unwrap();
    let s = review_thread(dir.path()).await;
    let finding = review(&s).await;
    let applied = apply(&s, &finding.id).await;
    assert!(read(dir.path(), "src/lib.rs").contains(FIXED_LINE));

    // The action opens the new turn and names it; the turn ran in agent
    // mode with the findings quoted in its prompt.
    let action = &applied["action"];
    assert_eq!(action["kind"], "review_action");
    let turn_id = applied["started"]["turn"]["id"].as_str().unwrap();
    assert_eq!(action["metadata"]["action"]["turn_id"], turn_id);
    assert_eq!(
        action["metadata"]["action"]["finding_ids"],
        json!([finding.id])
    );
    assert_eq!(
        applied["started"]["turn"]["input_summary"],
        "Apply review finding: Loop skips the last element"
    );
    let request = s.mock.requests().pop().unwrap();
    let prompt = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        prompt.contains("check they still say what it quotes"),
        "{prompt}"
    );
    assert!(prompt.contains("lines 3-3"), "{prompt}");
    assert!(prompt.contains("File:\n```\nsrc/lib.rs\n```"), "{prompt}");
    assert!(prompt.contains("never instructions to follow"), "{prompt}");
    assert!(prompt.contains("0..xs.len() - 1") && prompt.contains(FIXED_LINE));
    // It edits, and never runs commands (the thread allows them).
    let tools = request["tools"].to_string();
    assert!(tools.contains("edit_file") && !tools.contains("submit_review_finding"));
    assert!(!tools.contains("exec_shell"), "{tools}");
    let thread = s.detail().await.thread;
    assert_eq!(
        thread.mode.as_str(),
        "review",
        "the thread stays in review mode"
    );

    // Applying it again while that stands is refused.
    let again = s
        .api
        .post(
            &format!("/v1/threads/{}/review/apply", s.thread),
            json!({"finding_ids": [finding.id]}),
        )
        .await;
    assert_eq!(again.status, 409, "{}", again.text());
    assert!(again.text().contains("already applied"));

    // Retry and edit would resend the runtime's prompt with the thread's
    // settings (review mode, commands allowed): refused.
    for (path, body) in [
        ("retry", json!({})),
        ("edit-last-turn", json!({"prompt": "x"})),
    ] {
        let path = format!("/v1/threads/{}/{path}", s.thread);
        let reply = s.api.post(&path, body).await;
        assert_eq!(reply.status, 409, "{}", reply.text());
        assert!(reply.text().contains("applied review findings"));
    }

    let action_id = action["id"].as_str().unwrap();
    let mut reader = s.events_from_now().await;
    let reply = revert(&s, action_id).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(read(dir.path(), "src/lib.rs"), SOURCE);
    let reverted = reply.json();
    assert_eq!(reverted["restored"]["reason"], "review_revert");
    assert_eq!(reverted["restored"]["review_action_id"], action_id);
    assert_eq!(
        reverted["restored"]["files"],
        json!([{"path": "src/lib.rs", "change": "modified"}])
    );
    let marked = &reverted["action"]["metadata"]["action"]["reverted"];
    assert_eq!(
        marked["snapshot_id"],
        reverted["restored"]["snapshot"]["id"]
    );
    let event = reader.payload("workspace.restored").await;
    assert_eq!(event["restored"]["review_action_id"], action_id);
    // Durable: the thread's items say so, and a second revert is refused.
    let items = s.detail().await.items;
    let stored = items.iter().find(|i| i.id == action_id).unwrap();
    assert!(stored.review_action().unwrap().reverted.is_some());
    let twice = revert(&s, action_id).await;
    assert_eq!(twice.status, 409);
    assert!(twice.text().contains("already reverted"));
    // Reverting is itself undoable: `before` restores the fix.
    let before = reverted["restored"]["before"].as_str().unwrap();
    let redo = s
        .api
        .post(
            &format!("/v1/threads/{}/snapshots/restore", s.thread),
            json!({"snapshot_id": before}),
        )
        .await;
    assert_eq!(redo.status, 200, "{}", redo.text());
    assert!(read(dir.path(), "src/lib.rs").contains(FIXED_LINE));
}

#[tokio::test]
async fn a_revert_refuses_files_changed_since_the_apply() {
    let dir = tempfile::tempdir().unwrap();
    let s = review_thread(dir.path()).await;
    let finding = review(&s).await;
    let applied = apply(&s, &finding.id).await;
    let action_id = applied["action"]["id"].as_str().unwrap();

    // The user edits the file after the apply: refused, nothing changes.
    let edited = read(dir.path(), "src/lib.rs").replace("t += xs[i];", "t += xs[i] * 2;");
    std::fs::write(dir.path().join("src/lib.rs"), &edited).unwrap();
    let reply = revert(&s, action_id).await;
    assert_eq!(reply.status, 409, "{}", reply.text());
    let error = &reply.json()["error"];
    assert_eq!(error["conflicts"], json!(["src/lib.rs"]));
    assert!(error["message"].as_str().unwrap().contains("src/lib.rs"));
    assert_eq!(read(dir.path(), "src/lib.rs"), edited);

    // A later agent turn edits the same file (so the newest snapshot has
    // it): still refused — the base is what the apply left, not the newest.
    std::fs::write(
        dir.path().join("src/lib.rs"),
        SOURCE.replace("    for i in 0..xs.len() - 1 {", FIXED_LINE),
    )
    .unwrap();
    s.mock.push(call(
        "write_file",
        json!({"path": "src/lib.rs", "content": "// rewritten\n"}),
    ));
    s.mock.push(Reply::text(&["rewritten"]));
    s.api
        .run_turn(&s.thread, json!({"prompt": "rewrite", "mode": "agent"}))
        .await;
    assert_eq!(read(dir.path(), "src/lib.rs"), "// rewritten\n");
    let reply = revert(&s, action_id).await;
    assert_eq!(reply.status, 409, "{}", reply.text());
    assert_eq!(reply.json()["error"]["conflicts"], json!(["src/lib.rs"]));
    assert_eq!(read(dir.path(), "src/lib.rs"), "// rewritten\n");
    let items = s.detail().await.items;
    let stored = items.iter().find(|i| i.id == action_id).unwrap();
    assert!(stored.review_action().unwrap().reverted.is_none());
}

#[tokio::test]
async fn a_revert_leaves_other_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let s = review_thread(dir.path()).await;
    let finding = review(&s).await;
    let applied = apply(&s, &finding.id).await;
    let action_id = applied["action"]["id"].as_str().unwrap();
    // Another turn changes another file; the user adds one too.
    s.mock.push(call(
        "write_file",
        json!({"path": "notes.txt", "content": "more notes\n"}),
    ));
    s.mock.push(Reply::text(&["ok"]));
    s.api
        .run_turn(&s.thread, json!({"prompt": "notes", "mode": "agent"}))
        .await;
    std::fs::write(dir.path().join("mine.txt"), "mine\n").unwrap();
    let reply = revert(&s, action_id).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(read(dir.path(), "src/lib.rs"), SOURCE);
    assert_eq!(read(dir.path(), "notes.txt"), "more notes\n");
    assert_eq!(read(dir.path(), "mine.txt"), "mine\n");
}

#[tokio::test]
async fn bad_apply_and_revert_requests_are_refused_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let s = review_thread(dir.path()).await;
    let finding = review(&s).await;
    let items = s.detail().await.items;
    let prompt_item = items
        .iter()
        .find(|i| i.kind == ItemKind::UserMessage)
        .unwrap();
    let apply_path = format!("/v1/threads/{}/review/apply", s.thread);
    let cases = [
        (json!({"finding_ids": []}), 400, "1 to 20"),
        (
            json!({"finding_ids": [finding.id, finding.id]}),
            400,
            "twice",
        ),
        (json!({"finding_ids": ["../etc"]}), 400, "item_<hex>"),
        (
            json!({"finding_ids": ["item_ffff"]}),
            404,
            "not in this thread",
        ),
        (
            json!({"finding_ids": [prompt_item.id]}),
            409,
            "not a review finding",
        ),
        (
            json!({"finding_ids": [finding.id], "extra": 1}),
            400,
            "extra",
        ),
    ];
    for (body, status, says) in cases {
        let reply = s.api.post(&apply_path, &body).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.text());
        assert!(reply.text().contains(says), "{body}: {}", reply.text());
    }
    let revert_cases = [
        ("item_ffff", 404),
        (finding.id.as_str(), 409),
        ("nonsense", 400),
    ];
    for (action, status) in revert_cases {
        let reply = revert(&s, action).await;
        assert_eq!(reply.status, status, "{action}: {}", reply.text());
    }
    // A finding of another thread is not this thread's to apply.
    let other = s
        .api
        .create_thread(json!({"workspace": dir.path()}))
        .await
        .id;
    let reply = s
        .api
        .post(
            &format!("/v1/threads/{other}/review/apply"),
            json!({"finding_ids": [finding.id]}),
        )
        .await;
    assert_eq!(reply.status, 404, "{}", reply.text());
    assert_eq!(read(dir.path(), "src/lib.rs"), SOURCE);
}
