//! Snapshots, restore, undo, retry, edit-last-turn and fork-at-message,
//! through the real agent, the mock provider and real files: round trips in
//! a git repository and in a plain directory, compare-and-swap refusals,
//! undo then redo, the conversation the model receives afterwards, and
//! restores that must not follow a symlink out of the workspace.

use crate::common::{self, git};

use common::agent::{setup_in_workspace, tool_call as call, Setup};
use mock_provider::Reply;
use serde_json::{json, Value};
use std::path::Path;

fn read(dir: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(name)).ok()
}

fn git_repo(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["config", "user.email", "t@example.com"]);
    git(dir, &["config", "user.name", "t"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "init"]);
}

async fn setup(dir: &Path) -> Setup {
    setup_in_workspace(dir, json!({"auto_approve": true, "allow_shell": true})).await
}

/// One turn that writes `a.txt` and creates `dir/new.txt`.
async fn editing_turn(s: &Setup, prompt: &str) -> Value {
    s.mock.push(call(
        "write_file",
        json!({"path": "a.txt", "content": "two\n"}),
    ));
    s.mock.push(call(
        "write_file",
        json!({"path": "dir/new.txt", "content": "new\n"}),
    ));
    s.mock.push(Reply::text(&["done"]));
    let events = s.run(prompt).await;
    events.find("turn.completed")["payload"]["turn"].clone()
}

async fn snapshots(s: &Setup) -> Vec<Value> {
    let reply = s
        .api
        .get(&format!("/v1/threads/{}/snapshots", s.thread))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json().as_array().unwrap().clone()
}

async fn restore(s: &Setup, snapshot: &str) -> common::Reply {
    let path = format!("/v1/threads/{}/snapshots/restore", s.thread);
    s.api.post(&path, json!({"snapshot_id": snapshot})).await
}

fn id_of(snapshots: &[Value], kind: &str) -> String {
    snapshots
        .iter()
        .find(|s| s["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {snapshots:?}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn round_trip(dir: &Path) {
    let s = setup(dir).await;
    let turn = editing_turn(&s, "edit").await;
    assert_eq!(read(dir, "a.txt").as_deref(), Some("two\n"));
    let list = snapshots(&s).await;
    let kinds: Vec<&str> = list.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["post_turn", "pre_turn"], "newest first");
    assert_eq!(list[1]["turn_id"], turn["id"]);
    assert_eq!(
        list[1]["label"],
        format!("pre-turn:{}", turn["id"].as_str().unwrap())
    );
    assert!(list[0]["timestamp"].as_i64().unwrap() > 1_700_000_000);

    let mut reader = s.events_from_now().await;
    let reply = restore(&s, &id_of(&list, "pre_turn")).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let restored = reply.json();
    assert_eq!(read(dir, "a.txt").as_deref(), Some("one\n"));
    assert!(
        !dir.join("dir").exists(),
        "the directory the turn made is gone"
    );
    let mut files: Vec<(String, String)> = restored["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["change"].as_str().unwrap().into(),
            )
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            ("a.txt".to_string(), "modified".to_string()),
            ("dir/new.txt".to_string(), "deleted".to_string())
        ]
    );
    let event = reader.payload("workspace.restored").await;
    assert_eq!(event["restored"], restored);

    // Restoring is undoable: `before` puts the turn's files back.
    let before = restored["before"].as_str().unwrap();
    let again = restore(&s, before).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(read(dir, "a.txt").as_deref(), Some("two\n"));
    assert_eq!(read(dir, "dir/new.txt").as_deref(), Some("new\n"));
    let global = s.api.get("/v1/snapshots?limit=2").await.json();
    assert_eq!(global.as_array().unwrap().len(), 2);
    assert_eq!(global[0]["kind"], "restore");
}

#[tokio::test]
async fn snapshots_round_trip_in_a_git_repository_without_touching_its_index() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    std::fs::write(dir.path().join(".gitignore"), "ignored/\n").unwrap();
    std::fs::create_dir(dir.path().join("ignored")).unwrap();
    std::fs::write(dir.path().join("ignored/big.bin"), "never snapshotted").unwrap();
    git_repo(dir.path());
    let index = std::fs::read(dir.path().join(".git/index")).unwrap();
    let refs = git(dir.path(), &["for-each-ref"]);
    round_trip(dir.path()).await;
    assert_eq!(std::fs::read(dir.path().join(".git/index")).unwrap(), index);
    assert_eq!(git(dir.path(), &["for-each-ref"]), refs);
    assert_eq!(git(dir.path(), &["stash", "list"]), "");
    assert_eq!(
        read(dir.path(), "ignored/big.bin").as_deref(),
        Some("never snapshotted")
    );
}

