//! The model-backed engine: turns a thread's history into a chat, streams
//! the provider's reasoning and answer into items, folds steers in before
//! the next model call, and stops the stream on interrupt.
//!
//! Writes and commands are asked for through approvals; questions for the
//! user and client-executed tools wait on the client (`client_calls`).

mod client_calls;
pub mod compaction;
mod conversation;
pub mod tools;

use crate::{
    provider::{ChatClient, Delta, ProviderError, Providers, ResolvedProvider},
    runtime::error::RuntimeError,
    runtime::{
        approvals::Decision,
        engine::{Engine, Outcome, Route, TurnContext, TurnInput, TurnSettings},
        turn_writer::{ItemEnd, ItemWriter},
    },
};
use futures::future::BoxFuture;
use protocol::{ItemKind, ThreadRecord, Usage};
use serde_json::json;
use std::sync::Arc;

pub struct Agent {
    providers: Providers,
    client: ChatClient,
    /// Automatic compaction at this fraction of the context window (0: off).
    compaction_fraction: f64,
}

impl Agent {
    pub fn new(providers: Providers) -> Self {
        // Each configured key variable is kept from every child process,
        // whatever its name.
        crate::child::env::add_secret_names(providers.key_variables());
        Self {
            providers,
            client: ChatClient::default(),
            compaction_fraction: compaction::DEFAULT_FRACTION,
        }
    }

    /// Providers and compaction settings from config.toml.
    pub fn from_config(config: &crate::config::Config) -> Self {
        let mut agent = Self::new(Providers::from_config(config));
        if let Some(fraction) = config.compaction.auto_fraction {
            agent.compaction_fraction = fraction;
        }
        agent
    }

    /// The turn's provider: its own override, else the thread's.
    fn resolve(&self, settings: &TurnSettings) -> Result<ResolvedProvider, RuntimeError> {
        self.providers.resolve(
            settings.model_provider.as_deref(),
            settings.model.as_deref(),
        )
    }
}

impl Engine for Agent {
    fn check_ready(
        &self,
        _thread: &ThreadRecord,
        settings: &TurnSettings,
    ) -> Result<Route, RuntimeError> {
        let provider = self.resolve(settings)?;
        Ok(Route {
            provider: Some(provider.id),
            model: Some(provider.model),
        })
    }

    fn providers(&self) -> Vec<protocol::ProviderModels> {
        self.providers.catalog()
    }

    fn run(&self, turn: TurnContext) -> BoxFuture<'static, Outcome> {
        let provider = self.resolve(&turn.settings);
        let client = self.client.clone();
        let fraction = self.compaction_fraction;
        Box::pin(async move {
            match provider {
                Ok(provider) => {
                    let policy = compaction::Policy {
                        window: provider
                            .context_window
                            .unwrap_or_else(|| compaction::default_window(&provider.model)),
                        fraction,
                    };
                    let model = Model {
                        client,
                        provider,
                        policy,
                    };
                    run_turn(model, turn).await
                }
                Err(error) => Outcome::Failed {
                    error: error.to_string(),
                    usage: Usage::default(),
                },
            }
        })
    }
}

/// At most this many model calls in one turn.
const MAX_MODEL_CALLS: usize = 64;
/// Tool output kept in the transcript item.
const MAX_RECORDED_OUTPUT: usize = 64 * 1024;

/// Where a turn's model calls go, and when its chat is compacted.
struct Model {
    client: ChatClient,
    provider: ResolvedProvider,
    policy: compaction::Policy,
}

