//! `session/prompt`: one runtime turn, followed on the thread's event
//! stream from before it started, its events sent as `session/update`s,
//! answered with the stop reason once the turn completed (after the last
//! update). `session/cancel` interrupts the turn; the prompt then answers
//! `cancelled`, not an error.

use super::{
    editor::{self, AcpEditor},
    invalid,
    permissions::Asks,
    questions::{self, Questions},
    rpc_error,
    session::notify,
    session::Acp,
    session::Prompt,
    updates::Mapper,
    wire,
};
use crate::runtime::{
    hosted_tools::{Editor, ExtraTools, Hosted},
    stream::Cursor,
};
use agent_client_protocol::{
    v1::{
        schema::{ContentBlock, PromptRequest, PromptResponse},
        ConnectionTo,
    },
    Client, Error,
};
use protocol::{CompactThread, EventName, StartTurn, TurnStatus};
use serde_json::{json, Value};
use std::sync::Arc;

impl Acp {
    /// One prompt at a time per session; the claim is released however the
    /// prompt ends.
    pub(super) async fn prompt(
        self: Arc<Self>,
        request: PromptRequest,
        cx: ConnectionTo<Client>,
    ) -> Result<PromptResponse, Error> {
        let id = request.session_id.0.to_string();
        self.attach(&id).await?;
        let prompt = prompt_text(&request.prompt)?;
        let claimed = self.with(&id, |s| match s.prompt {
            Prompt::Idle => {
                s.prompt = Prompt::Starting { cancelled: false };
                true
            }
            _ => false,
        });
        if claimed != Some(true) {
            return Err(Error::invalid_request()
                .data(json!({ "message": "a prompt is already running in this session" })));
        }
        let result = self.clone().run(id.clone(), prompt, cx).await;
        self.with(&id, |s| s.prompt = Prompt::Idle);
        result
    }

    async fn run(
        self: Arc<Self>,
        id: String,
        prompt: String,
        cx: ConnectionTo<Client>,
    ) -> Result<PromptResponse, Error> {
        let since = self
            .runtime
            .thread(&id)
            .await
            .map_err(rpc_error)?
            .latest_seq;
        let cursor = Cursor {
            since_seq: since,
            replay_limit: None,
        };
        let mut frames = self
            .runtime
            .subscribe(&id, cursor)
            .await
            .map_err(rpc_error)?;
        // The editor's buffers and terminals, and the session's MCP tools,
        // serve this prompt's turn, and only it.
        let client = self
            .client
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let editor =
            editor::delegation(&client).map(|d| Arc::new(AcpEditor::new(cx.clone(), &id, d)));
        let extra = match self.with(&id, |s| s.mcp.clone()).flatten() {
            Some(connecting) => connecting.await,
            None => None,
        };
        // Closed, or cancelled, while the servers connected: no turn.
        let go_on = self.with(&id, |s| {
            !matches!(s.prompt, Prompt::Starting { cancelled: true })
        });
        if go_on != Some(true) {
            return wire(json!({ "stopReason": "cancelled" }));
        }
        let hosted = Hosted {
            editor: editor.clone().map(|e| e as Arc<dyn Editor>),
            extra: extra.map(|m| m as Arc<dyn ExtraTools>),
        };
        let started = if prompt.trim() == "/compact" {
            self.runtime
                .compact_thread(&id, CompactThread::default())
                .await
        } else {
            let request = StartTurn {
                prompt,
                ..StartTurn::default()
            };
            self.runtime.start_turn_hosted(&id, request, hosted).await
        }
        .map_err(rpc_error)?;
        let turn_id = started.turn.id;
        let cancelled = self.with(&id, |s| {
            let cancelled = matches!(s.prompt, Prompt::Starting { cancelled: true });
            s.prompt = Prompt::Running(turn_id.clone());
            cancelled
        });
        if cancelled == Some(true) {
            self.cancel(&id).await;
        }
        let workspace = self.with(&id, |s| s.workspace.clone()).unwrap_or_default();
        let mapper = Mapper::new(&workspace);
        let mut asks = Asks::new(self.clone(), cx.clone(), &id);
        let mut questions =
            questions::supported(&client).then(|| Questions::new(self.clone(), cx.clone(), &id));
        let mut finish: Option<String> = None;
        let mut started_tool: Option<String> = None;
        let turn = loop {
            let Some(frame) = frames.recv().await else {
                break None;
            };
            let Ok(envelope) = serde_json::from_str::<Value>(&frame.data) else {
                continue;
            };
            let Some(name) = EventName::parse(&frame.event) else {
                continue;
            };
            if envelope["turn_id"].as_str().is_some_and(|t| t != turn_id) {
                continue;
            }
            let payload = &envelope["payload"];
            match name {
                EventName::ItemStarted if is_tool(&payload["item"]["kind"]) => {
                    if let Ok(item) = serde_json::from_value(payload["item"].clone()) {
                        asks.item_started(&mapper, item);
                    }
                    started_tool = payload["item"]["id"].as_str().map(str::to_string);
                }
                EventName::ItemCompleted if payload["item"]["kind"] == "agent_message" => {
                    finish = payload["item"]["metadata"]["finish_reason"]
                        .as_str()
                        .map(str::to_string);
                }
                EventName::ItemCompleted | EventName::ItemFailed | EventName::ItemInterrupted => {
                    asks.item_ended(envelope["item_id"].as_str().unwrap_or_default());
                }
                _ => {}
            }
            for update in mapper.event(name, &envelope) {
                if let Err(error) = notify(&cx, &id, update) {
                    tracing::debug!(%error, "acp: an update was not sent");
                }
            }
            if let (Some(item), Some(editor)) = (started_tool.take(), &editor) {
                editor.announced(&item);
            }
            match name {
                EventName::ApprovalRequired => asks.required(&mapper, payload),
                EventName::ApprovalDecided => {
                    asks.settled(payload["approval_id"].as_str().unwrap_or_default());
                }
                EventName::UserInputRequired => {
                    if let Some(questions) = &mut questions {
                        questions.required(payload);
                    }
                }
                EventName::UserInputAnswered | EventName::UserInputCanceled => {
                    if let Some(questions) = &mut questions {
                        questions.settled(payload["input_id"].as_str().unwrap_or_default());
                    }
                }
                EventName::TurnCompleted => break Some(payload["turn"].clone()),
                _ => {}
            }
        };
        let Some(turn) = turn else {
            return Err(
                Error::internal_error().data(json!({ "message": "the event stream ended" }))
            );
        };
        let status: Option<TurnStatus> = serde_json::from_value(turn["status"].clone()).ok();
        let stop = match (status, finish.as_deref()) {
            (Some(TurnStatus::Interrupted | TurnStatus::Canceled), _) => "cancelled",
            (Some(TurnStatus::Completed), Some("length")) => "max_tokens",
            (Some(TurnStatus::Completed), Some("content_filter")) => "refusal",
            (Some(TurnStatus::Completed), _) => "end_turn",
            _ => {
                let message = turn["error"].as_str().unwrap_or("the turn failed");
                return Err(Error::new(-32603, message.to_string()));
            }
        };
        wire(json!({ "stopReason": stop }))
    }

