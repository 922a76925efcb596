//! Keeping a conversation inside the model's context window. When a call's
//! prompt reaches a configured fraction of the window (or the history
//! already does when a turn starts), the older part of the chat is
//! summarized by the model, the summary is recorded as a
//! `context_compaction` item, and the chat continues from the summary plus
//! the recent messages. Later turns start from the latest summary (see
//! `conversation`).
//!
//! The policy and the summarizer's input and output are plain functions;
//! `compact` at the end runs the summary as a model call within a turn.

use super::model_call::{add, call, Answer, Model};
use crate::runtime::engine::{TurnContext, TurnInput};
use protocol::{ItemKind, Usage};
use serde_json::{json, Value};
use std::collections::HashSet;

/// The fraction of the context window at which a turn compacts, unless
/// config.toml says otherwise (`[compaction] auto_fraction`; 0 turns it off).
pub const DEFAULT_FRACTION: f64 = 0.8;
/// Transcript handed to the summarizer, at most (the newest part is kept).
const MAX_TRANSCRIPT_CHARS: usize = 120_000;
/// A single message's share of that transcript, at most.
const MAX_MESSAGE_CHARS: usize = 8_000;
/// The summary's length limit, in tokens.
pub const SUMMARY_MAX_TOKENS: u64 = 2_048;
/// What the summarizer reads in place of the user's answers to
/// `request_user_input`: those reach the model but are never stored, and
/// the summary is stored.
pub const WITHHELD_ANSWER: &str = "[answer to the user's question withheld]";

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    /// Tokens the model accepts in one call.
    pub window: u64,
    /// Compact at this fraction of `window`; 0 disables.
    pub fraction: f64,
}

impl Policy {
    pub fn threshold(&self) -> Option<u64> {
        (self.fraction > 0.0 && self.window > 0)
            .then(|| (self.window as f64 * self.fraction.min(1.0)) as u64)
    }

    /// True when a prompt of `tokens` should be compacted first.
    pub fn exceeded(&self, tokens: u64) -> bool {
        self.threshold().is_some_and(|limit| tokens >= limit)
    }
}

/// Context windows of well-known models (tokens); config.toml's
/// `context_window` on a provider wins.
pub fn default_window(model: &str) -> u64 {
    let model = model.to_ascii_lowercase();
    if model.starts_with("gpt-4.1") {
        1_047_576
    } else if model.starts_with("gpt-5") {
        400_000
    } else {
        // deepseek-chat / deepseek-reasoner, gpt-4o, most local models.
        128_000
    }
}

/// A rough token count (four characters a token) for a chat not yet sent.
pub fn estimate_tokens(messages: &[Value]) -> u64 {
    let chars: usize = messages.iter().map(|m| m.to_string().len()).sum();
    (chars / 4) as u64
}

/// Where the kept tail of `messages` starts: the last assistant message
/// (so tool results stay with the call that asked for them), or the last
/// user message when the model has not answered yet.
pub fn keep_from(messages: &[Value]) -> usize {
    let last = |role: &str| messages.iter().rposition(|m| m["role"] == role);
    match (last("assistant"), last("user")) {
        (Some(a), _) => a,
        (None, Some(u)) => u,
        (None, None) => messages.len(),
    }
}

/// The summarizer's chat: an instruction and the transcript as text (tool
/// messages are not sent as such, so no call/result pairing can break).
/// Answers to the user's questions are withheld.
pub fn summary_request(older: &[Value], reason: Option<&str>) -> Vec<Value> {
    let answers = user_input_calls(older);
    let mut transcript = String::new();
    for message in older {
        let role = message["role"].as_str().unwrap_or("?").to_uppercase();
        let answer = message["role"] == "tool"
            && message["tool_call_id"]
                .as_str()
                .is_some_and(|id| answers.contains(id));
        let mut text = if answer {
            WITHHELD_ANSWER.to_string()
        } else {
            message["content"].as_str().unwrap_or_default().to_string()
        };
        if let Some(calls) = message["tool_calls"].as_array() {
            for call in calls {
                let f = &call["function"];
                text.push_str(&format!(
                    "\n[calls {} {}]",
                    f["name"].as_str().unwrap_or("?"),
                    f["arguments"].as_str().unwrap_or("")
                ));
            }
        }
        transcript.push_str(&format!("{role}: {}\n\n", clip(&text, MAX_MESSAGE_CHARS)));
    }
    if transcript.len() > MAX_TRANSCRIPT_CHARS {
        let mut cut = transcript.len() - MAX_TRANSCRIPT_CHARS;
        while !transcript.is_char_boundary(cut) {
            cut += 1;
        }
        transcript = format!("[… earlier part omitted]\n{}", &transcript[cut..]);
    }
    let mut ask = String::from(
        "Summarize the conversation above for your own later use: the user's goal, decisions \
         made, facts learned, files and commands involved, and what remains to do. Be complete \
         but brief; this summary replaces the conversation.",
    );
    if let Some(reason) = reason.filter(|r| !r.trim().is_empty()) {
        ask.push_str(&format!(" (Requested because: {reason})"));
    }
    vec![
        json!({"role": "system", "content": "You write concise, faithful summaries of coding sessions."}),
        json!({"role": "user", "content": format!("{transcript}---\n{ask}")}),
    ]
}

