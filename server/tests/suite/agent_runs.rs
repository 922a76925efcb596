//! Sub-agents: the real agent against the mock provider spawns a child
//! thread with `spawn_agent`, which spawns its own, whose attempt to go
//! deeper is refused; the parent's stream shows each child's lifecycle and
//! `/v1/agent-runs` has their receipts. A child left running while the
//! parent goes on is read later with `agent_result`; an interrupted parent
//! stops its children; a turn spawning too many is refused the extra.
//! Each thread's replies are keyed by its system prompt's depth line.

use crate::common::{
    agent::{setup_in_workspace, slow_words, tool_call, Setup},
    git,
};
use mock_provider::{Chunk, Reply};
use serde_json::{json, Value};
use std::time::Duration;

const CHILD: &str = "depth 1 of";
const GRANDCHILD: &str = "depth 2 of";
const PARENT_PROMPT: &str = "Answer in plain words.";

async fn get(s: &Setup, path: &str) -> Value {
    let reply = s.api.get(path).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply.json()
}

fn spawn(prompt: &str, wait: bool) -> Reply {
    tool_call("spawn_agent", json!({ "prompt": prompt, "wait": wait }))
}

/// The tool names offered in a request.
fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect()
}

/// The run's receipt once `done` holds (20 s at most).
async fn until_run(s: &Setup, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..400 {
        let run = get(s, &format!("/v1/agent-runs/{id}")).await;
        if done(&run) {
            return run;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("agent run {id} never got there");
}

#[tokio::test]
async fn a_sub_agent_spawns_its_own_and_the_next_level_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup_in_workspace(dir.path(), json!({ "auto_approve": true })).await;
    // The parent delegates and waits; the child delegates again; the
    // grandchild, at the deepest level, tries once more (refused), then
    // writes a file, checks it and reports.
    s.mock.push(spawn("Survey the notes and report", true));
    s.mock.push(Reply::text(&["Parent done."]));
    s.mock
        .push_when(CHILD, spawn("Write and check deep.txt", true));
    s.mock.push_when(
        CHILD,
        Reply::text(&["Child report: the grandchild wrote deep.txt."]),
    );
    s.mock.push_when(GRANDCHILD, spawn("Go deeper still", true));
    let file = json!({ "path": "deep.txt", "content": "deep\n" });
    s.mock.push_when(GRANDCHILD, tool_call("write_file", file));
    let check = json!({ "command": "cat deep.txt" });
    s.mock.push_when(GRANDCHILD, tool_call("exec_shell", check));
    s.mock.push_when(
        GRANDCHILD,
        Reply::text(&["Grandchild report: deep.txt holds deep."]),
    );

    let events = s.run("Delegate the survey").await;
    let turn = events.find("turn.completed")["payload"].clone();
    assert_eq!(turn["turn"]["status"], "completed", "{turn}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("deep.txt")).unwrap(),
        "deep\n"
    );

    // The parent's stream: spawned, then completed, for its one child.
    let spawned = events.find("agent.spawned")["payload"].clone();
    let completed = events.find("agent.completed")["payload"].clone();
    let names = events.names();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
    assert!(at("agent.spawned") < at("agent.completed"));
    assert!(at("agent.completed") < at("turn.completed"));
    assert_eq!(spawned["status"], "running");
    assert_eq!(spawned["depth"], 1);
    assert_eq!(spawned["prompt"], "Survey the notes and report");
    assert_eq!(completed["run_id"], spawned["run_id"]);
    assert_eq!(completed["thread_id"], spawned["thread_id"]);
    assert_eq!(completed["status"], "completed");
    assert_eq!(
        completed["answer"],
        "Child report: the grandchild wrote deep.txt."
    );

    // The parent's item links the child; the model read the child's report.
    let detail = s.detail().await;
    let item = detail
        .items
        .iter()
        .find(|i| i.metadata["tool"] == "spawn_agent")
        .unwrap();
    assert_eq!(item.metadata["run_id"], spawned["run_id"]);
    assert_eq!(item.metadata["child_thread_id"], spawned["thread_id"]);
    assert!(item.detail.as_deref().unwrap().contains("Child report"));

    // Receipts: the child's, by run id and by its thread (worker) id.
    let runs = get(&s, &format!("/v1/agent-runs?parent_thread_id={}", s.thread)).await;
    let runs = runs["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let child = &runs[0];
    let child_thread = child["thread_id"].as_str().unwrap();
    assert_eq!(child["run_id"], spawned["run_id"]);
    assert_eq!(child["actor_kind"], "sub_agent");
    assert_eq!(child["worker_id"], child_thread);
    assert_eq!(child["status"], "completed");
    assert_eq!(child["spec"]["run_id"], child["run_id"]);
    assert_eq!(child["spec"]["depth"], 1);
    assert_eq!(child["spec"]["wait"], true);
    assert_eq!(child["spec"]["parent_thread_id"], s.thread.as_str());
    assert_eq!(child["spec"]["parent_item_id"], item.id.as_str());
    assert!(child["usage"]["output_tokens"].as_u64().unwrap() > 0);
    assert!(child["ended_at"].is_string());
    assert_eq!(child["follow_up"]["thread_id"], child_thread);
    assert!(child["takeover"].is_null());
    assert_eq!(
        get(&s, &format!("/v1/agent-runs/{child_thread}")).await,
        *child
    );
    let child_detail = s.api.thread(child_thread).await;
    assert_eq!(child_detail.thread.mode.as_str(), "agent");
    assert!(
        child_detail.thread.auto_approve,
        "the child inherits auto-approve"
    );

    // The grandchild's: depth 2, the refused spawn among its steps, the
    // file it wrote and the command it checked it with.
    let all = get(&s, "/v1/agent-runs").await;
    let all = all["runs"].as_array().unwrap();
    assert_eq!(all.len(), 2, "the third level never started: {all:?}");
    let grandchild = all.iter().find(|r| r["spec"]["depth"] == 2).unwrap();
    assert_eq!(grandchild["spec"]["parent_thread_id"], child_thread);
    assert_eq!(grandchild["status"], "completed");
    let refused = grandchild["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "tool_call" && e["status"] == "failed")
        .expect("the refused spawn is a failed step");
    assert!(refused["summary"]
        .as_str()
        .unwrap()
        .starts_with("Sub-agent:"));
    let refused_item = s
        .api
        .thread(grandchild["thread_id"].as_str().unwrap())
        .await
        .items
        .into_iter()
        .find(|i| i.id == refused["item_id"].as_str().unwrap())
        .unwrap();
    assert!(
        refused_item.detail.unwrap().contains("nest at most 2 deep"),
        "the model is told why"
    );
    assert_eq!(
        grandchild["artifacts"],
        json!([{ "kind": "file_change", "path": "deep.txt",
                 "item_id": grandchild["artifacts"][0]["item_id"] }])
    );
    let verification = &grandchild["verification"];
    assert_eq!(verification["passed"], 1);
    assert_eq!(verification["failed"], 0);
    assert_eq!(verification["commands"][0]["command"], "cat deep.txt");
    assert_eq!(verification["commands"][0]["exit_code"], 0);
    // A run in its parent's workspace has no worktree to remove.
    let path = format!(
        "/v1/agent-runs/{}/cleanup",
        grandchild["run_id"].as_str().unwrap()
    );
    let reply = s.api.post_empty(&path).await;
    assert_eq!(reply.status, 409, "{}", reply.text());
    assert!(reply.error_message().contains("no worktree"));

    // The deepest level is not offered the tools; the levels above are.
    let requests = s.mock.requests();
    for request in &requests {
        let text = request.to_string();
        let tools = offered(request);
        let deepest = text.contains(GRANDCHILD);
        assert_eq!(
            tools.iter().any(|t| t == "spawn_agent"),
            !deepest,
            "spawn_agent offered wrongly: {tools:?}"
        );
    }
}

#[tokio::test]
async fn a_child_left_running_is_read_later_and_an_interrupted_parent_stops_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup_in_workspace(dir.path(), json!({})).await;
    // Turn 1: spawn without waiting, answer at once; the child is slow.
    s.mock.push(spawn("Count slowly", false));
    s.mock.push(Reply::text(&["Started it."]));
    s.mock.push_when(CHILD, slow_words(15));
    let mut stream = s.events_from_now().await;
    let started = s.start("Start a slow child").await;
    let first = stream
        .wait_until("the parent's turn.completed", |name, e| {
            name == "turn.completed" && e["turn_id"] == started.turn.id.as_str()
        })
        .await;
    let spawned = first.find("agent.spawned")["payload"].clone();
    assert!(
        !first.names().contains(&"agent.completed"),
        "the child goes on"
    );
    let run_id = spawned["run_id"].as_str().unwrap().to_string();
    let running = get(&s, &format!("/v1/agent-runs/{run_id}")).await;
    assert_eq!(running["status"], "running");
    assert_eq!(running["spec"]["wait"], false);
    assert!(running["ended_at"].is_null() && running["follow_up"].is_null());
    // Its end comes later on the parent's stream, outside any parent turn.
    let late = stream.payload("agent.completed").await;
    assert_eq!(late["run_id"], run_id.as_str());
    assert_eq!(late["status"], "completed");

    // Turn 2: agent_result reads it; another thread's run is not its to read.
    s.mock
        .push(tool_call("agent_result", json!({ "run_id": run_id })));
    s.mock.push(tool_call(
        "agent_result",
        json!({ "run_id": "agent_0123abcd" }),
    ));
    s.mock.push(Reply::text(&["Read it."]));
    s.run("Read the child's report").await;
    let detail = s.detail().await;
    let reads: Vec<_> = detail
        .items
        .iter()
        .filter(|i| i.metadata["tool"] == "agent_result")
        .collect();
    assert_eq!(reads.len(), 2);
    let report: Value = serde_json::from_str(reads[0].detail.as_deref().unwrap()).unwrap();
    assert_eq!(report["status"], "completed");
    assert!(report["report"].as_str().unwrap().starts_with("w0 w1"));
    assert!(reads[1]
        .detail
        .as_deref()
        .unwrap()
        .contains("no sub-agent run agent_0123abcd was spawned by this thread"));

    // Turn 3: the parent waits on a very slow child and is interrupted.
    s.mock.push(spawn("Think for a long time", true));
    s.mock.push_when(CHILD, slow_words(300));
    let started = s.start("Wait on a slow child").await;
    let spawned = stream.payload("agent.spawned").await;
    let child_thread = spawned["thread_id"].as_str().unwrap().to_string();
    // The child's turn is running before the parent is stopped.
    let mut child_stream = s.api.events(&child_thread).await;
    child_stream.until("item.delta").await;
    s.api.interrupt(&s.thread, &started.turn.id).await;
    let stopped = stream.payload("agent.completed").await;
    assert_eq!(stopped["run_id"], spawned["run_id"]);
    assert_eq!(stopped["status"], "interrupted");
    let run = until_run(&s, spawned["run_id"].as_str().unwrap(), |r| {
        r["ended_at"].is_string()
    })
    .await;
    assert_eq!(run["status"], "interrupted");
    // The parent waited for its child: its end follows the child's.
    let ended = stream.payload("turn.completed").await;
    assert_eq!(ended["turn"]["id"], started.turn.id.as_str());
    assert_eq!(ended["turn"]["status"], "interrupted");

    // A person goes on with the first child: the receipt says so.
    let first_child = running["thread_id"].as_str().unwrap();
    s.mock.push_when(CHILD, Reply::text(&["Sure."]));
    let (taken, _) = s
        .api
        .run_turn(first_child, json!({ "prompt": "One more thing" }))
        .await;
    let receipt = get(&s, &format!("/v1/agent-runs/{run_id}")).await;
    assert_eq!(receipt["takeover"]["turn_ids"], json!([taken.turn.id]));
    assert_eq!(receipt["status"], "completed", "the run is its own turn");
}

/// One reply calling `spawn_agent` `count` times at once (not waiting).
fn many_spawns(count: u32) -> Reply {
    let mut chunks: Vec<Chunk> = (0..count)
        .map(|n| Chunk::ToolCall {
            index: n,
            id: Some(format!("call_{n}")),
            name: Some("spawn_agent".into()),
            arguments: json!({ "prompt": format!("Part {n}"), "wait": false, "mode": "plan" })
                .to_string(),
        })
        .collect();
    chunks.push(Chunk::Finish {
        reason: "tool_calls".into(),
    });
    Reply::Stream {
        chunks,
        delay_ms: 0,
    }
}

#[tokio::test]
async fn one_turn_spawns_at_most_four_and_a_plan_parent_only_readers() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let s = setup_in_workspace(
        dir.path(),
        json!({ "mode": "plan", "system_prompt": PARENT_PROMPT }),
    )
    .await;
    s.mock.push(many_spawns(5));
    s.mock.push(Reply::text(&["Spread out."]));
    for _ in 0..4 {
        s.mock.push_when(CHILD, Reply::text(&["Part done."]));
    }
    s.run("Split the work five ways").await;
    let detail = s.detail().await;
    let calls: Vec<_> = detail
        .items
        .iter()
        .filter(|i| i.metadata["tool"] == "spawn_agent")
        .collect();
    assert_eq!(calls.len(), 5);
    assert_eq!(calls.iter().filter(|i| i.metadata["ok"] == true).count(), 4);
    let refused = calls.iter().find(|i| i.metadata["ok"] == false).unwrap();
    assert!(
        refused
            .detail
            .as_deref()
            .unwrap()
            .contains("already spawned 4"),
        "{:?}",
        refused.detail
    );
    let runs = get(&s, &format!("/v1/agent-runs?parent_thread_id={}", s.thread)).await;
    let runs = runs["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for run in runs {
        assert_eq!(run["spec"]["mode"], "plan");
        let id = run["run_id"].as_str().unwrap();
        until_run(&s, id, |r| r["status"] == "completed").await;
    }
    // A plan parent's sub-agents only read: a worktree is refused (nothing
    // is made), and a child asked to be an agent is a planner, under the
    // parent's own instructions after its sub-agent preamble.
    s.mock.push(tool_call(
        "spawn_agent",
        json!({ "prompt": "Change things", "mode": "agent", "isolation": "worktree" }),
    ));
    s.mock.push(tool_call(
        "spawn_agent",
        json!({ "prompt": "Look at things", "mode": "agent" }),
    ));
    s.mock.push(Reply::text(&["ok"]));
    s.mock.push_when(CHILD, Reply::text(&["Looked."]));
    s.run("Try to make a writer").await;
    let last_spawns = |detail: &protocol::ThreadDetail| {
        let mut calls: Vec<_> = detail
            .items
            .iter()
            .filter(|i| i.metadata["tool"] == "spawn_agent")
            .cloned()
            .collect();
        calls.split_off(calls.len() - 2)
    };
    let calls = last_spawns(&s.detail().await);
    assert_eq!(calls[0].metadata["ok"], false, "{:?}", calls[0].detail);
    assert!(calls[0].detail.as_deref().unwrap().contains("only read"));
    assert_eq!(calls[1].metadata["ok"], true, "{:?}", calls[1].detail);
    let reader = get(
        &s,
        &format!(
            "/v1/agent-runs/{}",
            calls[1].metadata["run_id"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(reader["spec"]["mode"], "plan");
    assert_eq!(reader["spec"]["isolation"], "shared");
    let child_request = s
        .mock
        .requests()
        .into_iter()
        .find(|r| r.to_string().contains("Look at things"))
        .unwrap();
    let system = child_request["messages"][0].to_string();
    let (preamble, own) = (
        system.find(CHILD).unwrap(),
        system.find(PARENT_PROMPT).unwrap(),
    );
    assert!(preamble < own, "{system}");

    // As an agent the thread may ask for a worktree, but this workspace
    // has no commit to make one from: refused, and nothing is made.
    let patched = s
        .api
        .patch(
            &format!("/v1/threads/{}", s.thread),
            json!({ "mode": "agent" }),
        )
        .await;
    assert_eq!(patched.status, 200, "{}", patched.text());
    s.mock.push(tool_call(
        "spawn_agent",
        json!({ "prompt": "Change things", "isolation": "worktree" }),
    ));
    s.mock.push(Reply::text(&["ok"]));
    s.run("Try again in a worktree").await;
    let calls = last_spawns(&s.detail().await);
    assert_eq!(calls[1].metadata["ok"], false, "{:?}", calls[1].detail);
    assert!(calls[1].detail.as_deref().unwrap().contains("no commit"));
    let runs = get(&s, &format!("/v1/agent-runs?parent_thread_id={}", s.thread)).await;
    assert_eq!(runs["runs"].as_array().unwrap().len(), 5);

    // A review reads and reports itself: no sub-agents on offer.
    let patched = s
        .api
        .patch(
            &format!("/v1/threads/{}", s.thread),
            json!({ "mode": "review" }),
        )
        .await;
    assert_eq!(patched.status, 200, "{}", patched.text());
    s.mock.push(Reply::text(&["No findings."]));
    s.run("Review the change").await;
    let review = s.mock.requests().pop().unwrap();
    assert!(!offered(&review).iter().any(|t| t == "spawn_agent"));
}

#[tokio::test]
async fn a_worktree_child_works_on_its_own_branch() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("README"), "base\n").unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    // Auto-approve for this one turn only: the child's turn has it (its
    // write needs no approval), its thread does not keep it.
    let s = setup_in_workspace(dir.path(), json!({})).await;
    s.mock.push(tool_call(
        "spawn_agent",
        json!({ "prompt": "Add NOTES", "isolation": "worktree" }),
    ));
    s.mock.push(Reply::text(&["Merged nothing yet."]));
    let notes = json!({ "path": "NOTES", "content": "from the child\n" });
    s.mock.push_when(CHILD, tool_call("write_file", notes));
    s.mock
        .push_when(CHILD, Reply::text(&["Wrote NOTES on my branch."]));
    let body = json!({ "prompt": "Have a child add NOTES on a branch", "auto_approve": true });
    s.api.run_turn(&s.thread, body).await;

    assert!(
        !dir.path().join("NOTES").exists(),
        "the user's checkout is untouched"
    );
    let runs = get(&s, "/v1/agent-runs").await;
    let run = &runs["runs"][0];
    assert_eq!(run["spec"]["isolation"], "worktree");
    let branch = run["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "branch")
        .expect("the branch is an artifact");
    let name = branch["branch"].as_str().unwrap();
    assert_eq!(
        name,
        format!("codewhale/agent/{}", run["run_id"].as_str().unwrap())
    );
    assert_eq!(branch["diff_stat"]["files_changed"], 1);
    let commit = branch["commit"].as_str().unwrap();
    let child = s.api.thread(run["thread_id"].as_str().unwrap()).await;
    assert!(
        !child.thread.auto_approve,
        "a turn's grant is not the thread's"
    );
    assert_eq!(git(dir.path(), &["rev-parse", name]).trim(), commit);
    assert_eq!(
        git(dir.path(), &["show", &format!("{name}:NOTES")]),
        "from the child\n"
    );
    let workspace = run["spec"]["workspace"].as_str().unwrap();
    let home = s._h.home.path().canonicalize().unwrap();
    let agents = home.join("worktrees/agents");
    assert!(std::path::Path::new(workspace).starts_with(&agents));
    let run_id = run["run_id"].as_str().unwrap();
    let worktree = agents.join(run_id);
    assert_eq!(branch["worktree"], worktree.display().to_string());
    assert!(
        !agents.join(format!("{run_id}.pending")).exists(),
        "the marker goes once the run is recorded"
    );

    // Work done in the worktree after the run (a later turn on the child's
    // thread) is committed on the branch before the worktree goes.
    std::fs::write(worktree.join("LATER"), "taken over\n").unwrap();
    let cleanup = format!("/v1/agent-runs/{run_id}/cleanup");
    let reply = s.api.post_empty(&cleanup).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let cleaned = reply.json();
    let artifact = cleaned["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "branch")
        .unwrap()
        .clone();
    assert_eq!(artifact["worktree"], Value::Null);
    assert_eq!(artifact["commit"], commit, "the run's own commit");
    assert!(!worktree.exists(), "the worktree is removed");
    assert_eq!(
        git(dir.path(), &["show", &format!("{name}:LATER")]),
        "taken over\n"
    );
    assert_eq!(
        git(dir.path(), &["show", &format!("{name}:NOTES")]),
        "from the child\n"
    );
    assert!(!git(dir.path(), &["worktree", "list"]).contains(run_id));
    assert!(
        git(dir.path(), &["status", "--porcelain"]).is_empty(),
        "the user's checkout is untouched"
    );
    // Twice is fine; by the child thread's id too.
    let again = format!(
        "/v1/agent-runs/{}/cleanup",
        run["thread_id"].as_str().unwrap()
    );
    let reply = s.api.post_empty(&again).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
}

/// A process that died after making a sub-agent's worktree and before
/// recording its run left a worktree nothing points at: the next process
/// with the store to itself removes it and its branch, and leaves a
/// recorded run's alone.
#[tokio::test]
async fn a_worktree_no_run_was_recorded_for_is_removed_on_start() {
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(repo.path().join("README"), "base\n").unwrap();
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "base"]);
    let top = repo.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    let agents = home.path().join("worktrees/agents");
    std::fs::create_dir_all(&agents).unwrap();
    let run_id = "agent_0123456789abcdef0123456789abcdef";
    let branch = format!("codewhale/agent/{run_id}");
    let path = agents.join(run_id);
    let path_arg = path.display().to_string();
    git(&top, &["worktree", "add", "-q", "-b", &branch, &path_arg]);
    std::fs::write(
        agents.join(format!("{run_id}.pending")),
        top.display().to_string(),
    )
    .unwrap();
    // A marker whose id is not a run id is not ours to act on.
    std::fs::write(agents.join("not-a-run.pending"), top.display().to_string()).unwrap();

    let runtime = codewhale::runtime::Runtime::open(codewhale::runtime::RuntimeOptions {
        home: home.path().to_path_buf(),
        engine: std::sync::Arc::new(codewhale::runtime::engine::NoProvider),
        pricing: Default::default(),
        default_workspace: top.clone(),
        wait_timeout: crate::common::WAIT_TIMEOUT,
        clock: Default::default(),
        sub_agents: Default::default(),
    })
    .await
    .unwrap();
    for _ in 0..200 {
        if !path.exists() && !agents.join(format!("{run_id}.pending")).exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!path.exists(), "the unrecorded worktree is removed");
    assert!(!agents.join(format!("{run_id}.pending")).exists());
    assert!(!git(&top, &["worktree", "list"]).contains(run_id));
    assert!(git(&top, &["branch", "--list", &branch]).trim().is_empty());
    assert_eq!(
        git(&top, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "main"
    );
    assert!(agents.join("not-a-run.pending").exists());
    drop(runtime);
}

#[tokio::test]
async fn receipts_refuse_bad_ids_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup_in_workspace(dir.path(), json!({})).await;
    for (path, status) in [
        ("/v1/agent-runs/agent_zz", 404),
        ("/v1/agent-runs/arun_00", 404),
        ("/v1/agent-runs/agent_00", 404),
        ("/v1/agent-runs/thr_00", 404),
        ("/v1/agent-runs/agent_00/cleanup", 404),
        ("/v1/agent-runs?limit=0", 400),
        ("/v1/agent-runs?limit=201", 400),
        ("/v1/agent-runs?parent_thread_id=x", 400),
        ("/v1/agent-runs?colour=blue", 400),
    ] {
        let reply = if path.ends_with("/cleanup") {
            s.api.post_empty(path).await
        } else {
            s.api.get(path).await
        };
        assert_eq!(reply.status, status, "{path}: {}", reply.text());
    }
    assert_eq!(get(&s, "/v1/agent-runs").await, json!({ "runs": [] }));
    let info = get(&s, "/v1/runtime/info").await;
    assert_eq!(info["capabilities"]["agent_runs"], true);
}
