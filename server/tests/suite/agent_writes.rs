//! Writes and commands: approvals (allow, deny, remember, timeout, auto),
//! file_change diffs, command output, secrets kept out of commands, and
//! interrupting a running command.

use crate::common;

use common::agent::{setup_in_workspace as setup, tool_call as call};
use mock_provider::Reply;
use serde_json::json;

#[tokio::test]
async fn auto_approved_write_records_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path(), json!({"auto_approve": true})).await;
    s.mock.push(call(
        "write_file",
        json!({"path": "src/new.txt", "content": "one\ntwo\n"}),
    ));
    s.mock.push(Reply::text(&["written"]));
    let events = s.run("make a file").await;
    assert_eq!(events.find("approval.decided")["payload"]["auto"], true);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/new.txt")).unwrap(),
        "one\ntwo\n"
    );
    let item = events.last_item("file_change");
    assert_eq!(item["status"], "completed");
    let diff = item["metadata"]["diff"].as_str().unwrap();
    assert!(
        diff.contains("+++ b/src/new.txt") && diff.contains("+two"),
        "{diff}"
    );
    assert_eq!(item["metadata"]["added"], 2);
}

#[tokio::test]
async fn allow_deny_and_the_snapshot_while_pending() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello world\n").unwrap();
    let s = setup(dir.path(), json!({})).await;
    s.mock.push(call(
        "edit_file",
        json!({"path": "a.txt", "old_string": "world", "new_string": "there"}),
    ));
    s.mock.push(Reply::text(&["edited"]));
    let mut reader = s.events_from_now().await;
    s.start("edit it").await;
    let required = reader.until("approval.required").await.pop().unwrap().1;
    let approval = required["payload"]["approval_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(required["payload"]["tool_name"], "edit_file");
    assert_eq!(required["payload"]["description"], "Edit a.txt");
    // A client arriving now sees the pending approval in the snapshot.
    let detail = s.detail().await;
    assert_eq!(detail.pending_approvals[0]["approval_id"], approval);
    assert!(detail.latest_seq >= required["seq"].as_i64().unwrap());

    let (allow, maybe) = (json!({"decision": "allow"}), json!({"decision": "maybe"}));
    let maybe = s.api.try_decide_approval(&approval, maybe).await;
    assert_eq!(maybe.status, 400);
    let ok = s.api.try_decide_approval(&approval, &allow).await.json();
    assert_eq!(ok["delivered"], true);
    let again = s.api.try_decide_approval(&approval, &allow).await;
    assert_eq!(again.status, 404, "settled");
    let unknown = s.api.try_decide_approval("appr_0000", &allow).await;
    assert_eq!(unknown.status, 404);
    let events = reader.until("turn.completed").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "hello there\n"
    );
    assert_eq!(events.last_item("file_change")["status"], "completed");

    // Now deny: nothing changes and the model is told.
    s.mock.push(call(
        "write_file",
        json!({"path": "a.txt", "content": "clobbered"}),
    ));
    s.mock.push(Reply::text(&["ok, not writing"]));
    let mut reader = s.events_from_now().await;
    s.start("overwrite it").await;
    let required = reader.payload("approval.required").await;
    let approval = required["approval_id"].as_str().unwrap();
    s.api
        .try_decide_approval(approval, json!({"decision": "deny"}))
        .await;
    let events = reader.until("turn.completed").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "hello there\n"
    );
    let item = events.last_item("file_change");
    assert_eq!(item["status"], "failed");
    assert_eq!(item["detail"], "the user denied this action");
    let told = s.mock.requests().last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(told["content"], "error: the user denied this action");
}

#[tokio::test]
async fn remember_turns_on_auto_approve_for_the_thread() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path(), json!({})).await;
    s.mock
        .push(call("write_file", json!({"path": "x.txt", "content": "1"})));
    s.mock.push(Reply::text(&["ok"]));
    let mut reader = s.events_from_now().await;
    s.start("write").await;
    let required = reader.payload("approval.required").await;
    let approval = required["approval_id"].as_str().unwrap();
    let remember = json!({"decision": "allow", "remember": true});
    s.api.try_decide_approval(approval, remember).await;
    let events = reader.until("turn.completed").await;
    // (The first prompt's title is a thread.updated of its own.)
    let updated = events
        .payloads("thread.updated")
        .into_iter()
        .find(|p| p["changed"] == json!(["auto_approve"]))
        .expect("remembering updates the thread");
    assert_eq!(updated["thread"]["auto_approve"], true);

    s.mock
        .push(call("write_file", json!({"path": "y.txt", "content": "2"})));
    s.mock.push(Reply::text(&["ok"]));
    let events = s.run("write again").await;
    assert_eq!(events.find("approval.decided")["payload"]["auto"], true);
    assert!(dir.path().join("y.txt").exists());
}