/// Ids of the `request_user_input` calls in `messages`: the tool messages
/// answering them carry the user's answers.
fn user_input_calls(messages: &[Value]) -> HashSet<&str> {
    messages
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .filter(|call| call["function"]["name"] == super::client_calls::REQUEST_USER_INPUT)
        .filter_map(|call| call["id"].as_str())
        .collect()
}

/// The chat after compaction: the thread's system prompt with the summary,
/// the turn's prompt (if it was summarized away), then the kept tail.
pub fn rebuild(
    system_prompt: Option<&str>,
    summary: &str,
    prompt: Option<&Value>,
    tail: &[Value],
) -> Vec<Value> {
    let mut messages = vec![super::conversation::system_message(
        system_prompt,
        Some(summary),
    )];
    messages.extend(prompt.cloned());
    messages.extend(tail.iter().cloned());
    messages
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Why a compaction runs.
pub(super) struct Trigger {
    pub(super) auto: bool,
    pub(super) reason: Option<String>,
    /// The chat's size when it was decided.
    pub(super) tokens: u64,
}

pub(super) enum Stop {
    Interrupted,
    Failed(String),
}

/// Summarizes the chat before its kept tail (all of it, when asked by
/// hand) into a context_compaction item, then continues from the summary.
/// Returns false when there was nothing to summarize.
pub(super) async fn compact(
    model: &Model,
    turn: &mut TurnContext,
    messages: &mut Vec<serde_json::Value>,
    trigger: Trigger,
    usage: &mut Usage,
) -> Result<bool, Stop> {
    let keep = if trigger.auto {
        keep_from(messages)
    } else {
        messages.len()
    };
    let older = &messages[..keep];
    if !older
        .iter()
        .any(|m| m["role"] == "user" || m["role"] == "assistant")
    {
        return Ok(false);
    }
    let body = json!({
        "model": model.provider.model,
        "messages": summary_request(older, trigger.reason.as_deref()),
        "stream": true,
        "stream_options": { "include_usage": true },
        "max_tokens": SUMMARY_MAX_TOKENS,
    });
    let answer = Answer {
        kind: ItemKind::ContextCompaction,
        summary: if trigger.auto {
            "Compacted the conversation automatically".into()
        } else {
            "Compacted the conversation".into()
        },
        metadata: Some(json!({
            "auto": trigger.auto,
            "reason": trigger.reason,
            "tokens_before": trigger.tokens,
            "context_window": model.policy.window,
            "threshold": model.policy.threshold(),
            "messages_summarized": keep,
        })),
    };
    let reply = tokio::select! {
        reply = call(&model.client, &model.provider, &body, &turn.items, &answer) => reply,
        _ = turn.interrupt.changed() => return Err(Stop::Interrupted),
    };
    let reply = reply.map_err(|e| Stop::Failed(e.to_string()))?;
    add(usage, &reply.usage);
    if reply.text.trim().is_empty() {
        return Err(Stop::Failed("the model returned an empty summary".into()));
    }
    let prompt = match &turn.input {
        TurnInput::Prompt(prompt) => Some(json!({ "role": "user", "content": prompt })),
        TurnInput::Compact { .. } => None,
    };
    let tail = &messages[keep..];
    let prompt = prompt.filter(|p| !tail.contains(p));
    *messages = rebuild(
        turn.thread.system_prompt.as_deref(),
        &reply.text,
        prompt.as_ref(),
        tail,
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_is_a_fraction_of_the_window() {
        let policy = Policy {
            window: 100_000,
            fraction: 0.8,
        };
        assert!(!policy.exceeded(79_999));
        assert!(policy.exceeded(80_000));
        assert!(!Policy {
            window: 100_000,
            fraction: 0.0
        }
        .exceeded(u64::MAX));
    }

    #[test]
    fn the_tail_keeps_tool_results_with_their_call() {
        let chat = [
            json!({"role": "system", "content": "s"}),
            json!({"role": "user", "content": "do it"}),
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "1", "function": {"name": "read_file", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": "1", "content": "data"}),
            json!({"role": "user", "content": "steer"}),
        ];
        assert_eq!(keep_from(&chat), 2);
        assert_eq!(keep_from(&chat[..2]), 1);
        let request = summary_request(&chat[..2], None);
        assert!(request[1]["content"]
            .as_str()
            .unwrap()
            .contains("USER: do it"));
    }

    #[test]
    fn answers_to_the_user_s_questions_are_withheld() {
        let chat = [
            json!({"role": "user", "content": "set it up"}),
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "q1", "function": {"name": "request_user_input", "arguments": "{\"questions\":[]}"}},
                {"id": "r1", "function": {"name": "read_file", "arguments": "{}"}}
            ]}),
            json!({"role": "tool", "tool_call_id": "q1", "content": "name: hunter2"}),
            json!({"role": "tool", "tool_call_id": "r1", "content": "file text"}),
        ];
        let text = summary_request(&chat, None)[1]["content"].to_string();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(text.contains(&format!("TOOL: {WITHHELD_ANSWER}")));
        assert!(text.contains("TOOL: file text") && text.contains("[calls request_user_input"));
    }

    #[test]
    fn long_transcripts_keep_their_newest_part() {
        let big: Vec<Value> = (0..40)
            .map(|n| json!({"role": "user", "content": format!("{n} {}", "x".repeat(7_000))}))
            .collect();
        let request = summary_request(&big, None);
        let text = request[1]["content"].as_str().unwrap();
        assert!(text.len() < MAX_TRANSCRIPT_CHARS + 1_000);
        assert!(text.contains("39 xxx") && !text.contains("USER: 0 "));
    }
}