#[tokio::test]
async fn snapshots_round_trip_in_a_plain_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    round_trip(dir.path()).await;
    assert!(!dir.path().join(".git").exists());
}

#[tokio::test]
async fn a_restore_refuses_paths_changed_since_the_last_snapshot_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.txt"), "one\n").unwrap();
    std::fs::write(d.join("b.txt"), "bee\n").unwrap();
    let s = setup(d).await;
    editing_turn(&s, "edit").await;
    let pre = id_of(&snapshots(&s).await, "pre_turn");

    // The person edits a file the turn changed: the restore refuses.
    std::fs::write(d.join("a.txt"), "mine\n").unwrap();
    let refused = restore(&s, &pre).await;
    assert_eq!(refused.status, 409, "{}", refused.text());
    let body = refused.json();
    assert_eq!(body["error"]["conflicts"], json!(["a.txt"]));
    assert!(body["error"]["message"].as_str().unwrap().contains("a.txt"));
    assert_eq!(read(d, "a.txt").as_deref(), Some("mine\n"));
    assert_eq!(
        read(d, "dir/new.txt").as_deref(),
        Some("new\n"),
        "nothing restored"
    );
    let undo = s
        .api
        .post_empty(&format!("/v1/threads/{}/undo", s.thread))
        .await;
    assert_eq!(undo.status, 409, "undo uses the same check");
    assert!(s.detail().await.turns[0].undone_at.is_none());

    // Put back as recorded, and edit a file the turn did not touch: a full
    // restore would overwrite it and refuses; undo (what the turn changed)
    // goes ahead and keeps it.
    std::fs::write(d.join("a.txt"), "two\n").unwrap();
    std::fs::write(d.join("b.txt"), "edited by hand\n").unwrap();
    let full = restore(&s, &pre).await;
    assert_eq!(full.status, 409);
    assert_eq!(full.json()["error"]["conflicts"], json!(["b.txt"]));
    let undo = s
        .api
        .post_empty(&format!("/v1/threads/{}/undo", s.thread))
        .await;
    assert_eq!(undo.status, 200, "{}", undo.text());
    assert_eq!(read(d, "a.txt").as_deref(), Some("one\n"));
    assert_eq!(read(d, "b.txt").as_deref(), Some("edited by hand\n"));
    // The hand edit was recorded before the restore, so it can come back.
    let kinds: Vec<String> = snapshots(&s)
        .await
        .iter()
        .map(|s| s["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["restore", "pre_restore", "post_turn", "pre_turn"]);
}

#[tokio::test]
async fn undo_takes_back_files_and_conversation_and_restore_redoes_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.txt"), "one\n").unwrap();
    let s = setup(d).await;
    s.mock.push(Reply::text(&["hello"]));
    s.run("first question").await;
    editing_turn(&s, "second question").await;

    let mut reader = s.events_from_now().await;
    let reply = s
        .api
        .post_empty(&format!("/v1/threads/{}/undo", s.thread))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let undone = reply.json();
    assert_eq!(read(d, "a.txt").as_deref(), Some("one\n"));
    assert!(!d.join("dir/new.txt").exists());
    assert!(undone["turn"]["undone_at"].is_string());
    assert_eq!(reader.payload("turn.undone").await["turn"], undone["turn"]);
    let detail = s.detail().await;
    assert!(detail.turns[1].undone_at.is_some() && detail.turns[0].undone_at.is_none());

    // The model no longer sees the undone turn.
    s.mock.push(Reply::text(&["ok"]));
    s.run("third question").await;
    let sent = s.mock.requests().last().unwrap()["messages"].to_string();
    assert!(sent.contains("first question") && sent.contains("third question"));
    assert!(!sent.contains("second question"), "{sent}");

    // Redo: restoring what was there before the undo brings the files back.
    let before = undone["restored"]["before"].as_str().unwrap();
    assert_eq!(restore(&s, before).await.status, 200);
    assert_eq!(read(d, "a.txt").as_deref(), Some("two\n"));

    // Undo twice more: the third turn (no files), then the first.
    for _ in 0..2 {
        let r = s
            .api
            .post_empty(&format!("/v1/threads/{}/undo", s.thread))
            .await;
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(
            r.json()["restored"].is_null(),
            "those turns changed no files"
        );
    }
    let nothing = s
        .api
        .post_empty(&format!("/v1/threads/{}/undo", s.thread))
        .await;
    assert_eq!(nothing.status, 409);
    assert!(nothing.error_message().contains("no turn to undo"));
}

