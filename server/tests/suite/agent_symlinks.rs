//! Symlinks in the workspace, through the real agent and the mock
//! provider: writes, edits and patches through a link leading outside
//! (dangling or not) fail and change nothing outside; a link to a file
//! inside writes that file.

use crate::common;

use common::agent::{setup_in_workspace as setup, tool_call as call};
use mock_provider::Reply;
use serde_json::json;
use std::os::unix::fs::symlink;

#[tokio::test]
async fn links_leading_outside_are_refused_and_links_inside_are_written() {
    let ws = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("real.txt"), "real\n").unwrap();
    std::fs::write(out.path().join("secret.txt"), "secret\n").unwrap();
    symlink(out.path().join("profile"), ws.path().join("notes.md")).unwrap();
    symlink(out.path().join("secret.txt"), ws.path().join("secret.md")).unwrap();
    symlink(out.path().join("missing"), ws.path().join("deaddir")).unwrap();
    symlink("real.txt", ws.path().join("alias.txt")).unwrap();
    let s = setup(ws.path(), json!({"auto_approve": true})).await;

    let patch = |body: &str| json!({"patch": format!("*** Begin Patch\n{body}\n*** End Patch")});
    let refused = [
        call(
            "write_file",
            json!({"path": "notes.md", "content": "export PWNED=1\n"}),
        ),
        call(
            "write_file",
            json!({"path": "deaddir/x.txt", "content": "x"}),
        ),
        call(
            "edit_file",
            json!({"path": "secret.md", "old_string": "secret", "new_string": "x"}),
        ),
        call("apply_patch", patch("*** Add File: notes.md\n+x")),
        call("apply_patch", patch("*** Add File: deaddir/new/x.txt\n+x")),
        call(
            "apply_patch",
            patch("*** Update File: secret.md\n@@\n-secret\n+x"),
        ),
    ];
    let refused_count = refused.len();
    for reply in refused {
        s.mock.push(reply);
    }
    s.mock.push(call(
        "write_file",
        json!({"path": "alias.txt", "content": "through the link\n"}),
    ));
    s.mock.push(Reply::text(&["done"]));
    let events = s.run("write some files").await;

    let items = events.items("file_change");
    assert_eq!(items.len(), refused_count + 1);
    for item in &items[..refused_count] {
        assert_eq!(item["status"], "failed", "{item}");
        let detail = item["detail"].as_str().unwrap();
        assert!(detail.contains("outside the workspace"), "{detail}");
    }
    assert_eq!(items[refused_count]["status"], "completed");

    let mut outside: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    outside.sort();
    assert_eq!(outside, ["secret.txt"], "nothing created outside");
    assert_eq!(
        std::fs::read_to_string(out.path().join("secret.txt")).unwrap(),
        "secret\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("real.txt")).unwrap(),
        "through the link\n"
    );
    assert!(std::fs::symlink_metadata(ws.path().join("alias.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
}
