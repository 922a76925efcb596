//! The chat a model sees: the thread's system prompt, then its user and
//! agent messages in order, starting after the latest compaction summary.

use protocol::{ItemKind, ItemStatus, ThreadRecord, TurnItemRecord};
use serde_json::{json, Value};

/// The chat for a new turn: the system prompt (the thread's, then the
/// turn's instructions, then the latest compaction summary, if any), then
/// the user and agent messages after that summary.
pub fn messages(
    thread: &ThreadRecord,
    instructions: &str,
    history: &[TurnItemRecord],
) -> Vec<Value> {
    let summary_at = history.iter().rposition(|item| {
        item.kind == ItemKind::ContextCompaction
            && item.status == ItemStatus::Completed
            && item.detail.as_deref().is_some_and(|d| !d.is_empty())
    });
    let summary = summary_at.and_then(|at| history[at].detail.as_deref());
    let mut messages = Vec::new();
    let prompt = [
        thread.system_prompt.as_deref().unwrap_or_default(),
        instructions,
    ]
    .into_iter()
    .filter(|part| !part.is_empty())
    .collect::<Vec<_>>()
    .join("\n\n");
    if !prompt.is_empty() || summary.is_some() {
        messages.push(system_message(Some(&prompt), summary));
    }
    let after = summary_at.map_or(0, |at| at + 1);
    for item in &history[after..] {
        let role = match item.kind {
            ItemKind::UserMessage => "user",
            ItemKind::AgentMessage => "assistant",
            _ => continue,
        };
        if item.status == ItemStatus::Completed {
            if let Some(text) = item.detail.as_deref().filter(|t| !t.is_empty()) {
                messages.push(json!({ "role": role, "content": text }));
            }
        }
    }
    messages
}

/// The system message: the thread's prompt, then the summary of what came
/// before (which replaces the summarized messages).
pub fn system_message(prompt: Option<&str>, summary: Option<&str>) -> Value {
    let mut content = prompt.unwrap_or_default().to_string();
    if let Some(summary) = summary {
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        content.push_str("Summary of the conversation so far (older messages were compacted):\n");
        content.push_str(summary);
    }
    json!({ "role": "system", "content": content })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(kind: ItemKind, status: &str, text: &str) -> TurnItemRecord {
        TurnItemRecord {
            id: "item_1".into(),
            turn_id: "turn_1".into(),
            kind,
            status: ItemStatus::parse(status).unwrap(),
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
        let chat = messages(&thread, "", &history);
        let roles: Vec<&str> = chat.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
        // The turn's instructions follow the thread's own prompt.
        let chat = messages(&thread, "Use tabs.", &history);
        assert_eq!(chat[0]["content"], "Be brief.\n\nUse tabs.");
    }

    #[test]
    fn a_compaction_summary_replaces_what_came_before() {
        let thread: ThreadRecord = serde_json::from_value(json!({
            "id": "thr_1", "created_at": "", "updated_at": "", "model": null, "model_provider": null,
            "workspace": null, "mode": "agent", "allow_shell": true, "trust_mode": false, "auto_approve": false,
            "title": null, "system_prompt": null, "task_id": null, "latest_turn_id": null,
            "latest_response_bookmark": null, "archived": false
        }))
        .unwrap();
        let history = [
            item(ItemKind::UserMessage, "completed", "old question"),
            item(ItemKind::AgentMessage, "completed", "old answer"),
            item(ItemKind::ContextCompaction, "completed", "SUMMARY"),
            item(ItemKind::UserMessage, "completed", "new question"),
        ];
        let chat = messages(&thread, "", &history);
        assert_eq!(chat.len(), 2);
        assert!(chat[0]["content"].as_str().unwrap().ends_with("SUMMARY"));
        assert_eq!(chat[1]["content"], "new question");
        assert!(!serde_json::to_string(&chat)
            .unwrap()
            .contains("old question"));
    }
}
