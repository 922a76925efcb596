//! `/v1/fleet`: three workers in git worktrees, run by the real agent
//! against the mock provider (each worker's replies keyed by its prompt),
//! at most two at a time; one interrupted and restarted; the result's
//! branches and diff stats; the run's event stream; stop; cleanup; and
//! refusals.

use crate::common::{
    self,
    agent::{setup_with, slow_words, tool_call, Setup},
    EventReader,
};
use mock_provider::Reply;
use serde_json::{json, Value};
use std::{path::Path, process::Command, time::Duration};

/// A repository with one commit, and a subdirectory the fleet works in.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::create_dir(dir.path().join("app")).unwrap();
    std::fs::write(dir.path().join("app/README"), "base\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "base"]);
    dir
}

fn git_out(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The worker keyed `key` writes `<key>.txt` and answers `<key> done`.
fn writes(s: &Setup, key: &str) {
    let file = json!({ "path": format!("{key}.txt"), "content": format!("{key}\n") });
    s.mock.push_when(key, tool_call("write_file", file));
    s.mock
        .push_when(key, Reply::text(&[&format!("{key} done")]));
}

async fn get(s: &Setup, path: &str) -> Value {
    let reply = s.api.get(path).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply.json()
}

/// Polls the worker until `done` holds (20 s at most).
async fn until_worker(s: &Setup, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..400 {
        let worker = get(s, &format!("/v1/fleet/workers/{id}")).await;
        if done(&worker) {
            return worker;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("worker {id} never {what}");
}

async fn until_status(s: &Setup, id: &str, status: &str) -> Value {
    until_worker(s, id, status, |w| w["status"] == status).await
}

async fn until_run(s: &Setup, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..400 {
        let detail = get(s, &format!("/v1/fleet/runs/{id}")).await;
        if done(&detail) {
            return detail;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("run {id} never got there");
}

/// Removes the run's worktrees; it must succeed.
async fn clean_up(s: &Setup, run_id: &str) {
    let cleaned = s
        .api
        .post_empty(&format!("/v1/fleet/runs/{run_id}/cleanup"))
        .await;
    assert_eq!(cleaned.status, 200, "{}", cleaned.text());
    assert_eq!(cleaned.json()["run"]["cleaned_up"], true);
}

fn id_of(value: &Value, field: &str) -> String {
    value[field].as_str().unwrap().to_string()
}

#[tokio::test]
async fn three_workers_in_worktrees_two_at_a_time_with_an_interrupt_and_a_restart() {
    let s = setup_with(json!({})).await;
    let repo = repository();
    let workspace = repo.path().join("app");
    // alpha writes, then answers slowly; beta answers very slowly (it is
    // interrupted); gamma writes. Restarted, beta writes.
    let alpha = json!({ "path": "alpha.txt", "content": "alpha\n" });
    s.mock.push_when("alpha", tool_call("write_file", alpha));
    s.mock.push_when("alpha", slow_words(20));
    s.mock.push_when("beta", slow_words(200));
    writes(&s, "gamma");

    let created = s
        .api
        .post(
            "/v1/fleet/runs",
            json!({
                "workers": [{ "prompt": "alpha: add a file" }, { "prompt": "beta: think" },
                            { "prompt": "gamma: add a file" }],
                "workspace": workspace, "max_parallel": 2, "auto_approve": true,
            }),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    let run = &created["run"];
    let run_id = id_of(run, "id");
    assert!(run_id.starts_with("fleet_"));
    assert_eq!(run["isolation"], "worktree");
    assert_eq!(run["max_parallel"], 2);
    assert_eq!(run["worker_count"], 3);
    let base = git_out(repo.path(), &["rev-parse", "HEAD"]);
    assert_eq!(run["base_commit"], base.trim());
    let workers = created["workers"].as_array().unwrap();
    let ids: Vec<String> = workers.iter().map(|w| id_of(w, "worker_id")).collect();
    let home = s._h.home.path().canonicalize().unwrap();
    for (n, worker) in workers.iter().enumerate() {
        let branch = format!("codewhale/{run_id}/{}", n + 1);
        assert_eq!(worker["branch"], branch);
        let tree = home
            .join("worktrees")
            .join(&run_id)
            .join((n + 1).to_string());
        // The worker works in the workspace's own subdirectory of its tree.
        assert_eq!(worker["workspace"], tree.join("app").to_str().unwrap());
        assert_eq!(
            std::fs::read_to_string(tree.join("app/README")).unwrap(),
            "base\n"
        );
    }
    let mut events = EventReader::open(
        s.api.http(),
        &s.api.url(&format!("/v1/fleet/runs/{run_id}/events")),
        &[],
    )
    .await;

    // Two at a time: gamma waits while alpha and beta run.
    until_worker(&s, &ids[0], "started", |w| w["turn_id"].is_string()).await;
    let beta = until_worker(&s, &ids[1], "started", |w| w["turn_id"].is_string()).await;
    assert_eq!(beta["status"], "running");
    let listed = get(&s, &format!("/v1/fleet/runs/{run_id}/workers")).await;
    assert_eq!(listed["workers"][2]["status"], "queued");
    assert_eq!(listed["workers"][2]["worker_id"], ids[2].as_str());

    // Interrupting beta ends its attempt; gamma gets the slot.
    let interrupted = s
        .api
        .post_empty(&format!("/v1/fleet/workers/{}/interrupt", ids[1]))
        .await;
    assert_eq!(interrupted.status, 200, "{}", interrupted.text());
    until_status(&s, &ids[1], "interrupted").await;
    let again = s
        .api
        .post_empty(&format!("/v1/fleet/workers/{}/interrupt", ids[1]))
        .await;
    assert_eq!(again.status, 409, "{}", again.text());
    let first_round = until_run(&s, &run_id, |d| d["run"]["finished_at"].is_string()).await;
    assert_eq!(first_round["run"]["status"], "failed");
    assert_eq!(first_round["run"]["counts"]["completed"], 2);
    assert_eq!(first_round["run"]["counts"]["interrupted"], 1);

    // Restarted, beta goes on on its own thread and writes this time.
    writes(&s, "beta");
    let restarted = s
        .api
        .post_empty(&format!("/v1/fleet/workers/{}/restart", ids[1]))
        .await;
    assert_eq!(restarted.status, 200, "{}", restarted.text());
    let restarted = restarted.json();
    assert_eq!(restarted["attempts"], 2);
    assert_eq!(restarted["thread_id"], beta["thread_id"]);
    let done = until_run(&s, &run_id, |d| d["run"]["finished_at"].is_string()).await;
    assert_eq!(done["run"]["status"], "completed", "{done:#}");

    // The result: each worker's branch holds its commit, measured against
    // the base; the user's checkout is untouched.
    for (worker, key) in done["workers"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["alpha", "beta", "gamma"])
    {
        let stat = &worker["diff_stat"];
        assert_eq!(stat["files_changed"], 1, "{worker:#}");
        assert_eq!(stat["files"][0]["path"], format!("app/{key}.txt"));
        assert_eq!(stat["insertions"], 1);
        let branch = worker["branch"].as_str().unwrap();
        let shown = git_out(repo.path(), &["show", &format!("{branch}:app/{key}.txt")]);
        assert_eq!(shown, format!("{key}\n"));
        let commit = worker["commit"].as_str().unwrap();
        assert_eq!(git_out(repo.path(), &["rev-parse", branch]).trim(), commit);
        let author = git_out(repo.path(), &["log", "-1", "--format=%an", commit]);
        assert_eq!(author.trim(), "codewhale");
    }
    assert_eq!(done["workers"][1]["answer"], "beta done");
    assert!(done["workers"][0]["answer"]
        .as_str()
        .unwrap()
        .starts_with("w0 w1"));
    assert_eq!(git_out(repo.path(), &["status", "--porcelain"]), "");
    assert_eq!(
        git_out(repo.path(), &["branch", "--show-current"]).trim(),
        "main"
    );
    assert!(!workspace.join("alpha.txt").exists());

    // The stream told it all, in order, with the same envelope rules.
    let seen = events
        .wait_until("the second fleet.run.finished", {
            let finished = std::sync::atomic::AtomicUsize::new(0);
            move |name, _| {
                name == "fleet.run.finished"
                    && finished.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 1
            }
        })
        .await;
    let names: Vec<&str> = seen.names();
    assert_eq!(names[0], "fleet.run.created");
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "fleet.worker.queued")
            .count(),
        4
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "fleet.worker.started")
            .count(),
        4
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "fleet.worker.finished")
            .count(),
        4
    );
    let last = &seen.last().unwrap().1;
    assert_eq!(last["run_id"], run_id.as_str());
    assert_eq!(last["payload"]["status"], "completed");
    for pair in seen.windows(2) {
        assert_eq!(pair[1].1["previous_seq"], pair[0].1["seq"]);
    }
    let finished = seen
        .iter()
        .find(|(name, e)| name == "fleet.worker.finished" && e["worker_id"] == ids[1].as_str())
        .unwrap();
    assert_eq!(finished.1["payload"]["status"], "interrupted");
    // Replay from a cursor, and a cursor from elsewhere.
    let from = seen[3].1["seq"].as_i64().unwrap();
    let mut replay = EventReader::open(
        s.api.http(),
        &s.api
            .url(&format!("/v1/fleet/runs/{run_id}/events?since_seq={from}")),
        &[],
    )
    .await;
    let (_, name, envelope) = replay.next().await;
    assert_eq!(name, names[4]);
    assert_eq!(envelope["previous_seq"], from);
    let ahead = s
        .api
        .get(&format!("/v1/fleet/runs/{run_id}/events?since_seq=999999"))
        .await;
    assert_eq!(ahead.status, 409, "{}", ahead.text());

    // Cleanup removes the worktrees and keeps the branches.
    clean_up(&s, &run_id).await;
    assert!(!home.join("worktrees").join(&run_id).exists());
    let branches = git_out(repo.path(), &["branch", "--list", "codewhale/*"]);
    assert_eq!(branches.lines().count(), 3, "{branches}");
    let worktrees = git_out(repo.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    let restart = s
        .api
        .post_empty(&format!("/v1/fleet/workers/{}/restart", ids[0]))
        .await;
    assert_eq!(restart.status, 409, "{}", restart.text());
    let listed = get(&s, "/v1/fleet/runs").await;
    assert_eq!(listed["runs"][0]["id"], run_id.as_str());
}

#[tokio::test]
async fn stopping_a_run_cancels_the_queued_and_interrupts_the_running() {
    let s = setup_with(json!({})).await;
    let repo = repository();
    s.mock.push_when("worker-uno", slow_words(200));
    let body = json!({
        "workers": [{ "prompt": "worker-uno" }, { "prompt": "worker-dos" }],
        "workspace": repo.path(), "max_parallel": 1, "isolation": "shared",
    });
    let created = s.api.post("/v1/fleet/runs", body).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    let run_id = id_of(&created["run"], "id");
    let workers = &created["workers"];
    // Shared: both work in the workspace itself, with no branch.
    let canonical = repo.path().canonicalize().unwrap();
    assert_eq!(workers[0]["workspace"], canonical.to_str().unwrap());
    assert!(workers[0]["branch"].is_null());
    let one = id_of(&workers[0], "worker_id");
    let two = id_of(&workers[1], "worker_id");
    until_worker(&s, &one, "started", |w| w["turn_id"].is_string()).await;
    let stopped = s
        .api
        .post_empty(&format!("/v1/fleet/runs/{run_id}/stop"))
        .await;
    assert_eq!(stopped.status, 200, "{}", stopped.text());
    until_status(&s, &one, "interrupted").await;
    assert_eq!(
        until_status(&s, &two, "cancelled").await["thread_id"],
        Value::Null
    );
    let done = until_run(&s, &run_id, |d| d["run"]["finished_at"].is_string()).await;
    assert_eq!(done["run"]["status"], "stopped");
    assert!(done["run"]["stopped_at"].is_string());
    assert!(done["workers"][0]["diff_stat"].is_null());
    let again = s
        .api
        .post_empty(&format!("/v1/fleet/runs/{run_id}/stop"))
        .await;
    assert_eq!(again.status, 409);
    let cleanup = s
        .api
        .post_empty(&format!("/v1/fleet/runs/{run_id}/cleanup"))
        .await;
    assert_eq!(cleanup.status, 409, "a shared run has no worktrees");
    // Fleet tasks are tasks, but clearing the queue leaves the run whole.
    s.api.post_empty("/v1/tasks/clear").await;
    let detail = get(&s, &format!("/v1/fleet/runs/{run_id}")).await;
    assert_eq!(detail["workers"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn bad_fleet_requests_are_refused_and_nothing_is_made() {
    let s = setup_with(json!({})).await;
    let repo = repository();
    let plain = tempfile::tempdir().unwrap();
    let empty_repo = tempfile::tempdir().unwrap();
    Command::new("git")
        .args(["init", "-q"])
        .current_dir(empty_repo.path())
        .status()
        .unwrap();
    let worker = json!([{ "prompt": "p" }]);
    let cases = [
        (json!({ "workers": [], "workspace": repo.path() }), 400),
        (
            json!({ "workers": vec![json!({"prompt": "p"}); 17], "workspace": repo.path() }),
            400,
        ),
        (
            json!({ "workers": [{ "prompt": "  " }], "workspace": repo.path() }),
            400,
        ),
        (
            json!({ "workers": [{ "prompt": "p", "model": "" }], "workspace": repo.path() }),
            400,
        ),
        (
            json!({ "workers": worker, "workspace": repo.path(), "max_parallel": 0 }),
            400,
        ),
        (
            json!({ "workers": worker, "workspace": repo.path(), "isolation": "vm" }),
            400,
        ),
        (
            json!({ "workers": worker, "workspace": repo.path(), "extra": 1 }),
            400,
        ),
        (
            json!({ "workers": [{ "prompt": "x".repeat(300 * 1024) }], "workspace": repo.path() }),
            413,
        ),
        (
            json!({ "workers": worker, "workspace": "/no/such/dir" }),
            409,
        ),
        (json!({ "workers": worker, "workspace": plain.path() }), 409),
        (
            json!({ "workers": worker, "workspace": empty_repo.path() }),
            409,
        ),
    ];
    for (body, status) in cases {
        let reply = s.api.post("/v1/fleet/runs", &body).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.text());
    }
    assert_eq!(get(&s, "/v1/fleet/runs").await["runs"], json!([]));
    assert!(
        !s._h.home.path().join("worktrees").exists()
            || std::fs::read_dir(s._h.home.path().join("worktrees"))
                .unwrap()
                .count()
                == 0
    );
    assert_eq!(
        git_out(repo.path(), &["branch", "--list", "codewhale/*"]),
        ""
    );
    for path in [
        "/v1/fleet/runs/fleet_00",
        "/v1/fleet/runs/fleet_00/workers",
        "/v1/fleet/workers/worker_00",
        "/v1/fleet/runs/fleet_00/events",
    ] {
        assert_eq!(s.api.get(path).await.status, 404, "{path}");
    }
    for path in [
        "/v1/fleet/runs/fleet_00/stop",
        "/v1/fleet/workers/worker_00/interrupt",
        "/v1/fleet/workers/worker_00/restart",
    ] {
        assert_eq!(s.api.post_empty(path).await.status, 404, "{path}");
    }
    assert_eq!(s.api.get("/v1/fleet/runs?limit=0").await.status, 400);
}

/// Reached only as `/v1` is: no credentials, a foreign Host, and a valid
/// token cookie sent from another site are refused and start nothing, on
/// `/v1/fleet` and on the fleet pages' server functions alike.
#[tokio::test]
async fn hostile_fleet_requests_are_refused() {
    let s = setup_with(json!({})).await;
    let h = &s._h;
    let repo = repository();
    let body = json!({ "workers": [{ "prompt": "p" }], "workspace": repo.path() }).to_string();
    let json = ("content-type", "application/json");
    let bearer = format!("Bearer {}", common::TOKEN);
    let auth = ("authorization", bearer.as_str());
    let post = |headers: Vec<(&'static str, String)>| {
        let body = body.clone();
        async move {
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            h.request("POST", "/v1/fleet/runs", &headers, body)
                .await
                .status
        }
    };
    assert_eq!(post(vec![("content-type", json.1.into())]).await, 401);
    let foreign = vec![
        ("content-type", json.1.into()),
        ("authorization", auth.1.into()),
        ("host", "attacker.example".into()),
    ];
    assert_eq!(post(foreign).await, 421);
    let cross_site = vec![
        ("content-type", json.1.into()),
        (
            "cookie",
            format!("codewhale_runtime_token={}", common::TOKEN),
        ),
        ("origin", "http://attacker.example".into()),
        ("sec-fetch-site", "cross-site".into()),
    ];
    assert_eq!(post(cross_site).await, 403);
    // The workbench's server functions: the same auth and origin rules.
    let form = ("content-type", "application/x-www-form-urlencoded");
    let fn_body =
        "draft[workspace]=/tmp&draft[prompts]=p&draft[shared]=true&draft[auto_approve]=true";
    for path in ["/api/start_fleet", "/api/fleet_action"] {
        assert_eq!(
            h.request("POST", path, &[form], fn_body).await.status,
            401,
            "{path}"
        );
        let cookie = format!("codewhale_runtime_token={}", common::TOKEN);
        let cross = [
            form,
            ("cookie", cookie.as_str()),
            ("origin", "http://attacker.example"),
            ("sec-fetch-site", "cross-site"),
        ];
        assert_eq!(
            h.request("POST", path, &cross, fn_body).await.status,
            403,
            "{path}"
        );
    }
    assert_eq!(get(&s, "/v1/fleet/runs").await["runs"], json!([]));
    assert_eq!(
        git_out(repo.path(), &["branch", "--list", "codewhale/*"]),
        ""
    );
}

/// Stop answers once the run is marked and its turns told to stop; each
/// worker's end (a commit and a diff stat per worktree) is recorded after,
/// by the runner, so a full run's stop does not wait on git.
#[tokio::test]
async fn stopping_a_full_worktree_run_answers_and_records_every_worker_after() {
    let s = setup_with(json!({})).await;
    let repo = repository();
    s.mock.push_when("worker-0 ", slow_words(200));
    let workers: Vec<Value> = (0..16)
        .map(|n| json!({ "prompt": format!("worker-{n} of the full run") }))
        .collect();
    let body = json!({
        "workers": workers, "workspace": repo.path().join("app"),
        "max_parallel": 1, "isolation": "worktree",
    });
    let created = s.api.post("/v1/fleet/runs", body).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    let run_id = id_of(&created["run"], "id");
    let first = id_of(&created["workers"][0], "worker_id");
    until_worker(&s, &first, "started", |w| w["turn_id"].is_string()).await;

    let stopped = s
        .api
        .post_empty(&format!("/v1/fleet/runs/{run_id}/stop"))
        .await;
    assert_eq!(stopped.status, 200, "{}", stopped.text());
    let stopped = stopped.json();
    assert!(stopped["run"]["stopped_at"].is_string(), "{stopped:#}");
    let answered: Vec<&str> = stopped["workers"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|w| w["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        answered,
        vec!["cancelled"; 15],
        "the queued end with the answer"
    );

    let done = until_run(&s, &run_id, |d| d["run"]["finished_at"].is_string()).await;
    assert_eq!(done["run"]["status"], "stopped");
    assert_eq!(done["run"]["counts"]["cancelled"], 15, "{done:#}");
    assert_eq!(done["run"]["counts"]["interrupted"], 1, "{done:#}");
    for worker in done["workers"].as_array().unwrap() {
        // Recorded: measured against the base (nothing was written).
        assert_eq!(worker["diff_stat"]["files_changed"], 0, "{worker:#}");
    }
    assert_eq!(git_out(repo.path(), &["status", "--porcelain"]), "");
}

/// An attempt shows as ended a moment before it is recorded (its changes
/// committed on its branch, which takes a while for a big change). A
/// restart or a clean-up asked in that moment records it first, rather
/// than refusing with "try again in a moment", and loses nothing.
#[tokio::test]
async fn restart_and_cleanup_right_after_an_attempt_ends_record_it_first() {
    let s = setup_with(json!({})).await;
    let repo = repository();
    s.mock.push_when("delta", slow_words(20));
    s.mock.push_when("delta", slow_words(20));
    let created = s
        .api
        .post(
            "/v1/fleet/runs",
            json!({
                "workers": [{ "prompt": "delta: think" }],
                "workspace": repo.path().join("app"), "auto_approve": true,
            }),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    let run_id = id_of(&created["run"], "id");
    let worker_id = id_of(&created["workers"][0], "worker_id");
    let workspace = Path::new(created["workers"][0]["workspace"].as_str().unwrap()).to_path_buf();
    let branch = format!("codewhale/{run_id}/1");
    let on_branch = |file: &str| {
        git_out(repo.path(), &["ls-tree", "-r", "--name-only", &branch])
            .lines()
            .any(|f| f == format!("app/{file}"))
    };

    // While each attempt runs, a big change lands in its worktree, so
    // recording the attempt's end takes a while.
    for (attempt, file) in [(1, "big-1.bin"), (2, "big-2.bin")] {
        until_status(&s, &worker_id, "running").await;
        big_file(&workspace.join(file));
        until_status(&s, &worker_id, "completed").await;
        if attempt == 1 {
            let restarted = s
                .api
                .post_empty(&format!("/v1/fleet/workers/{worker_id}/restart"))
                .await;
            assert_eq!(restarted.status, 200, "{}", restarted.text());
            assert_eq!(restarted.json()["attempts"], 2);
        } else {
            clean_up(&s, &run_id).await;
            assert!(!workspace.exists(), "the worktree is removed");
        }
        assert!(on_branch(file), "{file} is committed on {branch}");
    }
}

/// 48 MiB that compresses badly (one random MiB, again and again: zlib
/// looks back only 32 KiB): git takes a while to store it.
fn big_file(path: &Path) {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let block: Vec<u8> = (0..1 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    std::fs::write(path, block.repeat(48)).unwrap();
}
