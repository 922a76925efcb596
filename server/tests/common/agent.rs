//! A harness whose engine is the real model-backed Agent, talking over
//! HTTP to a scripted mock provider.

use super::{api_client, EventReader, Harness};
use codewhale::{agent::Agent, config::Config};
use mock_provider::{Chunk, Mock, Reply};
use serde_json::{json, Value};
use std::sync::Arc;

pub struct Setup {
    pub _h: Harness,
    pub mock: Mock,
    pub base: String,
    pub client: reqwest::Client,
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
    pub async fn events(&self) -> EventReader {
        EventReader::open(
            &self.client,
            &format!("{}/v1/threads/{}/events", self.base, self.thread),
            &[],
        )
        .await
    }

    /// A stream of the events from now on.
    pub async fn events_from_now(&self) -> EventReader {
        let detail: Value = self
            .client
            .get(format!("{}/v1/threads/{}", self.base, self.thread))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let url = format!(
            "{}/v1/threads/{}/events?since_seq={}",
            self.base, self.thread, detail["latest_seq"]
        );
        EventReader::open(&self.client, &url, &[]).await
    }

    pub async fn start(&self, prompt: &str) -> Value {
        let reply = self
            .client
            .post(format!("{}/v1/threads/{}/turns", self.base, self.thread))
            .json(&json!({ "prompt": prompt }))
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 201);
        reply.json().await.unwrap()
    }
}

/// The concatenated deltas of items of `kind`.
pub fn text(events: &[(String, Value)], kind: &str) -> String {
    events
        .iter()
        .filter(|(n, e)| n == "item.delta" && e["payload"]["kind"] == kind)
        .map(|(_, e)| e["payload"]["delta"].as_str().unwrap())
        .collect()
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
    let base = h.serve().await;
    let client = api_client();
    let thread: Value = client
        .post(format!("{base}/v1/threads"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    Setup {
        _h: h,
        mock,
        base,
        client,
        thread: thread["id"].as_str().unwrap().to_string(),
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

/// The last finished item of `kind`.
pub fn last_item(events: &[(String, Value)], kind: &str) -> Value {
    events
        .iter()
        .rev()
        .find(|(n, e)| {
            (n == "item.completed" || n == "item.failed") && e["payload"]["item"]["kind"] == kind
        })
        .map(|(_, e)| e["payload"]["item"].clone())
        .unwrap_or_else(|| panic!("no {kind} item"))
}
