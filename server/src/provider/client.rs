//! The OpenAI-compatible streaming `/chat/completions` client: text,
//! `reasoning_content` (DeepSeek), tool-call fragments, finish reason and
//! usage; retries with backoff for 429/5xx before any output; time limits;
//! errors classified so the turn can say what went wrong.

use super::registry::ResolvedProvider;
use eventsource_stream::Eventsource;
use futures::{Stream, StreamExt};
use protocol::Usage;
use serde::Deserialize;
use serde_json::Value;
use std::{pin::Pin, sync::Arc, time::Duration};

pub const HEADERS_TIMEOUT: Duration = Duration::from_secs(45);
const RETRIES: u32 = 3;
const BACKOFF_BASE: Duration = Duration::from_millis(250);

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ProviderError {
    #[error("{provider} rejected the API key (HTTP {status}); check its key")]
    Authentication { provider: String, status: u16 },
    #[error("{provider} is rate limiting or overloaded (HTTP {status}) after {attempts} attempts: {message}")]
    Overloaded {
        provider: String,
        status: u16,
        attempts: u32,
        message: String,
    },
    #[error("{provider} failed (HTTP {status}): {message}")]
    Upstream {
        provider: String,
        status: u16,
        message: String,
    },
    #[error("{provider} refused the request (HTTP {status}): {message}")]
    Request {
        provider: String,
        status: u16,
        message: String,
    },
    #[error("could not reach {provider}: {message}")]
    Network { provider: String, message: String },
    #[error("{provider} sent nothing for {seconds} s")]
    Timeout { provider: String, seconds: u64 },
    #[error("{provider} stopped streaming: nothing for {seconds} s (the idle timeout; set idle_timeout_secs under [providers.{provider}] or CODEWHALE_PROVIDER_IDLE_TIMEOUT_SECS)")]
    Idle { provider: String, seconds: u64 },
    #[error("{provider} sent a malformed stream: {message}")]
    Protocol { provider: String, message: String },
}

/// One piece of a streamed completion.
#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    Text(String),
    Reasoning(String),
    /// A fragment of tool call `index` (id and name arrive in the first).
    ToolCall {
        index: u32,
        id: Option<String>,
        name: Option<String>,
        arguments: String,
    },
    Finish(String),
    Usage(Usage),
}

type Frames = Pin<Box<dyn Stream<Item = Result<eventsource_stream::Event, String>> + Send>>;

/// The HTTP client is built on first use: building it reads every system
/// root certificate (~10 ms), which must not delay start-up.
#[derive(Clone, Default)]
pub struct ChatClient {
    http: Arc<std::sync::OnceLock<reqwest::Client>>,
}

/// TLS for every reqwest client in the process: rustls with the ring
/// provider (no C toolchain needed to build it). Idempotent.
pub fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl ChatClient {
    fn http(&self) -> &reqwest::Client {
        self.http.get_or_init(|| {
            install_tls();
            reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(15))
                .build()
                .unwrap_or_default()
        })
    }
}

/// A completion being streamed.
pub struct CompletionStream {
    provider: String,
    idle_timeout: Duration,
    frames: Frames,
    pending: std::collections::VecDeque<Delta>,
    done: bool,
}

impl ChatClient {
    /// Sends the request; retries 429, 5xx and network failures with
    /// backoff (nothing has been streamed yet at that point).
    pub async fn stream(
        &self,
        provider: &ResolvedProvider,
        body: &Value,
    ) -> Result<CompletionStream, ProviderError> {
        let url = format!("{}/chat/completions", provider.base_url);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let error = match self.send(provider, &url, body).await {
                Ok(response) => {
                    let frames = response
                        .bytes_stream()
                        .eventsource()
                        .map(|r| r.map_err(|e| e.to_string()));
                    return Ok(CompletionStream {
                        provider: provider.id.clone(),
                        idle_timeout: provider.idle_timeout,
                        frames: Box::pin(frames),
                        pending: Default::default(),
                        done: false,
                    });
                }
                Err(error) => error,
            };
            let retryable = matches!(
                error,
                ProviderError::Overloaded { .. }
                    | ProviderError::Upstream { .. }
                    | ProviderError::Network { .. }
                    | ProviderError::Timeout { .. }
            );
            if !retryable || attempt > RETRIES {
                return Err(match error {
                    ProviderError::Overloaded {
                        provider,
                        status,
                        message,
                        ..
                    } => ProviderError::Overloaded {
                        provider,
                        status,
                        attempts: attempt,
                        message,
                    },
                    other => other,
                });
            }
            tracing::warn!(provider = %provider.id, attempt, %error, "provider call failed; retrying");
            tokio::time::sleep(BACKOFF_BASE * 2u32.pow(attempt - 1)).await;
        }
    }

    async fn send(
        &self,
        provider: &ResolvedProvider,
        url: &str,
        body: &Value,
    ) -> Result<reqwest::Response, ProviderError> {
        let mut request = self
            .http()
            .post(url)
            .json(body)
            .header("accept", "text/event-stream");
        if let Some(key) = &provider.api_key {
            request = request.bearer_auth(key);
        }
        let id = provider.id.clone();
        let response = tokio::time::timeout(HEADERS_TIMEOUT, request.send())
            .await
            .map_err(|_| ProviderError::Timeout {
                provider: id.clone(),
                seconds: HEADERS_TIMEOUT.as_secs(),
            })?
            .map_err(|e| ProviderError::Network {
                provider: id.clone(),
                message: without_url(&e),
            })?;
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        let message = error_message(response).await;
        Err(match status {
            401 | 403 => ProviderError::Authentication {
                provider: id,
                status,
            },
            429 | 503 | 529 => ProviderError::Overloaded {
                provider: id,
                status,
                attempts: 1,
                message,
            },
            500..=599 => ProviderError::Upstream {
                provider: id,
                status,
                message,
            },
            _ => ProviderError::Request {
                provider: id,
                status,
                message,
            },
        })
    }
}

