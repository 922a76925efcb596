//! Project and global instructions: the real agent against the mock
//! provider, in a workspace below a repository's top. The model's system
//! prompt is the thread's own, then `$CODEWHALE_HOME/AGENTS.md`, then the
//! repository's files from the top down to the workspace; each turn
//! records what it read (paths, hashes, sizes: on the turn, in its
//! `turn.started` event), and nothing records the text.

use crate::common::agent::setup_in_workspace;
use mock_provider::Reply;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn system_prompt(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .filter(|_| request["messages"][0]["role"] == "system")
        .unwrap_or_else(|| panic!("no system message: {request}"))
        .to_string()
}

#[tokio::test]
async fn a_turn_gets_the_global_then_the_nearest_files_and_records_what_it_read() {
    let repo = tempfile::tempdir().unwrap();
    let top = repo.path().canonicalize().unwrap();
    std::fs::create_dir(top.join(".git")).unwrap();
    std::fs::create_dir_all(top.join("server/src")).unwrap();
    std::fs::write(top.join("AGENTS.md"), "TOP-RULE: use British spelling.\n").unwrap();
    std::fs::write(top.join("server/CODEWHALE.md"), "SERVER-RULE: no unwrap.\n").unwrap();
    std::fs::write(top.join("docs.md"), "NOT-AN-INSTRUCTION\n").unwrap();
    let workspace = top.join("server/src");
    let s = setup_in_workspace(&workspace, json!({ "system_prompt": "THREAD-PROMPT" })).await;
    let home = s._h.home.path().canonicalize().unwrap();
    std::fs::write(home.join("AGENTS.md"), "GLOBAL-RULE: be terse.\n").unwrap();

    s.mock.push(Reply::text(&["First."]));
    let events = s.run("Hello").await;
    let prompt = system_prompt(&s.mock.requests()[0]);
    let at: Vec<usize> = ["THREAD-PROMPT", "GLOBAL-RULE", "TOP-RULE", "SERVER-RULE"]
        .iter()
        .map(|marker| {
            prompt
                .find(marker)
                .unwrap_or_else(|| panic!("{marker} in {prompt}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "in order: {prompt}");
    assert!(!prompt.contains("NOT-AN-INSTRUCTION"));

    let detail = s.detail().await;
    let recorded = serde_json::to_value(&detail.turns[0].instructions).unwrap();
    assert_eq!(
        recorded,
        json!([
            { "path": home.join("AGENTS.md"), "scope": "global",
              "sha256": sha256("GLOBAL-RULE: be terse.\n"), "bytes": 23, "truncated": false },
            { "path": top.join("AGENTS.md"), "scope": "project",
              "sha256": sha256("TOP-RULE: use British spelling.\n"), "bytes": 32, "truncated": false },
            { "path": top.join("server/CODEWHALE.md"), "scope": "project",
              "sha256": sha256("SERVER-RULE: no unwrap.\n"), "bytes": 24, "truncated": false },
        ])
    );
    let started = &events.find("turn.started")["payload"];
    assert_eq!(started["turn"]["instructions"], recorded);

    // The next turn reads them again: an edit shows as a new hash, a
    // removed file is gone from its record.
    std::fs::write(top.join("AGENTS.md"), "TOP-RULE: use American spelling.\n").unwrap();
    std::fs::remove_file(home.join("AGENTS.md")).unwrap();
    s.mock.push(Reply::text(&["Second."]));
    s.run("Again").await;
    let prompt = system_prompt(&s.mock.requests()[1]);
    assert!(prompt.contains("American") && !prompt.contains("GLOBAL-RULE"));
    let detail = s.detail().await;
    let second = &detail.turns[1].instructions;
    assert_eq!(second.len(), 2);
    assert_eq!(
        second[0].sha256,
        sha256("TOP-RULE: use American spelling.\n")
    );
    assert_eq!(
        detail.turns[0].instructions.len(),
        3,
        "the first turn's record stays"
    );

    // The store holds paths and hashes, never the text.
    for entry in std::fs::read_dir(&home).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("codewhale.db") {
            let bytes = std::fs::read(entry.path()).unwrap();
            for marker in ["TOP-RULE", "SERVER-RULE", "GLOBAL-RULE"] {
                assert!(
                    !bytes.windows(marker.len()).any(|w| w == marker.as_bytes()),
                    "{marker} is stored in {name}"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_link_out_of_the_repository_is_not_followed() {
    let repo = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let top = repo.path().canonicalize().unwrap();
    std::fs::create_dir(top.join(".git")).unwrap();
    std::fs::write(outside.path().join("secret.md"), "OUTSIDE-TEXT\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), top.join("AGENTS.md")).unwrap();
    std::fs::write(top.join("CODEWHALE.md"), "INSIDE-RULE\n").unwrap();
    let s = setup_in_workspace(&top, json!({})).await;
    s.mock.push(Reply::text(&["Ok."]));
    s.run("Hello").await;
    let prompt = system_prompt(&s.mock.requests()[0]);
    assert!(prompt.contains("INSIDE-RULE"));
    assert!(!prompt.contains("OUTSIDE-TEXT"));
    let detail = s.detail().await;
    let paths: Vec<_> = detail.turns[0]
        .instructions
        .iter()
        .map(|f| f.path.clone())
        .collect();
    assert_eq!(paths, [top.join("CODEWHALE.md").display().to_string()]);
}