async fn run_turn(model: Model, mut turn: TurnContext) -> Outcome {
    let mut messages = conversation::messages(&turn.thread, &turn.history);
    let mut usage = Usage::default();
    if let TurnInput::Compact { reason } = &turn.input {
        let trigger = Trigger {
            auto: false,
            reason: reason.clone(),
            tokens: compaction::estimate_tokens(&messages),
        };
        return match compact(&model, &mut turn, &mut messages, trigger, &mut usage).await {
            Ok(_) => Outcome::Completed { usage },
            Err(Stop::Interrupted) => Outcome::Interrupted { usage },
            Err(Stop::Failed(error)) => failed(&turn, error, usage).await,
        };
    }
    let tool_env = match turn.thread.workspace.as_deref() {
        Some(root) => tools::Workspace::new(std::path::Path::new(root), turn.settings.trust_mode)
            .map(|workspace| tools::ToolEnv {
                workspace: Arc::new(workspace),
            }),
        None => Err(tools::ToolError("this thread has no workspace".into())),
    };
    let mut specs = tools::specs().as_array().cloned().unwrap_or_default();
    if turn.settings.mode != "plan" {
        specs.extend(tools::mutating_specs(turn.settings.allow_shell));
    }
    specs.extend(client_calls::specs(&turn.settings.dynamic_tools));
    // The history alone may already be too long for the window.
    let mut size = compaction::estimate_tokens(&messages);
    for _ in 0..MAX_MODEL_CALLS {
        if model.policy.exceeded(size) {
            let trigger = Trigger {
                auto: true,
                reason: None,
                tokens: size,
            };
            match compact(&model, &mut turn, &mut messages, trigger, &mut usage).await {
                Ok(_) => {}
                Err(Stop::Interrupted) => return Outcome::Interrupted { usage },
                // The call itself may still fit: go on, uncompacted.
                Err(Stop::Failed(error)) => tracing::warn!(%error, "automatic compaction failed"),
            }
        }
        let body = json!({
            "model": model.provider.model,
            "messages": messages,
            "stream": true,
            "stream_options": { "include_usage": true },
            "tools": specs,
        });
        let answer = Answer {
            kind: ItemKind::AgentMessage,
            summary: String::new(),
            metadata: None,
        };
        let reply = tokio::select! {
            reply = call(&model.client, &model.provider, &body, &turn.items, &answer) => reply,
            _ = turn.interrupt.changed() => return Outcome::Interrupted { usage },
        };
        let reply = match reply {
            Ok(reply) => reply,
            Err(error) => return failed(&turn, error.to_string(), usage).await,
        };
        add(&mut usage, &reply.usage);
        messages.push(reply.assistant_message());
        let mut interrupt = turn.interrupt.clone();
        for call in &reply.tool_calls {
            let output = tokio::select! {
                output = run_tool(&turn, &tool_env, call) => output,
                _ = interrupt.changed() => return Outcome::Interrupted { usage },
            };
            messages.push(json!({ "role": "tool", "tool_call_id": call.id, "content": output }));
        }
        // Steers that arrived meanwhile go in before the next call.
        let mut steered = false;
        while let Ok(prompt) = turn.steers.try_recv() {
            messages.push(json!({ "role": "user", "content": prompt }));
            steered = true;
        }
        if reply.tool_calls.is_empty() && !steered {
            return Outcome::Completed { usage };
        }
        // The provider's count of this call, or an estimate when it gave none.
        let reported = reply.usage.input_tokens + reply.usage.output_tokens;
        size = reported.max(compaction::estimate_tokens(&messages));
    }
    Outcome::Failed {
        error: format!("stopped after {MAX_MODEL_CALLS} model calls in one turn"),
        usage,
    }
}

/// Ends the turn failed with a readable error item.
async fn failed(turn: &TurnContext, error: String, usage: Usage) -> Outcome {
    let item = turn
        .items
        .start(ItemKind::Error, "The model call failed")
        .await;
    turn.items
        .end(&item, ItemEnd::Completed, Some(error.clone()), None)
        .await;
    Outcome::Failed { error, usage }
}

/// Why a compaction runs.
struct Trigger {
    auto: bool,
    reason: Option<String>,
    /// The chat's size when it was decided.
    tokens: u64,
}

enum Stop {
    Interrupted,
    Failed(String),
}

