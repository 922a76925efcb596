//! `codewhale app-server --stdio` as a real process: the JSON-RPC 2.0
//! control transport, its error codes, a full turn with an approval, and a
//! second process (`app-server --http`) sharing the store.

use crate::common::{self, agent::tool_call, codewhale_in, EventReader};
use mock_provider::{Chunk, Mock, Reply};
use serde_json::{json, Value};
use std::{collections::VecDeque, path::Path, process::Stdio, time::Duration};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines},
    process::{Child, ChildStdin, ChildStdout},
};

struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
    /// Notifications read while waiting for a reply.
    notes: VecDeque<Value>,
}

impl Peer {
    fn start(home: &Path, workspace: &Path) -> Peer {
        let mut command = tokio::process::Command::from(codewhale_in(home));
        command
            .args(["app-server", "--stdio", "--workspace"])
            .arg(workspace)
            .stdin(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().unwrap();
        Peer {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()).lines(),
            child,
            next_id: 1,
            notes: VecDeque::new(),
        }
    }

    async fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next line on stdout, which must be JSON.
    async fn line(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(15), self.stdout.next_line())
            .await
            .expect("a line within 15 s")
            .unwrap()
            .expect("stdout still open");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout is protocol only: {e}: {line:?}"))
    }

    /// The next reply (not a notification).
    async fn reply(&mut self) -> Value {
        loop {
            let line = self.line().await;
            if line.get("method").is_some() {
                self.notes.push_back(line);
            } else {
                return line;
            }
        }
    }

    /// Sends a request and waits for its reply.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send(&request.to_string()).await;
        let reply = self.reply().await;
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["jsonrpc"], "2.0");
        reply
    }

    /// A call that must succeed: its result.
    async fn ok(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call(method, params).await;
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// A call that must fail: its error.
    async fn refused(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call(method, params).await;
        assert!(reply.get("result").is_none(), "{method}: {reply}");
        reply["error"].clone()
    }

    /// Event envelopes from `thread/event` notifications, up to and
    /// including the first whose event is `name`.
    async fn events_until(&mut self, name: &str) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let note = match self.notes.pop_front() {
                Some(note) => note,
                None => self.line().await,
            };
            assert_eq!(note["method"], "thread/event", "{note}");
            let envelope = note["params"]["envelope"].clone();
            protocol::EventPayload::decode_exact(
                envelope["event"].as_str().unwrap(),
                &envelope["payload"],
            )
            .unwrap_or_else(|e| panic!("{e}"));
            let done = envelope["event"] == name;
            seen.push(envelope);
            if done {
                return seen;
            }
        }
    }

    /// `shutdown`, then the process must exit 0 with stdout closed.
    async fn shut_down(mut self) -> Value {
        let result = self.ok("shutdown", json!({})).await;
        let rest = tokio::time::timeout(Duration::from_secs(15), self.stdout.next_line())
            .await
            .expect("stdout closes after shutdown")
            .unwrap();
        assert_eq!(rest, None, "nothing after the shutdown reply");
        let status = tokio::time::timeout(Duration::from_secs(15), self.child.wait())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), Some(0));
        let mut stderr = String::new();
        use tokio::io::AsyncReadExt;
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .await
            .unwrap();
        assert!(
            !stderr.contains('\u{1b}'),
            "no colour codes in logs read by a program: {stderr}"
        );
        result
    }
}

async fn home_with_mock() -> (tempfile::TempDir, Mock) {
    let mock = Mock::default();
    let url = mock.serve(0).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!("default_provider = \"mock\"\n[providers.mock]\nbase_url = \"{url}\"\nmodels = [\"mock-1\"]\n"),
    )
    .unwrap();
    (home, mock)
}

