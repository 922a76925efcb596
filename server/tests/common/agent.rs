//! A harness whose engine is the real model-backed Agent, talking over
//! HTTP to a scripted mock provider.

use super::{Api, EventReader, Events, Harness};
use codewhale::{agent::Agent, config::Config};
use mock_provider::{Chunk, Mock, Reply};
use protocol::{ThreadDetail, TurnStarted};
use serde_json::{json, Value};
use std::sync::Arc;

pub struct Setup {
    pub _h: Harness,
    pub mock: Mock,
    pub api: Api,
    pub thread: String,
}

/// A custom provider `mock` (no key) pointing at a fresh mock server; the
/// thread works in `workspace` (default: the current directory).
pub async fn setup(system_prompt: Option<&str>) -> Setup {
    setup_in(system_prompt, None).await
}

pub async fn setup_in(system_prompt: Option<&str>, workspace: Option<&std::path::Path>) -> Setup {
    setup_with(json!({ "system_prompt": system_prompt, "workspace": workspace })).await
}

/// A thread created with `body` (POST /v1/threads).
pub async fn setup_with(body: Value) -> Setup {
    setup_with_provider("", body).await
}

impl Setup {
    /// The thread's whole stream, from its start.
    pub async fn events(&self) -> EventReader {
        self.api.events(&self.thread).await
    }

    /// A stream of the events from now on.
    pub async fn events_from_now(&self) -> EventReader {
        self.api.events_from_now(&self.thread).await
    }

    /// Starts a turn with `prompt` (201).
    pub async fn start(&self, prompt: &str) -> TurnStarted {
        self.api
            .start_turn(&self.thread, json!({ "prompt": prompt }))
            .await
    }

    /// Runs a turn with `prompt`: its events from now up to its
    /// `turn.completed`.
    pub async fn run(&self, prompt: &str) -> Events {
        let body = json!({ "prompt": prompt });
        self.api.run_turn(&self.thread, body).await.1
    }

    /// The thread's snapshot.
    pub async fn detail(&self) -> ThreadDetail {
        self.api.thread(&self.thread).await
    }
}

/// Like `setup_with`, with `provider_toml` appended under `[providers.mock]`
/// (e.g. `idle_timeout_secs = 1`; later tables like `[compaction]` too).
pub async fn setup_with_provider(provider_toml: &str, body: Value) -> Setup {
    let mock = Mock::default();
    let mock_url = mock.serve(0).await.unwrap();
    let config: Config = toml::from_str(&format!(
        "default_provider = \"mock\"\n[providers.mock]\nbase_url = \"{mock_url}\"\nmodels = [\"mock-large\"]\n{provider_toml}\n"
    ))
    .unwrap();
    let h = Harness::with_engine(Arc::new(Agent::from_config(&config))).await;
    let api = h.api().await;
    let thread = api.create_thread(body).await.id;
    Setup {
        _h: h,
        mock,
        api,
        thread,
    }
}

/// An answer of `words` words ("w0 w1 …"), 100 ms apart: a turn that
/// stays running long enough to be watched, overlapped or interrupted.
pub fn slow_words(words: usize) -> Reply {
    let mut chunks: Vec<Chunk> = (0..words)
        .map(|i| Chunk::Text {
            text: format!("w{i} "),
        })
        .collect();
    chunks.push(Chunk::Finish {
        reason: "stop".into(),
    });
    Reply::Stream {
        chunks,
        delay_ms: 100,
    }
}

/// A model reply that calls one tool.
pub fn tool_call(name: &str, arguments: Value) -> Reply {
    Reply::Stream {
        chunks: vec![
            Chunk::ToolCall {
                index: 0,
                id: Some("call_t".into()),
                name: Some(name.into()),
                arguments: arguments.to_string(),
            },
            Chunk::Finish {
                reason: "tool_calls".into(),
            },
        ],
        delay_ms: 0,
    }
}

/// A thread working in `dir`, created with the extra fields of `extra`.
pub async fn setup_in_workspace(dir: &std::path::Path, extra: Value) -> Setup {
    let mut body = json!({ "workspace": dir });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    setup_with(body).await
}