/// Summarizes the chat before its kept tail (all of it, when asked by
/// hand) into a context_compaction item, then continues from the summary.
/// Returns false when there was nothing to summarize.
async fn compact(
    model: &Model,
    turn: &mut TurnContext,
    messages: &mut Vec<serde_json::Value>,
    trigger: Trigger,
    usage: &mut Usage,
) -> Result<bool, Stop> {
    let keep = if trigger.auto {
        compaction::keep_from(messages)
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
        "messages": compaction::summary_request(older, trigger.reason.as_deref()),
        "stream": true,
        "stream_options": { "include_usage": true },
        "max_tokens": compaction::SUMMARY_MAX_TOKENS,
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
    *messages = compaction::rebuild(
        turn.thread.system_prompt.as_deref(),
        &reply.text,
        prompt.as_ref(),
        tail,
    );
    Ok(true)
}

/// Runs one tool call as an item (asking first when it changes
/// something); returns what the model sees.
async fn run_tool(
    turn: &TurnContext,
    env: &Result<tools::ToolEnv, tools::ToolError>,
    call: &ToolCall,
) -> String {
    let dynamic = client_calls::find(&turn.settings.dynamic_tools, &call.name);
    if call.name == client_calls::REQUEST_USER_INPUT || dynamic.is_some() {
        return run_client_call(turn, call, dynamic).await;
    }
    let items = &turn.items;
    let item = items
        .start(
            tools::kind(&call.name),
            tools::summary(&call.name, &call.arguments),
        )
        .await;
    let mut metadata =
        json!({ "tool": call.name, "call_id": call.id, "arguments": call.arguments });
    let result = match (env, tools::approval(&call.name, &call.arguments)) {
        (Err(error), _) => Err(error.clone()),
        (Ok(_), Some(_)) if turn.settings.mode == "plan" => Err(tools::ToolError(
            "plan mode is read-only; describe the change instead".into(),
        )),
        (Ok(_), Some(_)) if call.name == "exec_shell" && !turn.settings.allow_shell => Err(
            tools::ToolError("shell commands are disabled for this thread".into()),
        ),
        (Ok(env), Some(request)) => match turn.client.approve(request).await {
            Decision::Allow => tools::run(env, &call.name, &call.arguments).await,
            Decision::Deny => Err(tools::ToolError("the user denied this action".into())),
        },
        (Ok(env), None) => tools::run(env, &call.name, &call.arguments).await,
    };
    metadata["ok"] = json!(result.is_ok());
    match result {
        Ok(output) => {
            if let (Some(target), Some(extra)) =
                (metadata.as_object_mut(), output.metadata.as_object())
            {
                target.extend(extra.clone());
            }
            items
                .end(
                    &item,
                    ItemEnd::Completed,
                    Some(truncate(&output.text)),
                    Some(metadata),
                )
                .await;
            output.text
        }
        Err(error) => {
            items
                .end(
                    &item,
                    ItemEnd::Failed,
                    Some(error.0.clone()),
                    Some(metadata),
                )
                .await;
            format!("error: {}", error.0)
        }
    }
}

/// A call the client answers: a question for the user or a dynamic tool.
async fn run_client_call(
    turn: &TurnContext,
    call: &ToolCall,
    dynamic: Option<&protocol::DynamicToolSpec>,
) -> String {
    let summary = match dynamic {
        Some(spec) => format!("{} (client)", client_calls_label(spec)),
        None => question_summary(&call.arguments),
    };
    let item = turn.items.start(ItemKind::ToolCall, summary).await;
    let output = match dynamic {
        Some(spec) => client_calls::call_dynamic(&turn.client, spec, &call.arguments).await,
        None => client_calls::ask_user(&turn.client, &call.arguments).await,
    };
    let mut metadata = json!({ "tool": call.name, "call_id": call.id, "arguments": call.arguments, "ok": output.ok });
    if let (Some(target), Some(extra)) = (
        metadata.as_object_mut(),
        output.recorded.metadata.as_object(),
    ) {
        target.extend(extra.clone());
    }
    let end = if output.ok {
        ItemEnd::Completed
    } else {
        ItemEnd::Failed
    };
    let detail = Some(truncate(&output.recorded.text));
    turn.items.end(&item, end, detail, Some(metadata)).await;
    output.for_model
}

fn client_calls_label(spec: &protocol::DynamicToolSpec) -> String {
    match &spec.namespace {
        Some(namespace) => format!("{namespace}.{}", spec.name),
        None => spec.name.clone(),
    }
}

/// "Asked: <first question>" for the transcript.
fn question_summary(arguments: &str) -> String {
    let args: serde_json::Value = serde_json::from_str(arguments).unwrap_or_default();
    let first = &args["questions"][0];
    let text = first["header"]
        .as_str()
        .filter(|h| !h.is_empty())
        .or_else(|| first["question"].as_str())
        .unwrap_or("a question");
    format!("Asked the user: {text}")
}

fn truncate(text: &str) -> String {
    if text.len() <= MAX_RECORDED_OUTPUT {
        return text.to_string();
    }
    let mut cut = MAX_RECORDED_OUTPUT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n… truncated", &text[..cut])
}

#[derive(Clone, Debug, Default)]
struct ToolCall {
    id: String,
    name: String,
    arguments: String,
}

/// What one model call produced.
#[derive(Default)]
struct Reply {
    text: String,
    reasoning: String,
    tool_calls: Vec<ToolCall>,
    usage: Usage,
}

impl Reply {
    /// The assistant turn as sent back in the next request. DeepSeek needs
    /// `reasoning_content` back on messages that carry tool calls.
    fn assistant_message(&self) -> serde_json::Value {
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
struct Answer {
    kind: ItemKind,
    summary: String,
    metadata: Option<serde_json::Value>,
}

/// One model call: streams reasoning and text into items and assembles
/// tool calls from their fragments.
async fn call(
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
            Some(Ok(Delta::Finish(_))) => {}
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
        items.end(&id, end, None, answer.metadata.clone()).await;
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

fn add(total: &mut Usage, call: &Usage) {
    total.input_tokens += call.input_tokens;
    total.output_tokens += call.output_tokens;
    total.cached_tokens += call.cached_tokens;
    total.reasoning_tokens += call.reasoning_tokens;
}
