//! apply_patch and update_plan through the real agent and the mock
//! provider: approvals, files on disk, and what the items carry.

use crate::common;

use common::agent::{setup_in_workspace as setup, tool_call as call, Setup};
use mock_provider::Reply;
use serde_json::{json, Value};

/// The content of the last message the model was sent (a tool result).
fn told(s: &Setup) -> Value {
    s.mock.requests().last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .clone()
}

const LIB: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n";

const PATCH: &str = "*** Begin Patch
*** Update File: src/lib.rs
@@ pub fn add(a: i32, b: i32) -> i32 {
-    a + b
+    a.wrapping_add(b)
@@ pub fn sub(a: i32, b: i32) -> i32 {
-    a - b
+    a.wrapping_sub(b)
*** Add File: README.md
+# demo
*** Delete File: old.txt
*** End Patch
";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), LIB).unwrap();
    std::fs::write(dir.path().join("old.txt"), "stale\n").unwrap();
    dir
}

#[tokio::test]
async fn an_auto_approved_patch_changes_files_and_records_the_diff() {
    let dir = workspace();
    let s = setup(dir.path(), json!({"auto_approve": true})).await;
    s.mock.push(call("apply_patch", json!({ "patch": PATCH })));
    s.mock.push(Reply::text(&["patched"]));
    let events = s.run("use wrapping arithmetic").await;

    let decided = events.find("approval.decided");
    assert_eq!(decided["payload"]["auto"], true);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        LIB.replace("a + b", "a.wrapping_add(b)")
            .replace("a - b", "a.wrapping_sub(b)")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("README.md")).unwrap(),
        "# demo\n"
    );
    assert!(!dir.path().join("old.txt").exists());

    let item = events.last_item("file_change");
    assert_eq!(item["status"], "completed");
    let metadata = &item["metadata"];
    assert_eq!(metadata["tool"], "apply_patch");
    let diff = metadata["diff"].as_str().unwrap();
    for expected in [
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n",
        "-    a + b\n+    a.wrapping_add(b)\n",
        "-    a - b\n+    a.wrapping_sub(b)\n",
        "--- /dev/null\n+++ b/README.md\n@@ -0,0 +1 @@\n+# demo\n",
        "--- a/old.txt\n+++ /dev/null\n",
    ] {
        assert!(diff.contains(expected), "{expected:?} not in\n{diff}");
    }
    assert_eq!(metadata["added"], 3);
    assert_eq!(metadata["removed"], 3);
    assert_eq!(
        metadata["files"],
        json!([
            {"path": "src/lib.rs", "change": "update", "added": 2, "removed": 2},
            {"path": "README.md", "change": "add", "added": 1, "removed": 0},
            {"path": "old.txt", "change": "delete", "added": 0, "removed": 1},
        ])
    );
    assert_eq!(
        told(&s),
        "Applied patch: M src/lib.rs (+2 -2), A README.md (+1), D old.txt (-1)"
    );
}

#[tokio::test]
async fn a_denied_or_mismatched_patch_leaves_the_files_alone() {
    let dir = workspace();
    let s = setup(dir.path(), json!({})).await;
    s.mock.push(call("apply_patch", json!({ "patch": PATCH })));
    s.mock.push(Reply::text(&["ok, not patching"]));
    let mut reader = s.events_from_now().await;
    s.start("patch it").await;
    let required = reader.until("approval.required").await.pop().unwrap().1;
    assert_eq!(required["payload"]["tool_name"], "apply_patch");
    assert_eq!(
        required["payload"]["description"],
        "Apply patch: M src/lib.rs, A README.md, D old.txt"
    );
    let approval = required["payload"]["approval_id"].as_str().unwrap();
    s.api
        .decide_approval(approval, json!({"decision": "deny"}))
        .await;
    let events = reader.until("turn.completed").await;
    let item = events.last_item("file_change");
    assert_eq!(item["status"], "failed");
    assert_eq!(item["detail"], "the user denied this action");
    assert_eq!(told(&s), "error: the user denied this action");
    assert_untouched(dir.path());

    // Approved, but one hunk does not match: still nothing is written.
    let s = setup(dir.path(), json!({"auto_approve": true})).await;
    let stale = PATCH.replace("-    a - b", "-    a - b + 0");
    s.mock.push(call("apply_patch", json!({ "patch": stale })));
    s.mock.push(Reply::text(&["I will re-read the file"]));
    let events = s.run("patch it").await;
    let item = events.last_item("file_change");
    assert_eq!(item["status"], "failed");
    let detail = item["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("src/lib.rs: hunk 2 (@@ pub fn sub(a: i32, b: i32) -> i32 {)"),
        "{detail}"
    );
    assert!(detail.contains("nothing was changed"), "{detail}");
    assert_untouched(dir.path());
}

fn assert_untouched(dir: &std::path::Path) {
    assert_eq!(
        std::fs::read_to_string(dir.join("src/lib.rs")).unwrap(),
        LIB
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("old.txt")).unwrap(),
        "stale\n"
    );
    assert!(!dir.join("README.md").exists());
}

#[tokio::test]
async fn update_plan_records_the_plan_even_in_plan_mode() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path(), json!({"mode": "plan"})).await;
    let plan = json!([
        {"step": "Read the parser", "status": "completed"},
        {"step": "Fix the off-by-one", "status": "in_progress"},
        {"step": "Add a test", "status": "pending"},
    ]);
    s.mock.push(call(
        "update_plan",
        json!({"explanation": "found it", "plan": plan}),
    ));
    s.mock.push(call(
        "update_plan",
        json!({"plan": [{"step": "a", "status": "done"}]}),
    ));
    s.mock.push(Reply::text(&["planned"]));
    let events = s.run("plan the fix").await;
    assert_eq!(events.completed_turn()["status"], "completed");
    assert!(
        !events.iter().any(|(n, _)| n == "approval.required"),
        "no approval for a plan"
    );

    let items = events.items("tool_call");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["status"], "completed");
    assert_eq!(items[0]["metadata"]["tool"], "update_plan");
    assert_eq!(items[0]["metadata"]["plan"], plan);
    assert_eq!(items[0]["metadata"]["explanation"], "found it");
    assert_eq!(
        items[0]["detail"],
        "Plan updated: 1/3 completed; in progress: Fix the off-by-one"
    );
    assert_eq!(items[1]["status"], "failed");
    assert!(
        items[1]["detail"].as_str().unwrap().contains("\"done\""),
        "{}",
        items[1]["detail"]
    );

    // Offered in plan mode; apply_patch is not.
    let first = &s.mock.requests()[0];
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"update_plan"), "{names:?}");
    assert!(!names.contains(&"apply_patch"), "{names:?}");
}
