//! Approvals as `session/request_permission`. The runtime asks
//! (`approval.required`); the client's choice settles it through
//! `Runtime::decide_approval`, the one settlement owner, so whichever of
//! the editor and the browser answers first wins. When the other side (or
//! the turn's end) settled it first, the outstanding request is dropped,
//! which sends `$/cancel_request`, and a late answer is ignored.

use super::{
    session::Acp,
    updates::{self, Mapper},
    wire,
};
use crate::runtime::error::RuntimeError;
use agent_client_protocol::{
    v1::{
        schema::{RequestPermissionRequest, RequestPermissionResponse},
        ConnectionTo,
    },
    Client,
};
use protocol::{ApprovalDecision, DecideApproval, TurnItemRecord};
use serde_json::{json, Value};
use std::{collections::HashMap, sync::Arc};
use tokio::sync::oneshot;

/// The permission options every request offers (ids = kinds).
const OPTIONS: [(&str, &str); 4] = [
    ("allow_once", "Allow"),
    ("allow_always", "Always allow"),
    ("reject_once", "Reject"),
    ("reject_always", "Always reject"),
];

/// The requests a prompt has outstanding, by approval id (settling one
/// elsewhere drops its request), and the pairing of approvals with the
/// tool items they are for. Item events reach the store through the turn's
/// writer task while approvals are committed directly, so an
/// `approval.required` may come before its item's `item.started`: it waits
/// for the next open item of the same tool.
pub(super) struct Asks {
    acp: Arc<Acp>,
    cx: ConnectionTo<Client>,
    session_id: String,
    open: HashMap<String, oneshot::Sender<()>>,
    /// Started tool items no approval has claimed yet.
    items: Vec<TurnItemRecord>,
    /// `approval.required` payloads waiting for their item.
    waiting: Vec<Value>,
}

impl Asks {
    pub fn new(acp: Arc<Acp>, cx: ConnectionTo<Client>, session_id: &str) -> Self {
        Self {
            acp,
            cx,
            session_id: session_id.to_string(),
            open: HashMap::new(),
            items: Vec::new(),
            waiting: Vec::new(),
        }
    }

    /// A tool item started: ask now if its approval came first.
    pub fn item_started(&mut self, mapper: &Mapper, item: TurnItemRecord) {
        let tool = updates::tool_name(&item);
        match self.waiting.iter().position(|p| p["tool_name"] == tool) {
            Some(at) => {
                let payload = self.waiting.remove(at);
                self.ask(&payload, mapper.tool_call(&item, "pending"));
            }
            None => self.items.push(item),
        }
    }

    pub fn item_ended(&mut self, item_id: &str) {
        self.items.retain(|item| item.id != item_id);
    }

    /// `approval.required`: asks with its tool item, or waits for it.
    pub fn required(&mut self, mapper: &Mapper, payload: &Value) {
        let tool = payload["tool_name"].as_str().unwrap_or_default();
        match self
            .items
            .iter()
            .rposition(|item| updates::tool_name(item) == tool)
        {
            Some(at) => {
                let item = self.items.remove(at);
                self.ask(payload, mapper.tool_call(&item, "pending"));
            }
            None => self.waiting.push(payload.clone()),
        }
    }

    /// Someone settled `approval_id` (this client, the browser, the turn's
    /// end): stop waiting on the client for it.
    pub fn settled(&mut self, approval_id: &str) {
        self.waiting.retain(|p| p["approval_id"] != approval_id);
        if let Some(stop) = self.open.remove(approval_id) {
            let _ = stop.send(());
        }
    }

    /// Asks the client about the approval in `payload` (an
    /// `approval.required` payload); `tool_call` is the tool call it is
    /// for, as announced.
    fn ask(&mut self, payload: &Value, mut tool_call: Value) {
        let (acp, cx, session_id) = (self.acp.clone(), self.cx.clone(), self.session_id.clone());
        let approval_id = payload["approval_id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let tool = payload["tool_name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let rejected = acp
            .with(&session_id, |s| s.rejected.contains(&tool))
            .unwrap_or(false);
        if rejected {
            tokio::spawn(async move { decide(&acp, &approval_id, "reject_once").await });
            return;
        }
        let (stop, stopped) = oneshot::channel();
        self.open.insert(approval_id.clone(), stop);
        if let Some(call) = tool_call.as_object_mut() {
            call.remove("sessionUpdate");
            call.insert("status".into(), json!("pending"));
            if let Some(description) = payload["description"].as_str() {
                call.insert("title".into(), json!(description));
            }
        }
        let options: Vec<Value> = OPTIONS
            .iter()
            .map(|(kind, name)| json!({ "optionId": kind, "name": name, "kind": kind }))
            .collect();
        let request = wire::<RequestPermissionRequest>(json!({
            "sessionId": session_id, "toolCall": tool_call, "options": options,
        }));
        tokio::spawn(async move {
            let request = match request {
                Ok(request) => request,
                Err(_) => return decide(&acp, &approval_id, "reject_once").await,
            };
            let answer = tokio::select! {
                answer = cx.send_request(request).block_task() => answer,
                // Settled elsewhere: dropping the request cancels it.
                _ = stopped => return,
            };
            let choice = match answer {
                Ok(response) => chosen(&response),
                Err(error) => {
                    tracing::debug!(%error, "acp: request_permission failed; rejecting");
                    "reject_once".to_string()
                }
            };
            if choice == "reject_always" {
                acp.with(&session_id, |s| s.rejected.insert(tool));
            }
            decide(&acp, &approval_id, &choice).await;
        });
    }
}

/// The option the client picked; a cancelled request rejects.
fn chosen(response: &RequestPermissionResponse) -> String {
    let outcome = serde_json::to_value(&response.outcome).unwrap_or_default();
    match outcome["outcome"].as_str() {
        Some("selected") => outcome["optionId"]
            .as_str()
            .unwrap_or("reject_once")
            .to_string(),
        _ => "reject_once".to_string(),
    }
}

async fn decide(acp: &Acp, approval_id: &str, option: &str) {
    let decision = DecideApproval {
        decision: if option.starts_with("allow") {
            ApprovalDecision::Allow
        } else {
            ApprovalDecision::Deny
        },
        remember: option == "allow_always",
    };
    match acp.runtime.decide_approval(approval_id, decision).await {
        // Someone else settled it first; their answer stands.
        Ok(_) | Err(RuntimeError::NotFound(_)) => {}
        Err(error) => tracing::warn!(%error, "acp: settling an approval failed"),
    }
}