/// "Remember" takes effect at once: the same turn's next write is
/// approved automatically.
#[tokio::test]
async fn remember_applies_to_the_running_turn() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path(), json!({})).await;
    s.mock
        .push(call("write_file", json!({"path": "a.txt", "content": "1"})));
    s.mock
        .push(call("write_file", json!({"path": "b.txt", "content": "2"})));
    s.mock.push(Reply::text(&["both written"]));
    let mut reader = s.events_from_now().await;
    s.start("write two files").await;
    let required = reader.payload("approval.required").await;
    let id = required["approval_id"].as_str().unwrap();
    let remember = json!({"decision": "allow", "remember": true});
    s.api.try_decide_approval(id, remember).await;
    let events = reader.until("turn.completed").await;
    let decided = events.payloads("approval.decided");
    assert_eq!(decided.len(), 2, "the user's, then the automatic one");
    assert_eq!(decided[1]["auto"], true);
    assert!(dir.path().join("b.txt").exists());
}

#[tokio::test]
async fn an_unanswered_approval_times_out_as_a_denial() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path(), json!({})).await;
    s.mock
        .push(call("exec_shell", json!({"command": "touch ran"})));
    s.mock.push(Reply::text(&["never mind"]));
    let events = s.run("run it").await;
    let names = events.names();
    let timeout = names
        .iter()
        .position(|n| *n == "approval.timeout")
        .expect("approval.timeout");
    assert_eq!(names[timeout + 1], "approval.decided");
    assert_eq!(
        events[timeout + 1].1["payload"],
        json!({"approval_id": events[timeout].1["payload"]["approval_id"], "decision": "deny", "timeout": true})
    );
    assert!(!dir.path().join("ran").exists());
}

#[tokio::test]
async fn shell_output_exit_code_and_no_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path(), json!({"auto_approve": true})).await;
    // Visible to this (server) process; must not reach the command.
    std::env::set_var("CODEWHALE_TEST_SERVICE_API_KEY", "sk-should-not-leak");
    s.mock.push(call("exec_shell", json!({"command": "echo out; echo err >&2; echo \"key=${CODEWHALE_TEST_SERVICE_API_KEY:-none}\"; pwd; exit 3"})));
    s.mock.push(Reply::text(&["ran"]));
    let events = s.run("run").await;
    let item = events.last_item("command_execution");
    let output = item["detail"].as_str().unwrap();
    assert!(output.contains("out") && output.contains("err"), "{output}");
    assert!(output.contains("key=none"), "{output}");
    assert!(!output.contains("sk-should-not-leak"));
    assert!(
        output.contains(dir.path().canonicalize().unwrap().to_str().unwrap()),
        "cwd is the workspace: {output}"
    );
    assert!(output.ends_with("[exit code 3]"), "{output}");
    assert_eq!(item["metadata"]["exit_code"], 3);
    assert_eq!(
        item["summary"],
        format!(
            "exec_shell {}",
            item["metadata"]["command"].as_str().unwrap()
        )
    );
}

#[tokio::test]
async fn interrupt_kills_a_running_command() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path(), json!({"auto_approve": true})).await;
    s.mock.push(call(
        "exec_shell",
        json!({"command": "echo $$ > pid; sleep 30; touch finished"}),
    ));
    let mut reader = s.events_from_now().await;
    let started = s.start("wait").await;
    reader.until("item.started").await; // the user message
    reader.until("approval.decided").await;
    let pid_file = dir.path().join("pid");
    for _ in 0..100 {
        if pid_file.exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    let asked = std::time::Instant::now();
    s.api.try_interrupt(&s.thread, &started.turn.id).await;
    let events = reader.until("turn.completed").await;
    assert!(asked.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(events.completed_turn()["status"], "interrupted");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the command's process is gone"
    );
}

#[tokio::test]
async fn plan_mode_no_shell_and_ambiguous_edits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dup.txt"), "x x\n").unwrap();
    let cases = [
        (
            json!({"mode": "plan", "auto_approve": true}),
            call("write_file", json!({"path": "p.txt", "content": "1"})),
            "plan mode is read-only",
        ),
        (
            json!({"allow_shell": false, "auto_approve": true}),
            call("exec_shell", json!({"command": "true"})),
            "shell commands are disabled",
        ),
        (
            json!({"auto_approve": true}),
            call(
                "edit_file",
                json!({"path": "dup.txt", "old_string": "x", "new_string": "y"}),
            ),
            "occurs 2 times",
        ),
        (
            json!({"auto_approve": true}),
            call(
                "write_file",
                json!({"path": "../escape.txt", "content": "1"}),
            ),
            "outside the workspace",
        ),
    ];
    for (settings, reply, expected) in cases {
        let s = setup(dir.path(), settings.clone()).await;
        s.mock.push(reply);
        s.mock.push(Reply::text(&["ok"]));
        let events = s.run("try").await;
        let item = events
            .iter()
            .rev()
            .find(|(n, _)| n == "item.failed")
            .map(|(_, e)| e["payload"]["item"].clone())
            .unwrap_or_else(|| panic!("{settings}: no failed item"));
        assert!(
            item["detail"].as_str().unwrap().contains(expected),
            "{settings}: {}",
            item["detail"]
        );
    }
    assert!(!dir.path().join("p.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("dup.txt")).unwrap(),
        "x x\n"
    );
    assert!(!dir.path().parent().unwrap().join("escape.txt").exists());
}
