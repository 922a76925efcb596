//! The chat a model sees: the thread's system prompt, then its user and
//! agent messages in order.

use app::protocol::{ItemKind, ThreadRecord, TurnItemRecord};
use serde_json::{json, Value};

pub fn messages(thread: &ThreadRecord, history: &[TurnItemRecord]) -> Vec<Value> {
    let mut messages = Vec::new();
    if let Some(prompt) = thread.system_prompt.as_deref().filter(|p| !p.is_empty()) {
        messages.push(json!({ "role": "system", "content": prompt }));
    }
    for item in history {
        let role = match item.kind {
            ItemKind::UserMessage => "user",
            ItemKind::AgentMessage | ItemKind::ContextCompaction => "assistant",
            _ => continue,
        };
        if item.status == "completed" {
            if let Some(text) = item.detail.as_deref().filter(|t| !t.is_empty()) {
                messages.push(json!({ "role": role, "content": text }));
            }
        }
    }
    messages
}

pub fn compaction_request(reason: Option<&str>) -> Value {
    let mut ask = String::from(
        "Summarize this conversation so far for your own later use: the goal, decisions, \
         facts learned, files and commands involved, and what remains to do. Be complete but brief.",
    );
    if let Some(reason) = reason.filter(|r| !r.trim().is_empty()) {
        ask.push_str(&format!(" (Requested because: {reason})"));
    }
    json!({ "role": "user", "content": ask })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(kind: ItemKind, status: &str, text: &str) -> TurnItemRecord {
        TurnItemRecord {
            id: "item_1".into(),
            turn_id: "turn_1".into(),
            kind,
            status: status.into(),
            summary: String::new(),
            detail: Some(text.into()),
            metadata: json!({}),
            started_at: None,
            ended_at: None,
        }
    }

    #[test]
    fn history_becomes_a_chat() {
        let thread: ThreadRecord = serde_json::from_value(json!({
            "id": "thr_1", "created_at": "", "updated_at": "", "model": null, "model_provider": null,
            "workspace": null, "mode": "agent", "allow_shell": true, "trust_mode": false, "auto_approve": false,
            "title": null, "system_prompt": "Be brief.", "task_id": null, "latest_turn_id": null,
            "latest_response_bookmark": null, "archived": false
        }))
        .unwrap();
        let history = [
            item(ItemKind::UserMessage, "completed", "hi"),
            item(ItemKind::AgentReasoning, "completed", "thinking"),
            item(ItemKind::AgentMessage, "completed", "hello"),
            item(ItemKind::AgentMessage, "interrupted", "half"),
            item(ItemKind::UserMessage, "completed", "again"),
        ];
        let chat = messages(&thread, &history);
        let roles: Vec<&str> = chat.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
    }
}
