//! ACP driven by the `agent-client-protocol` crate's client side: the real
//! `codewhale acp` binary over stdio (its session is a thread `/v1` sees,
//! read through a real `app-server` on the same home), and in-process on
//! the harness's runtime, where the browser's approval (`/v1`) settles the
//! editor's permission request.

use crate::common::{self, agent::setup_with_provider, codewhale_in};
use agent_client_protocol::{
    on_receive_notification, on_receive_request,
    schema::ProtocolVersion,
    v1::{
        schema::{
            ContentBlock, InitializeRequest, NewSessionRequest, PromptRequest,
            RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
            ResumeSessionRequest, SelectedPermissionOutcome, SessionNotification, StopReason,
            TextContent,
        },
        ConnectionTo,
    },
    Agent, Channel, Client, Lines,
};
use mock_provider::{Chunk, Mock, Reply};
use serde_json::{json, Value};
use std::{
    io::{BufRead, BufReader},
    sync::{Arc, Mutex},
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

type Seen = Arc<Mutex<Vec<Value>>>;

fn tool_call(id: &str, name: &str, arguments: Value) -> Reply {
    Reply::Stream {
        chunks: vec![
            Chunk::ToolCall {
                index: 0,
                id: Some(id.into()),
                name: Some(name.into()),
                arguments: arguments.to_string(),
            },
            Chunk::Finish {
                reason: "tool_calls".into(),
            },
        ],
        delay_ms: 0,
    }
}

fn text(prompt: &str) -> Vec<ContentBlock> {
    vec![ContentBlock::Text(TextContent::new(prompt))]
}

/// The `update` objects received so far, as wire JSON.
fn updates(seen: &Seen) -> Vec<Value> {
    seen.lock().unwrap().clone()
}

/// `codewhale acp` as a child process, as an ACP transport (one JSON
/// message per line on its stdin and stdout).
fn spawn_agent(
    home: &std::path::Path,
    workspace: &std::path::Path,
) -> (
    tokio::process::Child,
    impl agent_client_protocol::ConnectTo<Client>,
) {
    let mut command = tokio::process::Command::from(codewhale_in(home));
    command
        .args(["acp", "--workspace"])
        .arg(workspace)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let outgoing = futures::sink::unfold(stdin, |mut stdin, line: String| async move {
        stdin.write_all(format!("{line}\n").as_bytes()).await?;
        stdin.flush().await?;
        Ok::<_, std::io::Error>(stdin)
    });
    let incoming = futures::stream::unfold(stdout.lines(), |mut lines| async move {
        match lines.next_line().await {
            Ok(Some(line)) => Some((Ok(line), lines)),
            Ok(None) => None,
            Err(e) => Some((Err(e), lines)),
        }
    });
    (child, Lines::new(Box::pin(outgoing), Box::pin(incoming)))
}

#[tokio::test]
async fn the_binary_runs_an_approved_write_and_v1_sees_the_session() {
    let mock = Mock::default();
    let url = mock.serve(0).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!("default_provider = \"mock\"\n[providers.mock]\nbase_url = \"{url}\"\nmodels = [\"mock-1\"]\n"),
    )
    .unwrap();
    mock.push(tool_call(
        "call_1",
        "write_file",
        json!({"path": "note.txt", "content": "hello\n"}),
    ));
    mock.push(Reply::text(&["Wrote ", "it."]));

    let (mut child, transport) = spawn_agent(home.path(), workspace.path());
    let seen: Seen = Arc::default();
    let asked: Seen = Arc::default();
    let ws = workspace.path().to_path_buf();
    let (seen2, asked2) = (seen.clone(), asked.clone());
    let session_id = Client
        .v1()
        .name("suite")
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                seen2
                    .lock()
                    .unwrap()
                    .push(serde_json::to_value(&n.update).unwrap());
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: RequestPermissionRequest, responder, _cx| {
                asked2
                    .lock()
                    .unwrap()
                    .push(serde_json::to_value(&request).unwrap());
                responder.respond(RequestPermissionResponse::new(
                    RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(
                        "allow_once",
                    )),
                ))
            },
            on_receive_request!(),
        )
        .connect_with(transport, async |cx: ConnectionTo<Agent>| {
            let init = cx
                .send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            assert!(init.agent_capabilities.load_session);
            let session = cx
                .send_request(NewSessionRequest::new(ws.clone()))
                .block_task()
                .await?;
            let answer = cx
                .send_request(PromptRequest::new(
                    session.session_id.clone(),
                    text("Write a note"),
                ))
                .block_task()
                .await?;
            assert_eq!(answer.stop_reason, StopReason::EndTurn);
            Ok(session.session_id.0.to_string())
        })
        .await
        .unwrap();
    drop(child.stdin.take());
    let _ = child.wait().await;

    assert_eq!(
        std::fs::read_to_string(workspace.path().join("note.txt")).unwrap(),
        "hello\n"
    );
    let asked = updates(&asked);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["toolCall"]["title"], "Write note.txt (6 bytes)");
    let updates = updates(&seen);
    let done = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed")
        .expect("a completed tool call");
    assert_eq!(done["kind"], "edit");
    let diff = &done["content"][0];
    assert_eq!(diff["type"], "diff");
    assert_eq!(
        diff["path"],
        workspace.path().join("note.txt").display().to_string()
    );
    assert_eq!(diff["oldText"], Value::Null);
    assert_eq!(diff["newText"], "hello\n");
    let said: String = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .map(|u| u["content"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(said, "Wrote it.");

    // The same home served over /v1: the session is a thread there.
    let token = "cwrt_acp_suite_token_0123456789";
    let mut server = codewhale_in(home.path());
    server
        .args(["app-server", "--http", "--port", "0"])
        .env("CODEWHALE_RUNTIME_TOKEN", token);
    let mut server = server.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let reply = common::client::http_client(None)
        .get(format!("{}/v1/threads/{session_id}", line.trim()))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = reply.status();
    let detail: Value = reply.json().await.unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(status, 200, "{detail}");
    assert_eq!(
        detail["thread"]["workspace"],
        workspace.path().display().to_string()
    );
    let kinds: Vec<&str> = detail["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["user_message", "file_change", "agent_message"]);
}

#[tokio::test]
async fn a_browser_approval_settles_the_editors_permission_request() {
    let workspace = tempfile::tempdir().unwrap();
    // A thread made through /v1 is an ACP session too.
    let setup = setup_with_provider("", json!({ "workspace": workspace.path() })).await;
    setup.mock.push(tool_call(
        "call_1",
        "write_file",
        json!({"path": "from-browser.txt", "content": "ok\n"}),
    ));
    setup.mock.push(Reply::text(&["Done."]));
    let (agent_end, client_end) = Channel::duplex();
    let runtime = setup._h.state.runtime.clone();
    tokio::spawn(codewhale::acp::serve(
        runtime,
        workspace.path().to_path_buf(),
        agent_end,
    ));

    let (asked_tx, mut asked_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let (cancelled_tx, mut cancelled_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let thread = setup.thread.clone();
    let api = &setup.api;
    Client
        .v1()
        .on_receive_request(
            async move |_request: RequestPermissionRequest, responder, _cx| {
                // The editor's user does not answer; the request waits until
                // the agent cancels it.
                let (asked, cancelled) = (asked_tx.clone(), cancelled_tx.clone());
                tokio::spawn(async move {
                    let _ = asked.send(());
                    responder.cancellation().cancelled().await;
                    let _ = cancelled.send(());
                    let _ = responder.respond(RequestPermissionResponse::new(
                        RequestPermissionOutcome::Cancelled,
                    ));
                });
                Ok(())
            },
            on_receive_request!(),
        )
        .connect_with(client_end, async |cx: ConnectionTo<Agent>| {
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            cx.send_request(ResumeSessionRequest::new(
                thread.clone(),
                workspace.path().to_path_buf(),
            ))
            .block_task()
            .await?;
            let prompt = cx
                .send_request(PromptRequest::new(thread.clone(), text("Write it")))
                .block_task();
            let decide = async {
                asked_rx.recv().await.unwrap();
                let pending = api.thread(&thread).await.pending_approvals;
                let id = pending[0]["approval_id"].as_str().unwrap().to_string();
                api.decide_approval(&id, json!({ "decision": "allow" }))
                    .await;
                cancelled_rx.recv().await.unwrap();
            };
            let (answer, ()) = tokio::join!(prompt, decide);
            assert_eq!(answer?.stop_reason, StopReason::EndTurn);
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("from-browser.txt")).unwrap(),
        "ok\n"
    );
}

#[tokio::test]
async fn bad_params_are_json_rpc_errors() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut child = codewhale_in(home.path())
        .args(["acp", "--workspace"])
        .arg(workspace.path())
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |line: &str| {
        std::io::Write::write_all(&mut stdin, format!("{line}\n").as_bytes()).unwrap();
    };
    // A client waits for initialize's answer before anything else.
    send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#);
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let init: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    for line in [
        "not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":42}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"session/nonsense","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"rel","mcpServers":[]}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"session/load","params":{"sessionId":"../x","cwd":"/","mcpServers":[]}}"#,
    ] {
        send(line);
    }
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let _ = child.wait();
    let replies: Vec<Value> = rest
        .lines()
        .map(|l| serde_json::from_str(l).expect("stdout carries only JSON-RPC"))
        .collect();
    let code = |id: i64| {
        replies
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["error"]["code"].clone())
    };
    assert_eq!(code(1), Some(json!(-32602)), "{replies:?}");
    assert_eq!(code(2), Some(json!(-32601)), "{replies:?}");
    assert_eq!(code(3), Some(json!(-32602)), "{replies:?}");
    assert_eq!(code(4), Some(json!(-32602)), "{replies:?}");
    assert!(
        replies.iter().any(|r| r["error"]["code"] == -32700),
        "{replies:?}"
    );
}

/// The editor runs `codewhale acp`; the browser is served by another
/// process (`app-server --http`) on the same home. Deciding there settles
/// the editor's request: the decision is forwarded to the process running
/// the turn, which cancels its pending `session/request_permission`.
#[tokio::test]
async fn an_approval_from_another_process_settles_the_editors_request() {
    let mock = Mock::default();
    let url = mock.serve(0).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!("default_provider = \"mock\"\n[providers.mock]\nbase_url = \"{url}\"\nmodels = [\"mock-1\"]\n"),
    )
    .unwrap();
    mock.push(tool_call(
        "call_1",
        "write_file",
        json!({"path": "elsewhere.txt", "content": "ok\n"}),
    ));
    mock.push(Reply::text(&["Done."]));
    let mut browser_side = codewhale_in(home.path());
    browser_side
        .args(["app-server", "--http", "--port", "0"])
        .env("CODEWHALE_RUNTIME_TOKEN", common::TOKEN);
    let server = common::process::start(browser_side);
    let (_child, transport) = spawn_agent(home.path(), workspace.path());

    let (asked_tx, mut asked_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let (cancelled_tx, mut cancelled_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let ws = workspace.path().to_path_buf();
    let base = server.base.clone();
    Client
        .v1()
        .on_receive_request(
            async move |_request: RequestPermissionRequest, responder, _cx| {
                let (asked, cancelled) = (asked_tx.clone(), cancelled_tx.clone());
                tokio::spawn(async move {
                    let _ = asked.send(());
                    responder.cancellation().cancelled().await;
                    let _ = cancelled.send(());
                    let _ = responder.respond(RequestPermissionResponse::new(
                        RequestPermissionOutcome::Cancelled,
                    ));
                });
                Ok(())
            },
            on_receive_request!(),
        )
        .connect_with(transport, async |cx: ConnectionTo<Agent>| {
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            let session = cx
                .send_request(NewSessionRequest::new(ws.clone()))
                .block_task()
                .await?;
            let thread = session.session_id.0.to_string();
            let prompt = cx
                .send_request(PromptRequest::new(
                    session.session_id.clone(),
                    text("Write it"),
                ))
                .block_task();
            let decide = async {
                asked_rx.recv().await.unwrap();
                // The browser learns the approval from the event stream.
                let mut events = common::EventReader::open(
                    &common::api_client(),
                    &format!("{base}/v1/threads/{thread}/events"),
                    &[],
                )
                .await;
                let required = events.payload("approval.required").await;
                let decided = common::api_client()
                    .post(format!(
                        "{base}/v1/approvals/{}",
                        required["approval_id"].as_str().unwrap()
                    ))
                    .json(&json!({ "decision": "allow" }))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(decided.status(), 200);
                cancelled_rx.recv().await.unwrap();
            };
            let (answer, ()) = tokio::join!(prompt, decide);
            assert_eq!(answer?.stop_reason, StopReason::EndTurn);
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("elsewhere.txt")).unwrap(),
        "ok\n"
    );
}