#[tokio::test]
async fn retry_and_edit_send_the_conversation_without_the_turn_they_replace() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path()).await;
    s.mock.push(Reply::text(&["one answer"]));
    s.run("the question").await;

    s.mock.push(Reply::text(&["another answer"]));
    let mut reader = s.events_from_now().await;
    let path = format!("/v1/threads/{}/retry", s.thread);
    let reply = s.api.post(&path, json!({"model": "mock-large"})).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let rerun = reply.json();
    assert!(rerun["undone"]["turn"]["undone_at"].is_string());
    reader.until("turn.completed").await;
    let request = s.mock.requests().last().unwrap().clone();
    assert_eq!(request["model"], "mock-large");
    let roles: Vec<(&str, &str)> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap(),
                m["content"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(roles, [("user", "the question")], "the old answer is gone");

    s.mock.push(Reply::text(&["edited answer"]));
    let mut reader = s.events_from_now().await;
    let path = format!("/v1/threads/{}/edit-last-turn", s.thread);
    let reply = s
        .api
        .post(&path, json!({"prompt": "a better question"}))
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    reader.until("turn.completed").await;
    let sent = s.mock.requests().last().unwrap()["messages"].clone();
    assert_eq!(
        sent,
        json!([{"role": "user", "content": "a better question"}])
    );
    let turns = s.detail().await.turns;
    let undone: Vec<bool> = turns.iter().map(|t| t.undone_at.is_some()).collect();
    assert_eq!(undone, [true, true, false]);

    // Refusals change nothing.
    let blank = s.api.post(&path, json!({"prompt": "  "})).await;
    assert_eq!(blank.status, 400);
    assert!(s.detail().await.turns[2].undone_at.is_none());
}

