//! One model call: the request's destination (`Model`), the streamed
//! reasoning and answer written into items, tool calls assembled from their
//! fragments, and the usage it reported.

use super::compaction;
use crate::{
    provider::{ChatClient, Delta, ProviderError, ResolvedProvider},
    runtime::turn_writer::{ItemEnd, ItemWriter},
};
use protocol::{ItemKind, Usage};
use serde_json::json;

/// Where a turn's model calls go, and when its chat is compacted.
pub(super) struct Model {
    pub(super) client: ChatClient,
    pub(super) provider: ResolvedProvider,
    pub(super) policy: compaction::Policy,
}

#[derive(Clone, Debug, Default)]
pub(super) struct ToolCall {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) arguments: String,
}

/// What one model call produced.
#[derive(Default)]
pub(super) struct Reply {
    pub(super) text: String,
    reasoning: String,
    pub(super) tool_calls: Vec<ToolCall>,
    pub(super) usage: Usage,
}

impl Reply {
    /// The assistant turn as sent back in the next request. DeepSeek needs
    /// `reasoning_content` back on messages that carry tool calls.
    pub(super) fn assistant_message(&self) -> serde_json::Value {
        let mut message = json!({ "role": "assistant", "content": self.text });
        if !self.tool_calls.is_empty() {
            message["tool_calls"] = self
                .tool_calls
                .iter()
                .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                .collect();
            if !self.reasoning.is_empty() {
                message["reasoning_content"] = json!(self.reasoning);
            }
        }
        message
    }
}

/// The item a call's text streams into.
pub(super) struct Answer {
    pub(super) kind: ItemKind,
    pub(super) summary: String,
    pub(super) metadata: Option<serde_json::Value>,
}

/// One model call: streams reasoning and text into items and assembles
/// tool calls from their fragments.
pub(super) async fn call(
    client: &ChatClient,
    provider: &ResolvedProvider,
    body: &serde_json::Value,
    items: &ItemWriter,
    answer: &Answer,
) -> Result<Reply, ProviderError> {
    let mut stream = client.stream(provider, body).await?;
    let mut reasoning_item: Option<String> = None;
    let mut answer_item: Option<String> = None;
    let mut reply = Reply::default();
    let mut calls: std::collections::BTreeMap<u32, ToolCall> = Default::default();
    let mut finish: Option<String> = None;
    let result = loop {
        match stream.next().await {
            None => break Ok(()),
            Some(Err(error)) => break Err(error),
            Some(Ok(Delta::Reasoning(piece))) => {
                if reasoning_item.is_none() {
                    reasoning_item = Some(items.start(ItemKind::AgentReasoning, "Reasoning").await);
                }
                if let Some(id) = &reasoning_item {
                    items.delta(id, piece.clone()).await;
                }
                reply.reasoning.push_str(&piece);
            }
            Some(Ok(Delta::Text(piece))) => {
                if answer_item.is_none() {
                    if let Some(id) = reasoning_item.take() {
                        items.end(&id, ItemEnd::Completed, None, None).await;
                    }
                    answer_item = Some(items.start(answer.kind, answer.summary.clone()).await);
                }
                if let Some(id) = &answer_item {
                    items.delta(id, piece.clone()).await;
                }
                reply.text.push_str(&piece);
            }
            Some(Ok(Delta::ToolCall {
                index,
                id,
                name,
                arguments,
            })) => {
                let call = calls.entry(index).or_default();
                if let Some(id) = id {
                    call.id = id;
                }
                if let Some(name) = name {
                    call.name.push_str(&name);
                }
                call.arguments.push_str(&arguments);
            }
            Some(Ok(Delta::Usage(reported))) => reply.usage = reported,
            Some(Ok(Delta::Finish(reason))) => finish = Some(reason),
        }
    };
    let end = if result.is_ok() {
        ItemEnd::Completed
    } else {
        ItemEnd::Failed
    };
    if let Some(id) = reasoning_item {
        items.end(&id, end, None, None).await;
    }
    if let Some(id) = answer_item {
        items
            .end(&id, end, None, answer_metadata(answer, finish.as_deref()))
            .await;
    }
    reply.tool_calls = calls
        .into_values()
        .filter(|c| !c.name.is_empty())
        .enumerate()
        .map(|(n, mut c)| {
            if c.id.is_empty() {
                c.id = format!("call_{n}");
            }
            c
        })
        .collect();
    result.map(|()| reply)
}

/// The answer item's metadata; an unusual finish (`length`,
/// `content_filter`) is kept so clients can say why the answer stopped
/// (ACP's `max_tokens` and `refusal`).
fn answer_metadata(answer: &Answer, finish: Option<&str>) -> Option<serde_json::Value> {
    match finish {
        Some(reason @ ("length" | "content_filter")) => {
            let mut metadata = answer.metadata.clone().unwrap_or_else(|| json!({}));
            if let Some(map) = metadata.as_object_mut() {
                map.insert("finish_reason".into(), json!(reason));
            }
            Some(metadata)
        }
        _ => answer.metadata.clone(),
    }
}

pub(super) fn add(total: &mut Usage, call: &Usage) {
    total.input_tokens += call.input_tokens;
    total.output_tokens += call.output_tokens;
    total.cached_tokens += call.cached_tokens;
    total.reasoning_tokens += call.reasoning_tokens;
}