    /// `session/cancel`: interrupts the running turn (or the one about to
    /// start). Nothing running is not an error.
    pub(super) async fn cancel(&self, id: &str) {
        let turn = self.with(id, |s| match &mut s.prompt {
            Prompt::Running(turn) => Some(turn.clone()),
            Prompt::Starting { cancelled } => {
                *cancelled = true;
                None
            }
            Prompt::Idle => None,
        });
        if let Some(Some(turn)) = turn {
            if let Err(error) = self.runtime.interrupt_turn(id, &turn).await {
                tracing::debug!(%error, "acp: cancel found no running turn");
            }
        }
    }
}

fn is_tool(kind: &Value) -> bool {
    ["tool_call", "file_change", "command_execution"]
        .iter()
        .any(|k| kind == k)
}

/// The prompt as the text the model reads: text as is, links as links,
/// embedded resources fenced with their URI. Images and audio are not
/// offered (promptCapabilities), so they are refused.
fn prompt_text(blocks: &[ContentBlock]) -> Result<String, Error> {
    let mut parts = Vec::new();
    for block in blocks {
        let block = serde_json::to_value(block).unwrap_or_default();
        match block["type"].as_str() {
            Some("text") => parts.push(block["text"].as_str().unwrap_or_default().to_string()),
            Some("resource_link") => parts.push(format!(
                "[@{}]({})",
                block["name"].as_str().unwrap_or_default(),
                block["uri"].as_str().unwrap_or_default()
            )),
            Some("resource") => {
                let resource = &block["resource"];
                let uri = resource["uri"].as_str().unwrap_or_default();
                match resource["text"].as_str() {
                    Some(text) => {
                        parts.push(format!("<context uri=\"{uri}\">\n{text}\n</context>"))
                    }
                    None => parts.push(format!("[binary resource {uri} omitted]")),
                }
            }
            other => {
                return Err(invalid(format!(
                    "{} content is not supported",
                    other.unwrap_or("unknown")
                )))
            }
        }
    }
    let prompt = parts.join("\n\n");
    if prompt.trim().is_empty() {
        return Err(invalid("the prompt is empty"));
    }
    Ok(prompt)
}
