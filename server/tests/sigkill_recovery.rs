//! A server process killed with SIGKILL in the middle of a turn, then the
//! real `codewhale` binary started on the same store: the turn is recovered
//! exactly once and no committed event is lost.
//!
//! This test binary is its own child: run with CODEWHALE_TEST_CHILD_HOME it
//! serves the runtime with a scripted engine (whose turn never ends) until
//! it is killed; run by `cargo test` it drives the whole scenario.

#![allow(clippy::print_stdout)] // the child announces its URL on stdout

mod common;

use codewhale::{
    http::{
        auth::RuntimeToken,
        router,
        state::{AppState, EdgeOptions},
    },
    runtime::{approvals::DEFAULT_TIMEOUT, Runtime, RuntimeOptions},
};
use common::{
    scripted::{pieces, Scripted, Step},
    Api, Events, TOKEN,
};
use protocol::{ThreadDetail, TurnStatus};
use serde_json::{json, Value};
use std::{
    io::{BufRead, BufReader},
    net::SocketAddr,
    path::Path,
    process::{Child, Command, Stdio},
    sync::Arc,
};

const CHILD_HOME: &str = "CODEWHALE_TEST_CHILD_HOME";

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    match std::env::var(CHILD_HOME) {
        Ok(home) => runtime.block_on(serve_scripted(Path::new(&home))),
        Err(_) => {
            runtime.block_on(scenario());
            println!("sigkill_recovery: ok");
        }
    }
}

async fn serve_scripted(home: &Path) {
    let engine = Scripted::new(vec![Step::Say(pieces("half an answer ")), Step::Hang]);
    let runtime = Runtime::open(RuntimeOptions {
        home: home.to_path_buf(),
        engine,
        pricing: Default::default(),
        default_workspace: home.to_path_buf(),
        wait_timeout: DEFAULT_TIMEOUT,
        clock: Default::default(),
        sub_agents: Default::default(),
    })
    .await
    .unwrap();
    let edge = EdgeOptions {
        bind_host: "127.0.0.1".into(),
        port: 0,
        token: Some(RuntimeToken::resolve(Some(TOKEN.into())).unwrap()),
        web: None,
        cors_origins: vec![],
        allowed_hosts: vec![],
        pairing: None,
        tls: false,
    };
    let runtime = Arc::new(runtime);
    runtime.run_tasks(2);
    let state = AppState::new(runtime, edge);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("http://{}", listener.local_addr().unwrap());
    let service = router::app(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, service).await.unwrap();
}

fn spawn(mut command: Command) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, line.trim().to_string())
}

fn real_binary(home: &Path) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_codewhale"));
    command
        .args(["app-server", "--http", "--port", "0", "--auth-token", TOKEN])
        .env("CODEWHALE_HOME", home);
    spawn(command)
}

async fn scenario() {
    let home = tempfile::tempdir().unwrap();

    let mut child_command = Command::new(std::env::current_exe().unwrap());
    child_command.env(CHILD_HOME, home.path());
    let (mut child, base) = spawn(child_command);
    let api = Api::new(base);
    let tasks = queue_tasks(&api).await;
    let id = api.create_thread(json!({})).await.id;
    let mut reader = api.events(&id).await;
    let prompt = json!({"prompt": "start and never finish"});
    let started = api.try_start_turn(&id, prompt).await.json();
    let delivered: Vec<i64> = reader
        .until("item.delta")
        .await
        .iter()
        .map(|(_, event)| event["seq"].as_i64().unwrap())
        .collect();
    // The message item is open and the turn in progress: kill -9.
    child.kill().unwrap();
    child.wait().unwrap();

    let after_restart = recovered_state(home.path(), &id).await;
    let turn = &after_restart.0.turns[0];
    assert_eq!(started["turn"]["id"], turn.id);
    assert_eq!(turn.status, TurnStatus::Interrupted);
    assert_eq!(
        turn.error.as_deref(),
        Some("Interrupted by process restart")
    );
    assert!(after_restart
        .0
        .items
        .iter()
        .all(|i| i.status != protocol::ItemStatus::InProgress));
    let seqs: Vec<i64> = after_restart
        .1
        .iter()
        .map(|(_, e)| e["seq"].as_i64().unwrap())
        .collect();
    for seq in &delivered {
        assert!(
            seqs.contains(seq),
            "committed event {seq} survived the kill"
        );
    }
    let completions = |events: &Events| -> Vec<Value> {
        events
            .iter()
            .map(|(_, e)| e)
            .filter(|e| e["event"] == "turn.completed")
            .cloned()
            .collect()
    };
    let once = completions(&after_restart.1);
    assert_eq!(once.len(), 1);
    assert_eq!(once[0]["payload"]["recovered"], true);

    // A second restart recovers nothing more.
    let again = recovered_state(home.path(), &id).await;
    assert_eq!(completions(&again.1).len(), 1);
    assert_eq!(again.0.turns, after_restart.0.turns);

    tasks_after_restart(home.path(), tasks).await;
}

/// Three tasks on the scripted server (two at a time, turns that never
/// end): `plain` and `requeue` running, `queued` waiting.
async fn queue_tasks(api: &Api) -> [String; 3] {
    let mut ids = Vec::new();
    for requeue in [false, true, false] {
        let body = json!({ "prompt": "work overnight", "requeue_on_restart": requeue });
        let reply = api.post("/v1/tasks", &body).await;
        assert_eq!(reply.status, 201, "{}", reply.text());
        ids.push(reply.json()["id"].as_str().unwrap().to_string());
    }
    for id in &ids[..2] {
        until(api, id, |task| {
            task["status"] == "running" && task["turn_id"].is_string()
        })
        .await;
    }
    assert_eq!(task(api, &ids[2]).await["status"], "queued");
    [ids[0].clone(), ids[1].clone(), ids[2].clone()]
}

/// After the kill: the running task without requeue is interrupted; the
/// one that asked is queued again and runs, as does the queued one (the
/// real binary has no provider configured, so both then fail).
async fn tasks_after_restart(home: &Path, [plain, requeue, queued]: [String; 3]) {
    let (mut server, base) = real_binary(home);
    let api = Api::new(base);
    let interrupted = task(&api, &plain).await;
    assert_eq!(interrupted["status"], "interrupted");
    assert_eq!(interrupted["error"], "Interrupted by process restart");
    for id in [&requeue, &queued] {
        let ran = until(&api, id, |task| task["status"] == "failed").await;
        assert_ne!(ran["error"], "Interrupted by process restart", "{ran}");
    }
    server.kill().unwrap();
    server.wait().unwrap();
}

async fn task(api: &Api, id: &str) -> Value {
    api.get(&format!("/v1/tasks/{id}")).await.json()
}

async fn until(api: &Api, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..200 {
        let task = task(api, id).await;
        if done(&task) {
            return task;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("task {id} never got there: {}", task(api, id).await);
}

/// Starts the real binary on `home`, returns (thread detail, every event),
/// and stops it with SIGTERM.
async fn recovered_state(home: &Path, id: &str) -> (ThreadDetail, Events) {
    let (mut server, base) = real_binary(home);
    let api = Api::new(base);
    let detail = api.thread(id).await;
    let mut reader = api.events_since(id, 0).await;
    let events = reader.through(detail.latest_seq).await;
    assert!(reader.quiet_for(200).await);
    Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(server.wait().unwrap().success());
    (detail, events)
}
