//! The model-backed engine: turns a thread's history into a chat, streams
//! the provider's reasoning and answer into items, folds steers in before
//! the next model call, and stops the stream on interrupt.
//!
//! Workspace tools, approvals, user input and client-executed tools are the
//! next layer (issue 4); this engine answers in text.

mod conversation;

use crate::{
    error::ApiError,
    provider::{ChatClient, Delta, ProviderError, Providers, ResolvedProvider},
    runtime::{
        engine::{Engine, Outcome, TurnContext, TurnInput, TurnSettings},
        turn_writer::{ItemEnd, ItemWriter},
    },
};
use app::protocol::{ItemKind, ThreadRecord, Usage};
use futures::future::BoxFuture;
use serde_json::json;

pub struct Agent {
    providers: Providers,
    client: ChatClient,
}

impl Agent {
    pub fn new(providers: Providers) -> Self {
        Self {
            providers,
            client: ChatClient::default(),
        }
    }

    fn resolve(
        &self,
        thread: &ThreadRecord,
        settings: &TurnSettings,
    ) -> Result<ResolvedProvider, ApiError> {
        self.providers
            .resolve(thread.model_provider.as_deref(), settings.model.as_deref())
    }
}

impl Engine for Agent {
    fn check_ready(&self, thread: &ThreadRecord, settings: &TurnSettings) -> Result<(), ApiError> {
        self.resolve(thread, settings).map(|_| ())
    }

    fn run(&self, turn: TurnContext) -> BoxFuture<'static, Outcome> {
        let provider = self.resolve(&turn.thread, &turn.settings);
        let client = self.client.clone();
        Box::pin(async move {
            match provider {
                Ok(provider) => run_turn(client, provider, turn).await,
                Err(error) => Outcome::Failed {
                    error: error.to_string(),
                    usage: Usage::default(),
                },
            }
        })
    }
}

async fn run_turn(
    client: ChatClient,
    provider: ResolvedProvider,
    mut turn: TurnContext,
) -> Outcome {
    let mut messages = conversation::messages(&turn.thread, &turn.history);
    if let TurnInput::Compact { reason } = &turn.input {
        messages.push(conversation::compaction_request(reason.as_deref()));
    }
    let mut usage = Usage::default();
    loop {
        let body = json!({
            "model": provider.model,
            "messages": messages,
            "stream": true,
            "stream_options": { "include_usage": true },
        });
        let reply = tokio::select! {
            reply = call(&client, &provider, &body, &turn.items, &turn.input) => reply,
            _ = turn.interrupt.changed() => return Outcome::Interrupted { usage },
        };
        match reply {
            Ok((text, call_usage)) => {
                add(&mut usage, &call_usage);
                messages.push(json!({ "role": "assistant", "content": text }));
            }
            Err(error) => {
                let item = turn
                    .items
                    .start(ItemKind::Error, "The model call failed")
                    .await;
                turn.items
                    .end(&item, ItemEnd::Completed, Some(error.to_string()), None)
                    .await;
                return Outcome::Failed {
                    error: error.to_string(),
                    usage,
                };
            }
        }
        // Steers that arrived while the model spoke go in before the next call.
        let mut steered = false;
        while let Ok(prompt) = turn.steers.try_recv() {
            messages.push(json!({ "role": "user", "content": prompt }));
            steered = true;
        }
        if !steered {
            return Outcome::Completed { usage };
        }
    }
}

/// One model call: streams reasoning and text into items; returns the
/// answer's text and the call's usage.
async fn call(
    client: &ChatClient,
    provider: &ResolvedProvider,
    body: &serde_json::Value,
    items: &ItemWriter,
    input: &TurnInput,
) -> Result<(String, Usage), ProviderError> {
    let mut stream = client.stream(provider, body).await?;
    let answer_kind = match input {
        TurnInput::Prompt(_) => ItemKind::AgentMessage,
        TurnInput::Compact { .. } => ItemKind::ContextCompaction,
    };
    let mut reasoning: Option<String> = None;
    let mut answer: Option<String> = None;
    let mut text = String::new();
    let mut usage = Usage::default();
    let result = loop {
        match stream.next().await {
            None => break Ok(()),
            Some(Err(error)) => break Err(error),
            Some(Ok(Delta::Reasoning(piece))) => {
                if reasoning.is_none() {
                    reasoning = Some(items.start(ItemKind::AgentReasoning, "Reasoning").await);
                }
                if let Some(id) = &reasoning {
                    items.delta(id, piece).await;
                }
            }
            Some(Ok(Delta::Text(piece))) => {
                if answer.is_none() {
                    if let Some(id) = reasoning.take() {
                        items.end(&id, ItemEnd::Completed, None, None).await;
                    }
                    answer = Some(items.start(answer_kind, "").await);
                }
                if let Some(id) = &answer {
                    items.delta(id, piece.clone()).await;
                }
                text.push_str(&piece);
            }
            Some(Ok(Delta::Usage(reported))) => usage = reported,
            Some(Ok(Delta::Finish(_) | Delta::ToolCall { .. })) => {}
        }
    };
    let end = if result.is_ok() {
        ItemEnd::Completed
    } else {
        ItemEnd::Failed
    };
    for id in [reasoning, answer].into_iter().flatten() {
        items.end(&id, end, None, None).await;
    }
    result.map(|()| (text, usage))
}

fn add(total: &mut Usage, call: &Usage) {
    total.input_tokens += call.input_tokens;
    total.output_tokens += call.output_tokens;
    total.cached_tokens += call.cached_tokens;
    total.reasoning_tokens += call.reasoning_tokens;
}