#[tokio::test]
async fn probes_and_errors_without_a_provider() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut peer = Peer::start(home.path(), workspace.path());

    assert_eq!(peer.ok("healthz", json!({})).await["status"], "ok");
    let capabilities = peer.ok("capabilities", json!({})).await;
    let methods: Vec<&str> = capabilities["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(methods, codewhale::jsonrpc::methods::all_methods());
    for family in ["thread", "app", "prompt"] {
        let scoped = peer.ok(&format!("{family}/capabilities"), json!({})).await;
        assert_eq!(scoped["family"], family);
        assert_eq!(scoped["methods"], capabilities["families"][family]);
    }
    let config = peer.ok("app/config/get", json!({})).await;
    assert_eq!(config["config_present"], false);
    assert_eq!(config["default_workspace"], json!(workspace.path()));
    let models = peer.ok("app/models", json!({})).await;
    assert!(models
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["ready"] == false));

    // Bad JSON: -32700 with a null id, and the server keeps serving.
    peer.send("{not json").await;
    let parse = peer.reply().await;
    assert_eq!(
        (parse["id"].clone(), parse["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );
    peer.send(r#"{"jsonrpc":"1.0","id":"v","method":"healthz"}"#)
        .await;
    let wrong = peer.reply().await;
    assert_eq!(
        (wrong["id"].clone(), wrong["error"]["code"].clone()),
        (json!("v"), json!(-32600))
    );
    peer.send(r#"{"jsonrpc":"2.0","id":[1],"method":"healthz"}"#)
        .await;
    assert_eq!(peer.reply().await["error"]["code"], -32600);
    assert_eq!(peer.refused("thread/nope", json!({})).await["code"], -32601);
    assert_eq!(peer.refused("thread/read", json!({})).await["code"], -32602);
    assert_eq!(
        peer.refused("healthz", json!({"extra": 1})).await["code"],
        -32602
    );
    assert_eq!(
        peer.refused("thread/create", json!({"mode": "nonsense"}))
            .await["data"]["kind"],
        "invalid"
    );
    let missing = peer
        .refused("thread/read", json!({"thread_id": "thr_0123456789abcdef"}))
        .await;
    assert_eq!(missing["code"], -32000);
    assert_eq!(missing["data"], json!({"kind": "not_found", "status": 404}));
    // No provider configured: starting a turn is refused like /v1's 409.
    let thread = peer.ok("thread/create", json!({})).await;
    let refused = peer
        .refused(
            "thread/start",
            json!({"thread_id": thread["id"], "prompt": "hi"}),
        )
        .await;
    assert_eq!(refused["data"]["kind"], "conflict", "{refused}");

    // A notification gets no reply; a batch gets an array of the replies.
    peer.send(r#"{"jsonrpc":"2.0","method":"healthz"}"#).await;
    peer.send(r#"[{"jsonrpc":"2.0","id":"b1","method":"healthz"},{"jsonrpc":"2.0","method":"healthz"},{"jsonrpc":"2.0","id":"b2","method":"nope"}]"#).await;
    let batch = peer.reply().await;
    let batch = batch.as_array().expect("a batch is answered with an array");
    assert_eq!(batch.len(), 2);
    let ids: std::collections::BTreeSet<_> = batch.iter().map(|r| r["id"].to_string()).collect();
    assert_eq!(ids, ["\"b1\"".to_string(), "\"b2\"".to_string()].into());
    peer.send("[]").await;
    assert_eq!(peer.reply().await["error"]["code"], -32600);

    // A request over the body limit is refused and skipped, not buffered.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"healthz","params":{{"x":"{}"}}}}"#,
        "a".repeat(17 << 20)
    );
    peer.send(&huge).await;
    let too_long = peer.reply().await;
    assert_eq!(too_long["error"]["code"], -32600, "{too_long}");
    assert_eq!(peer.ok("healthz", json!({})).await["status"], "ok");

    let threads = peer.ok("thread/list", json!({"limit": 5})).await;
    assert_eq!(threads.as_array().unwrap().len(), 1);
    assert_eq!(peer.shut_down().await["interrupted_turns"], 0);
}

/// A full turn with an approval over JSON-RPC. A second process, the HTTP
/// server on the same store, follows the thread live over SSE: both see
/// the same envelopes in the same order.
#[tokio::test]
async fn a_turn_with_an_approval_matches_the_sse_envelopes_of_another_process() {
    let (home, mock) = home_with_mock().await;
    let workspace = tempfile::tempdir().unwrap();
    mock.push(tool_call(
        "write_file",
        json!({"path": "x.txt", "content": "from stdio\n"}),
    ));
    mock.push(Reply::text(&["Wrote ", "x.txt."]));
    let mut peer = Peer::start(home.path(), workspace.path());
    let thread = peer.ok("thread/create", json!({"title": "stdio"})).await;
    let thread_id = thread["id"].as_str().unwrap().to_string();
    let subscribed = peer
        .ok("thread/subscribe", json!({"thread_id": thread_id}))
        .await;
    assert_eq!(subscribed["thread_id"], thread_id.as_str());

    let mut http = codewhale_in(home.path());
    http.args(["app-server", "--http", "--port", "0"])
        .env("CODEWHALE_RUNTIME_TOKEN", common::TOKEN);
    let server = common::process::start(http);
    let mut sse = EventReader::open(
        &common::api_client(),
        &format!("{}/v1/threads/{thread_id}/events", server.base),
        &[],
    )
    .await;

    let started = peer
        .ok(
            "thread/start",
            json!({"thread_id": thread_id, "prompt": "write x"}),
        )
        .await;
    let turn_id = started["turn"]["id"].as_str().unwrap().to_string();
    let mut notified = peer.events_until("approval.required").await;
    let approval = notified.last().unwrap()["payload"].clone();
    assert_eq!(approval["tool_name"], "write_file");
    let decided = peer
        .ok(
            "thread/approve",
            json!({"approval_id": approval["approval_id"], "decision": "allow"}),
        )
        .await;
    assert_eq!(decided["ok"], true);
    notified.extend(peer.events_until("turn.completed").await);
    let completed = notified.last().unwrap();
    assert_eq!(completed["turn_id"], turn_id.as_str());
    assert_eq!(completed["payload"]["turn"]["status"], "completed");
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("x.txt")).unwrap(),
        "from stdio\n"
    );

    // The other process delivered the same envelopes, live.
    let streamed: Vec<Value> = sse
        .until("turn.completed")
        .await
        .0
        .into_iter()
        .map(|(_, e)| e)
        .collect();
    assert_eq!(
        streamed, notified,
        "SSE and JSON-RPC carry the same envelopes"
    );
    let seqs: Vec<i64> = notified
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");

    // And the reverse: a rename through HTTP reaches the stdio subscriber.
    let renamed = common::api_client()
        .patch(format!("{}/v1/threads/{thread_id}", server.base))
        .json(&json!({"title": "renamed over HTTP"}))
        .send()
        .await
        .unwrap();
    assert_eq!(renamed.status(), 200);
    let updated = peer.events_until("thread.updated").await;
    assert_eq!(
        updated.last().unwrap()["payload"]["thread"]["title"],
        "renamed over HTTP"
    );

    let detail = peer
        .ok("thread/read", json!({"thread_id": thread_id}))
        .await;
    assert_eq!(detail["thread"]["title"], "renamed over HTTP");
    peer.shut_down().await;
}

#[tokio::test]
async fn prompt_run_answers_and_shutdown_interrupts_a_running_turn() {
    let (home, mock) = home_with_mock().await;
    let workspace = tempfile::tempdir().unwrap();
    mock.push(Reply::text(&["forty", "-two"]));
    let mut peer = Peer::start(home.path(), workspace.path());
    let run = peer
        .ok("prompt/run", json!({"prompt": "the answer?"}))
        .await;
    assert_eq!(run["answer"], "forty-two");
    assert_eq!(run["turn"]["status"], "completed");
    let thread_id = run["thread_id"].as_str().unwrap().to_string();
    assert_eq!(
        mock.requests()[0]["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["content"],
        "the answer?"
    );

    // A slow reply keeps the next turn running until shutdown ends it.
    mock.push(Reply::Stream {
        chunks: (0..200)
            .map(|i| Chunk::Text {
                text: format!("{i} "),
            })
            .collect(),
        delay_ms: 100,
    });
    let since_seq = run_seq(&mut peer, &thread_id).await;
    peer.ok(
        "thread/subscribe",
        json!({"thread_id": thread_id, "since_seq": since_seq}),
    )
    .await;
    let started = peer
        .ok(
            "thread/start",
            json!({"thread_id": thread_id, "prompt": "count slowly"}),
        )
        .await;
    peer.events_until("item.delta").await;
    // A second process opening the store meanwhile leaves this turn alone
    // (no restart recovery while another process is alive), and one turn
    // per thread holds across the two.
    let mut http = codewhale_in(home.path());
    http.args(["app-server", "--http", "--port", "0"])
        .env("CODEWHALE_RUNTIME_TOKEN", common::TOKEN);
    let server = common::process::start(http);
    let client = common::api_client();
    let seen: Value = client
        .get(format!("{}/v1/threads/{thread_id}", server.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        seen["turns"].as_array().unwrap().last().unwrap()["status"],
        "in_progress"
    );
    let second = client
        .post(format!("{}/v1/threads/{thread_id}/turns", server.base))
        .json(&json!({"prompt": "me too"}))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 409);
    drop(server);
    let steered = peer
        .ok(
            "thread/steer",
            json!({"thread_id": thread_id, "turn_id": started["turn"]["id"], "prompt": "faster"}),
        )
        .await;
    assert_eq!(steered["steer_count"], 1);
    assert_eq!(peer.shut_down().await["interrupted_turns"], 1);

    let mut again = Peer::start(home.path(), workspace.path());
    let detail = again
        .ok("thread/read", json!({"thread_id": thread_id}))
        .await;
    let last = detail["turns"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["status"], "interrupted", "{last}");
    again.shut_down().await;
}

/// The thread's newest seq, to subscribe from now on.
async fn run_seq(peer: &mut Peer, thread_id: &str) -> i64 {
    peer.ok("thread/read", json!({"thread_id": thread_id}))
        .await["latest_seq"]
        .as_i64()
        .unwrap()
}

/// An approval a stdio turn waits on, decided through the HTTP server of
/// another process on the same store (as a browser would): the owner
/// settles it once, and the turn goes on.
#[tokio::test]
async fn another_process_can_decide_an_approval_this_one_waits_on() {
    let (home, mock) = home_with_mock().await;
    let workspace = tempfile::tempdir().unwrap();
    mock.push(tool_call(
        "write_file",
        json!({"path": "y.txt", "content": "approved elsewhere\n"}),
    ));
    mock.push(Reply::text(&["Done."]));
    let mut peer = Peer::start(home.path(), workspace.path());
    let thread = peer.ok("thread/create", json!({})).await;
    let thread_id = thread["id"].as_str().unwrap().to_string();
    peer.ok("thread/subscribe", json!({"thread_id": thread_id}))
        .await;
    let mut http = codewhale_in(home.path());
    http.args(["app-server", "--http", "--port", "0"])
        .env("CODEWHALE_RUNTIME_TOKEN", common::TOKEN);
    let server = common::process::start(http);
    let client = common::api_client();

    peer.ok(
        "thread/start",
        json!({"thread_id": thread_id, "prompt": "write y"}),
    )
    .await;
    let required = peer.events_until("approval.required").await;
    let approval_id = required.last().unwrap()["payload"]["approval_id"]
        .as_str()
        .unwrap()
        .to_string();
    let unknown = client
        .post(format!("{}/v1/approvals/apr_0123456789abcdef", server.base))
        .json(&json!({"decision": "allow"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let decided = client
        .post(format!("{}/v1/approvals/{approval_id}", server.base))
        .json(&json!({"decision": "allow"}))
        .send()
        .await
        .unwrap();
    assert_eq!(decided.status(), 200);
    let decided: Value = decided.json().await.unwrap();
    assert_eq!(
        (decided["decision"].clone(), decided["delivered"].clone()),
        (json!("allow"), json!(true))
    );
    let rest = peer.events_until("turn.completed").await;
    let decisions: Vec<&Value> = rest
        .iter()
        .filter(|e| e["event"] == "approval.decided")
        .collect();
    assert_eq!(decisions.len(), 1, "settled once, by the owner");
    assert_eq!(
        rest.last().unwrap()["payload"]["turn"]["status"],
        "completed"
    );
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("y.txt")).unwrap(),
        "approved elsewhere\n"
    );
    // Settled: a second decision finds nothing pending anywhere.
    let again = client
        .post(format!("{}/v1/approvals/{approval_id}", server.base))
        .json(&json!({"decision": "deny"}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404);
    peer.shut_down().await;
}