impl CompletionStream {
    /// The next delta; `None` at the end of the completion.
    pub async fn next(&mut self) -> Option<Result<Delta, ProviderError>> {
        loop {
            if let Some(delta) = self.pending.pop_front() {
                return Some(Ok(delta));
            }
            if self.done {
                return None;
            }
            let frame = match tokio::time::timeout(self.idle_timeout, self.frames.next()).await {
                Err(_) => {
                    return Some(Err(ProviderError::Idle {
                        provider: self.provider.clone(),
                        seconds: self.idle_timeout.as_secs(),
                    }))
                }
                Ok(None) => {
                    self.done = true;
                    continue;
                }
                Ok(Some(Err(message))) => {
                    return Some(Err(ProviderError::Network {
                        provider: self.provider.clone(),
                        message,
                    }))
                }
                Ok(Some(Ok(frame))) => frame,
            };
            if frame.data.trim() == "[DONE]" {
                self.done = true;
                continue;
            }
            match serde_json::from_str::<Chunk>(&frame.data) {
                Ok(chunk) => self.pending.extend(chunk.deltas()),
                Err(e) => {
                    return Some(Err(ProviderError::Protocol {
                        provider: self.provider.clone(),
                        message: e.to_string(),
                    }))
                }
            }
        }
    }
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: WireDelta,
    finish_reason: Option<String>,
}

#[derive(Default, Deserialize)]
struct WireDelta {
    content: Option<String>,
    reasoning_content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<WireToolCall>,
}

#[derive(Deserialize)]
struct WireToolCall {
    index: u32,
    id: Option<String>,
    #[serde(default)]
    function: WireFunction,
}

#[derive(Default, Deserialize)]
struct WireFunction {
    name: Option<String>,
    #[serde(default)]
    arguments: String,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    prompt_cache_hit_tokens: Option<u64>,
    prompt_tokens_details: Option<Value>,
    completion_tokens_details: Option<Value>,
}

impl Chunk {
    fn deltas(self) -> Vec<Delta> {
        let mut out = Vec::new();
        for choice in self.choices {
            if let Some(text) = choice.delta.reasoning_content.filter(|t| !t.is_empty()) {
                out.push(Delta::Reasoning(text));
            }
            if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
                out.push(Delta::Text(text));
            }
            for call in choice.delta.tool_calls {
                out.push(Delta::ToolCall {
                    index: call.index,
                    id: call.id,
                    name: call.function.name,
                    arguments: call.function.arguments,
                });
            }
            if let Some(reason) = choice.finish_reason {
                out.push(Delta::Finish(reason));
            }
        }
        if let Some(usage) = self.usage {
            let detail = |v: &Option<Value>, key: &str| v.as_ref().and_then(|d| d[key].as_u64());
            out.push(Delta::Usage(Usage {
                input_tokens: usage.prompt_tokens,
                output_tokens: usage.completion_tokens,
                cached_tokens: usage
                    .prompt_cache_hit_tokens
                    .or_else(|| detail(&usage.prompt_tokens_details, "cached_tokens"))
                    .unwrap_or(0),
                reasoning_tokens: detail(&usage.completion_tokens_details, "reasoning_tokens")
                    .unwrap_or(0),
            }));
        }
        out
    }
}

/// The provider's own error message, if it sent one (bounded).
async fn error_message(response: reqwest::Response) -> String {
    let text = response.text().await.unwrap_or_default();
    let message = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or(text);
    message.chars().take(500).collect()
}

/// reqwest errors print the URL; keep the message without it.
fn without_url(error: &reqwest::Error) -> String {
    let mut error = error.to_string();
    if let Some(at) = error.find(" for url (") {
        error.truncate(at);
    }
    error
}
