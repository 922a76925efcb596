//! A scripted OpenAI-compatible `/chat/completions` server. Each request
//! consumes the next scripted reply; replies are real HTTP responses and
//! real SSE streams, so the engine under test cannot tell it from a
//! provider. Requests are recorded for assertions.
//!
//! A reply pushed with a key (`push_when`, or `when_contains` over HTTP)
//! goes only to a request whose body contains the key, so agents running
//! side by side each get their own script whatever order they ask in.
//!
//! Control endpoints (for the end-to-end tests, which run the binary):
//! `POST /__mock/replies` appends replies, `GET /__mock/requests` lists the
//! recorded request bodies, `POST /__mock/reset` clears both.

use axum::{
    body::Body,
    extract::State,
    http::{header, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
    Json, Router,
};
use futures::stream;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::{
    collections::VecDeque,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

/// One scripted reply.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// An SSE stream of chunks, `delay_ms` apart.
    Stream {
        chunks: Vec<Chunk>,
        #[serde(default)]
        delay_ms: u64,
    },
    /// An HTTP error with an OpenAI-style JSON body.
    Error { status: u16, message: String },
}

/// A piece of a streamed completion.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Chunk {
    Text {
        text: String,
    },
    Reasoning {
        text: String,
    },
    /// A fragment of tool call `index`: id and name come in the first one.
    ToolCall {
        index: u32,
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        arguments: String,
    },
    Finish {
        reason: String,
    },
    Usage {
        prompt_tokens: u64,
        completion_tokens: u64,
        #[serde(default)]
        cached_tokens: u64,
        #[serde(default)]
        reasoning_tokens: u64,
    },
}

impl Reply {
    /// A plain streamed answer with usage, split into `parts`.
    pub fn text(parts: &[&str]) -> Self {
        let mut chunks: Vec<Chunk> = parts
            .iter()
            .map(|p| Chunk::Text {
                text: p.to_string(),
            })
            .collect();
        chunks.push(Chunk::Finish {
            reason: "stop".into(),
        });
        chunks.push(Chunk::Usage {
            prompt_tokens: 100,
            completion_tokens: 20,
            cached_tokens: 40,
            reasoning_tokens: 0,
        });
        Reply::Stream {
            chunks,
            delay_ms: 0,
        }
    }
}

/// A reply as `POST /__mock/replies` takes it: optionally keyed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scripted {
    #[serde(flatten)]
    pub reply: Reply,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_contains: Option<String>,
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    /// Keyed replies, oldest first: (key, reply).
    keyed: Vec<(String, Reply)>,
    requests: Vec<Value>,
}

/// A running mock; dropping it does not stop the server task.
#[derive(Clone, Default)]
pub struct Mock {
    script: Arc<Mutex<Script>>,
}

impl Mock {
    pub fn push(&self, reply: Reply) {
        self.lock().replies.push_back(reply);
    }

    /// A reply only for a request whose body contains `key`; such replies
    /// are handed out before the unkeyed queue.
    pub fn push_when(&self, key: &str, reply: Reply) {
        self.lock().keyed.push((key.to_string(), reply));
    }

    /// Forgets the scripted replies and the recorded requests.
    pub fn reset(&self) {
        *self.lock() = Script::default();
    }

    /// Every request body received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.lock().requests.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn router(&self) -> Router {
        Router::new()
            .route("/chat/completions", post(completions))
            .route("/v1/chat/completions", post(completions))
            .route("/__mock/replies", post(push_replies))
            .route("/__mock/requests", get(list_requests))
            .route("/__mock/reset", post(reset))
            .with_state(self.clone())
    }

    /// Serves on 127.0.0.1:`port` (0 = any); returns the base URL.
    pub async fn serve(&self, port: u16) -> std::io::Result<String> {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
        let addr = listener.local_addr()?;
        let router = self.router();
        tokio::spawn(async move { axum::serve(listener, router).await });
        Ok(format!("http://{addr}"))
    }
}

async fn completions(State(mock): State<Mock>, Json(body): Json<Value>) -> Response {
    let reply = {
        let mut script = mock.lock();
        script.requests.push(body.clone());
        let text = body.to_string();
        match script
            .keyed
            .iter()
            .position(|(key, _)| text.contains(key.as_str()))
        {
            Some(at) => Some(script.keyed.remove(at).1),
            None => script.replies.pop_front(),
        }
    };
    let model = body["model"].as_str().unwrap_or("mock").to_string();
    match reply {
        None => error(500, "mock provider: no scripted reply left"),
        Some(Reply::Error { status, message }) => error(status, &message),
        Some(Reply::Stream { chunks, delay_ms }) => sse(model, chunks, delay_ms),
    }
}

fn error(status: u16, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        Json(json!({"error": {"message": message, "type": "mock_error"}})),
    )
        .into_response()
}

fn sse(model: String, chunks: Vec<Chunk>, delay_ms: u64) -> Response {
    let frames = chunks
        .into_iter()
        .map(move |chunk| frame(&model, chunk))
        .chain(std::iter::once("data: [DONE]\n\n".to_string()));
    let body = stream::unfold(
        (frames, delay_ms, true),
        |(mut frames, delay, first)| async move {
            let next = frames.next()?;
            if delay > 0 && !first {
                tokio::time::sleep(Duration::from_millis(delay)).await;
            }
            Some((
                Ok::<_, std::convert::Infallible>(next),
                (frames, delay, false),
            ))
        },
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn frame(model: &str, chunk: Chunk) -> String {
    let (delta, finish, usage) = match chunk {
        Chunk::Text { text } => (json!({"content": text}), Value::Null, Value::Null),
        Chunk::Reasoning { text } => (json!({"reasoning_content": text}), Value::Null, Value::Null),
        Chunk::ToolCall {
            index,
            id,
            name,
            arguments,
        } => {
            let mut function = json!({ "arguments": arguments });
            if let Some(name) = name {
                function["name"] = json!(name);
            }
            let mut call = json!({ "index": index, "function": function });
            if let Some(id) = id {
                call["id"] = json!(id);
                call["type"] = json!("function");
            }
            (json!({ "tool_calls": [call] }), Value::Null, Value::Null)
        }
        Chunk::Finish { reason } => (json!({}), json!(reason), Value::Null),
        Chunk::Usage {
            prompt_tokens,
            completion_tokens,
            cached_tokens,
            reasoning_tokens,
        } => (
            json!({}),
            Value::Null,
            json!({
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_cache_hit_tokens": cached_tokens,
                "prompt_tokens_details": { "cached_tokens": cached_tokens },
                "completion_tokens_details": { "reasoning_tokens": reasoning_tokens }
            }),
        ),
    };
    let choices = if usage.is_null() {
        json!([{ "index": 0, "delta": delta, "finish_reason": finish }])
    } else {
        json!([])
    };
    let mut body = json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": choices,
    });
    if !usage.is_null() {
        body["usage"] = usage;
    }
    format!("data: {body}\n\n")
}

async fn push_replies(State(mock): State<Mock>, Json(replies): Json<Vec<Scripted>>) -> StatusCode {
    for Scripted {
        reply,
        when_contains,
    } in replies
    {
        match when_contains {
            Some(key) => mock.push_when(&key, reply),
            None => mock.push(reply),
        }
    }
    StatusCode::NO_CONTENT
}

async fn list_requests(State(mock): State<Mock>) -> Json<Vec<Value>> {
    Json(mock.requests())
}

async fn reset(State(mock): State<Mock>) -> StatusCode {
    mock.reset();
    StatusCode::NO_CONTENT
}
