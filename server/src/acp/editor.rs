//! The editor as the turn's file system and terminal: when the client
//! advertises `fs.readTextFile`, `fs.writeTextFile` or `terminal`, a
//! prompt attaches this host to its thread and the agent's read_file,
//! write_file, edit_file and exec_shell go through `fs/*` and
//! `terminal/*` (the runtime has already confined every path).
//!
//! A command's terminal is embedded in its tool call for live output. The
//! terminal may exist before the prompt loop has announced the tool call
//! (the item event travels through the store), so the embedding waits for
//! the announcement (`Shown`).

use super::{session::notify, wire};
use crate::runtime::hosted_tools::{CommandRun, Delegation, Editor, EditorCommand};
use agent_client_protocol::{
    v1::{
        schema::{
            ClientCapabilities, CreateTerminalRequest, KillTerminalRequest, ReadTextFileRequest,
            ReleaseTerminalRequest, TerminalOutputRequest, WaitForTerminalExitRequest,
            WriteTextFileRequest,
        },
        ConnectionTo,
    },
    Client, JsonRpcRequest,
};
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::{
    collections::{HashMap, HashSet},
    path::PathBuf,
    sync::{Arc, Mutex},
};

pub(super) struct AcpEditor {
    cx: ConnectionTo<Client>,
    session_id: String,
    delegation: Delegation,
    shown: Arc<Mutex<Shown>>,
}

/// Tool calls announced to the client, and terminals waiting for theirs.
#[derive(Default)]
struct Shown {
    announced: HashSet<String>,
    waiting: HashMap<String, String>,
}

/// What the client's capabilities delegate; `None` when nothing.
pub(super) fn delegation(client: &ClientCapabilities) -> Option<Delegation> {
    let delegation = Delegation {
        read: client.fs.read_text_file,
        write: client.fs.write_text_file,
        terminal: client.terminal,
    };
    (delegation != Delegation::default()).then_some(delegation)
}

impl AcpEditor {
    pub fn new(cx: ConnectionTo<Client>, session_id: &str, delegation: Delegation) -> Self {
        Self {
            cx,
            session_id: session_id.to_string(),
            delegation,
            shown: Arc::default(),
        }
    }

    /// The prompt loop announced the tool call `item_id`: a terminal
    /// already made for it is embedded now.
    pub fn announced(&self, item_id: &str) {
        let mut shown = self.shown.lock().unwrap_or_else(|p| p.into_inner());
        match shown.waiting.remove(item_id) {
            Some(terminal) => embed(&self.cx, &self.session_id, item_id, &terminal),
            None => {
                shown.announced.insert(item_id.to_string());
            }
        }
    }
}

impl Editor for AcpEditor {
    fn delegates(&self) -> Delegation {
        self.delegation
    }