#[tokio::test]
async fn fork_at_a_user_message_ends_before_it_with_the_workspace_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.txt"), "one\n").unwrap();
    let s = setup(d).await;
    editing_turn(&s, "first").await;
    s.mock.push(Reply::text(&["just talk"]));
    s.run("second").await;
    let items = s.detail().await.items;
    let message = |text: &str| {
        items
            .iter()
            .find(|i| i.detail.as_deref() == Some(text))
            .unwrap()
            .id
            .clone()
    };
    let path = format!("/v1/threads/{}/fork-at-user-message", s.thread);

    let at_second = s
        .api
        .post(&path, json!({"item_id": message("second")}))
        .await;
    assert_eq!(at_second.status, 201, "{}", at_second.text());
    let forked = at_second.json();
    let fork_id = forked["thread"]["id"].as_str().unwrap();
    let detail = s.api.thread(fork_id).await;
    let texts: Vec<&str> = detail
        .items
        .iter()
        .filter_map(|i| i.detail.as_deref())
        .collect();
    assert!(
        texts.contains(&"first") && !texts.contains(&"second"),
        "{texts:?}"
    );
    assert_eq!(forked["snapshot"]["kind"], "fork_point");

    let at_first = s
        .api
        .post(&path, json!({"item_id": message("first")}))
        .await
        .json();
    let fork_id = at_first["thread"]["id"].as_str().unwrap();
    assert!(s.api.thread(fork_id).await.items.is_empty());
    let snapshot = at_first["snapshot"]["id"].as_str().unwrap();
    let listed = s
        .api
        .get(&format!("/v1/threads/{fork_id}/snapshots"))
        .await
        .json();
    assert_eq!(listed[0]["id"], snapshot);
    let restore_path = format!("/v1/threads/{fork_id}/snapshots/restore");
    let back = s
        .api
        .post(&restore_path, json!({"snapshot_id": snapshot}))
        .await;
    assert_eq!(back.status, 200, "{}", back.text());
    assert_eq!(
        read(d, "a.txt").as_deref(),
        Some("one\n"),
        "as it was before `first`"
    );

    let agent_message = items
        .iter()
        .find(|i| i.detail.as_deref() == Some("just talk"))
        .unwrap();
    let refused = s
        .api
        .post(&path, json!({"item_id": agent_message.id}))
        .await;
    assert_eq!(refused.status, 409);
    let unknown = s.api.post(&path, json!({"item_id": "item_0000"})).await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn a_restore_never_follows_a_symlink_out_of_the_workspace() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("dir")).unwrap();
    std::fs::write(d.join("dir/file.txt"), "inside\n").unwrap();
    let s = setup(d).await;
    // The turn swaps the directory for a link to a directory outside.
    let command = format!(
        "rm -rf dir && ln -s {} dir && ln -s /etc/passwd pw",
        outside.path().display()
    );
    s.mock.push(call("exec_shell", json!({"command": command})));
    s.mock.push(Reply::text(&["swapped"]));
    s.run("swap").await;
    assert!(d.join("dir").is_symlink());

    let undo = s
        .api
        .post_empty(&format!("/v1/threads/{}/undo", s.thread))
        .await;
    assert_eq!(undo.status, 200, "{}", undo.text());
    assert!(!d.join("dir").is_symlink(), "the link itself was replaced");
    assert_eq!(read(d, "dir/file.txt").as_deref(), Some("inside\n"));
    assert!(!d.join("pw").exists() && !d.join("pw").is_symlink());
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing written outside"
    );

    // And back: the links come back as links, their targets untouched.
    let before = undo.json()["restored"]["before"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(restore(&s, &before).await.status, 200);
    assert_eq!(
        std::fs::read_link(d.join("pw")).unwrap(),
        Path::new("/etc/passwd")
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[tokio::test]
async fn refusals_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let s = setup(dir.path()).await;
    let t = &s.thread;
    let api = &s.api;
    assert_eq!(api.get("/v1/snapshots?limit=0").await.status, 400);
    assert_eq!(api.get("/v1/snapshots?limit=101").await.status, 400);
    assert_eq!(api.get("/v1/snapshots?limit=100").await.status, 200);
    let restore_path = format!("/v1/threads/{t}/snapshots/restore");
    let bad = api
        .post(&restore_path, json!({"snapshot_id": "nope"}))
        .await;
    assert_eq!(bad.status, 400);
    let unknown = api
        .post(&restore_path, json!({"snapshot_id": "snap_00"}))
        .await;
    assert_eq!(unknown.status, 404);
    let none = api.post_empty(&format!("/v1/threads/{t}/undo")).await;
    assert_eq!(none.status, 409);
    let retry = api.post(&format!("/v1/threads/{t}/retry"), json!({})).await;
    assert_eq!(retry.status, 409);
    assert_eq!(api.post_empty("/v1/threads/thr_00/undo").await.status, 404);

    // A snapshot of another workspace cannot be restored here.
    std::fs::write(other.path().join("x"), "x").unwrap();
    let elsewhere = api
        .create_thread(json!({"workspace": other.path(), "auto_approve": true}))
        .await
        .id;
    s.mock
        .push(call("write_file", json!({"path": "x", "content": "y"})));
    s.mock.push(Reply::text(&["done"]));
    api.run_turn(&elsewhere, json!({"prompt": "edit"})).await;
    let theirs = api
        .get(&format!("/v1/threads/{elsewhere}/snapshots"))
        .await
        .json();
    let foreign = id_of(theirs.as_array().unwrap(), "pre_turn");
    let refused = api
        .post(&restore_path, json!({"snapshot_id": foreign}))
        .await;
    assert_eq!(refused.status, 409);
    assert!(refused.error_message().contains("another workspace"));

    // Without credentials, nothing.
    let anonymous = reqwest::Client::new();
    let response = anonymous
        .post(api.url(&format!("/v1/threads/{t}/undo")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let response = anonymous
        .get(api.url("/v1/snapshots"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn no_restore_while_another_threads_turn_runs_in_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    let s = setup(dir.path()).await;
    editing_turn(&s, "edit").await;
    // A second thread in the same workspace waits on an approval to write.
    let other = s
        .api
        .create_thread(json!({"workspace": dir.path()}))
        .await
        .id;
    s.mock.push(call(
        "write_file",
        json!({"path": "a.txt", "content": "other\n"}),
    ));
    s.mock.push(Reply::text(&["ok"]));
    let mut reader = s.api.events_from_now(&other).await;
    s.api.start_turn(&other, json!({"prompt": "write"})).await;
    let required = reader.payload("approval.required").await;

    let pre = id_of(&snapshots(&s).await, "pre_turn");
    let undo = s
        .api
        .post_empty(&format!("/v1/threads/{}/undo", s.thread))
        .await;
    let restore = restore(&s, &pre).await;
    for reply in [undo, restore] {
        assert_eq!(reply.status, 409, "{}", reply.text());
        assert!(
            reply
                .text()
                .contains(&format!("thread {other} is running a turn")),
            "{}",
            reply.text()
        );
    }
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("two\n"));

    // Once it ends, undo works.
    let approval = required["approval_id"].as_str().unwrap();
    s.api
        .try_decide_approval(approval, json!({"decision": "deny"}))
        .await;
    reader.until("turn.completed").await;
    let undo = s
        .api
        .post_empty(&format!("/v1/threads/{}/undo", s.thread))
        .await;
    assert_eq!(undo.status, 200, "{}", undo.text());
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("one\n"));
}