    fn read_text_file(&self, path: PathBuf) -> BoxFuture<'static, Result<String, String>> {
        let (cx, session_id) = (self.cx.clone(), self.session_id.clone());
        Box::pin(async move {
            let request: ReadTextFileRequest = request(json!({
                "sessionId": session_id, "path": path,
            }))?;
            Ok(ask(&cx, request).await?.content)
        })
    }

    fn write_text_file(
        &self,
        path: PathBuf,
        content: String,
    ) -> BoxFuture<'static, Result<(), String>> {
        let (cx, session_id) = (self.cx.clone(), self.session_id.clone());
        Box::pin(async move {
            let request: WriteTextFileRequest = request(json!({
                "sessionId": session_id, "path": path, "content": content,
            }))?;
            ask(&cx, request).await.map(|_| ())
        })
    }

    fn run_command(
        &self,
        command: EditorCommand,
    ) -> BoxFuture<'static, Result<CommandRun, String>> {
        let (cx, session_id, shown) =
            (self.cx.clone(), self.session_id.clone(), self.shown.clone());
        Box::pin(async move {
            let create: CreateTerminalRequest = request(json!({
                "sessionId": session_id,
                "command": "sh",
                "args": ["-c", command.command],
                "cwd": command.cwd,
                "outputByteLimit": command.output_limit,
            }))?;
            let terminal = create_terminal(&cx, &session_id, create).await?;
            let mut release = Release {
                cx: cx.clone(),
                session_id: session_id.clone(),
                terminal: Some(terminal.clone()),
            };
            {
                let mut shown = shown.lock().unwrap_or_else(|p| p.into_inner());
                if shown.announced.remove(&command.item_id) {
                    embed(&cx, &session_id, &command.item_id, &terminal);
                } else {
                    shown
                        .waiting
                        .insert(command.item_id.clone(), terminal.clone());
                }
            }
            let ids = json!({ "sessionId": session_id, "terminalId": terminal });
            let wait: WaitForTerminalExitRequest = request(ids.clone())?;
            let timed_out = match tokio::time::timeout(command.timeout, ask(&cx, wait)).await {
                Ok(Ok(_)) => false,
                // Not known to have ended: the release kills it.
                Ok(Err(error)) => return Err(format!("waiting for the command failed: {error}")),
                Err(_) => true,
            };
            if timed_out {
                let kill: KillTerminalRequest = request(ids.clone())?;
                ask(&cx, kill).await?;
            }
            let output: TerminalOutputRequest = request(ids)?;
            let output = ask(&cx, output).await?;
            release.now().await;
            let status = output.exit_status;
            Ok(CommandRun {
                output: output.output,
                truncated: output.truncated,
                exit_code: status.as_ref().and_then(|s| s.exit_code).map(|c| c as i32),
                signal: status.and_then(|s| s.signal),
                timed_out,
                terminal_id: Some(terminal),
            })
        })
    }
}

/// Creates the terminal from a task of its own: when the turn is
/// interrupted while the client is still creating it, the id that arrives
/// later is released rather than dropped (the agent must release every
/// terminal it made).
async fn create_terminal(
    cx: &ConnectionTo<Client>,
    session_id: &str,
    create: CreateTerminalRequest,
) -> Result<String, String> {
    let (sender, created) = tokio::sync::oneshot::channel();
    let (cx, session_id) = (cx.clone(), session_id.to_string());
    tokio::spawn(async move {
        let result = ask(&cx, create)
            .await
            .map(|response| response.terminal_id.0.to_string());
        if let Err(Ok(orphan)) = sender.send(result) {
            let mut release = Release {
                cx,
                session_id,
                terminal: Some(orphan),
            };
            release.now().await;
        }
    });
    created
        .await
        .map_err(|_| "the terminal was not created".to_string())?
}

/// Releases the terminal (which kills a command still running) however
/// the run ends: an interrupted turn drops it mid-wait.
struct Release {
    cx: ConnectionTo<Client>,
    session_id: String,
    terminal: Option<String>,
}

impl Release {
    async fn now(&mut self) {
        if let Some(request) = self.request() {
            if let Err(error) = ask(&self.cx, request).await {
                tracing::debug!(%error, "acp: releasing a terminal failed");
            }
        }
    }

    fn request(&mut self) -> Option<ReleaseTerminalRequest> {
        let terminal = self.terminal.take()?;
        request(json!({ "sessionId": self.session_id, "terminalId": terminal })).ok()
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        let Some(request) = self.request() else {
            return;
        };
        let cx = self.cx.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = ask(&cx, request).await;
            });
        }
    }
}

/// Shows the terminal inside the tool call.
fn embed(cx: &ConnectionTo<Client>, session_id: &str, item_id: &str, terminal: &str) {
    let update = json!({
        "sessionUpdate": "tool_call_update",
        "toolCallId": item_id,
        "status": "in_progress",
        "content": [{ "type": "terminal", "terminalId": terminal }],
    });
    if let Err(error) = notify(cx, session_id, update) {
        tracing::debug!(%error, "acp: a terminal was not shown");
    }
}

fn request<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, String> {
    wire(value).map_err(|_| "the request did not match the ACP schema".to_string())
}

/// Sends a request to the client and waits for its answer.
async fn ask<R: JsonRpcRequest>(
    cx: &ConnectionTo<Client>,
    request: R,
) -> Result<R::Response, String> {
    cx.send_request(request)
        .block_task()
        .await
        .map_err(|error| error.message.clone())
}
