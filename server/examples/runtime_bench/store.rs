//! Writes and reads through the store and the router: appends, a full
//! replay over SSE, thread creation.

use crate::{fill, new_thread, open_runtime, server, Sample, Target};
use codewhale::runtime::{
    engine::{Engine, NoProvider, Outcome, Route, TurnContext, TurnSettings},
    error::RuntimeError,
};
use futures::{future::BoxFuture, StreamExt};
use protocol::{ItemKind, ThreadRecord, Usage};
use serde_json::json;
use std::{
    sync::Arc,
    time::{Duration, Instant},
};

/// An engine that streams `n` small deltas as fast as it can.
struct Flood(usize);

impl Engine for Flood {
    fn check_ready(&self, _: &ThreadRecord, _: &TurnSettings) -> Result<Route, RuntimeError> {
        Ok(Route::default())
    }
    fn run(&self, turn: TurnContext) -> BoxFuture<'static, Outcome> {
        let n = self.0;
        Box::pin(async move {
            let id = turn.items.start(ItemKind::AgentMessage, "").await;
            for i in 0..n {
                turn.items.delta(&id, format!("t{i} ")).await;
            }
            turn.items
                .end(
                    &id,
                    codewhale::runtime::turn_writer::ItemEnd::Completed,
                    None,
                    None,
                )
                .await;
            Outcome::Completed {
                usage: Usage::default(),
            }
        })
    }
}

pub async fn appends() -> Vec<Sample> {
    let home = tempfile::tempdir().unwrap();
    let n = 200_000;
    let runtime = open_runtime(home.path(), Arc::new(Flood(n))).await;
    let thread = new_thread(&runtime).await;
    let started = Instant::now();
    runtime
        .start_turn(
            &thread.id,
            protocol::StartTurn {
                prompt: "flood".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    loop {
        let detail = runtime.thread(&thread.id).await.unwrap();
        if !detail.turns[0].status.is_active() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let coalesced = n as f64 / started.elapsed().as_secs_f64();

    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path(), Arc::new(NoProvider)).await;
    let thread = new_thread(&runtime).await;
    let n = 20_000;
    let started = Instant::now();
    fill(runtime.store(), &thread.id, n, 1).await;
    let one_each = n as f64 / started.elapsed().as_secs_f64();
    vec![
        Sample::new(
            "streamed deltas made durable (coalesced)",
            Target::AtLeast(20_000.0),
            coalesced,
            "/s",
        ),
        Sample::new(
            "durable events, one commit each",
            Target::None,
            one_each,
            "/s",
        ),
    ]
}

/// Reads SSE frames until `count` events arrived; returns the elapsed time.
pub async fn read_events(client: &reqwest::Client, url: &str, count: usize) -> Duration {
    let started = Instant::now();
    let response = client.get(url).send().await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    let mut body = response.bytes_stream();
    let mut seen = 0;
    let mut tail = Vec::new();
    while seen < count {
        let chunk = body.next().await.expect("stream ended early").unwrap();
        tail.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(pos) = tail[start..].windows(2).position(|w| w == b"\n\n") {
            if tail[start..].starts_with(b"id:") {
                seen += 1;
            }
            start += pos + 2;
        }
        tail.drain(..start);
    }
    started.elapsed()
}

pub async fn full_replay() -> Vec<Sample> {
    let s = server(Arc::new(NoProvider)).await;
    let thread = new_thread(&s.runtime).await;
    let n = 100_000;
    fill(&s.store, &thread.id, n, 1000).await;
    let url = format!("{}/v1/threads/{}/events?since_seq=0", s.base, thread.id);
    let took = read_events(&s.client, &url, n + 1).await;
    vec![Sample::new(
        "full replay of a 100,000-event thread over SSE",
        Target::AtLeast(300_000.0),
        (n + 1) as f64 / took.as_secs_f64(),
        "events/s",
    )]
}

/// `POST /v1/threads` from 4 concurrent clients.
pub async fn thread_creation() -> Vec<Sample> {
    let s = server(Arc::new(NoProvider)).await;
    let per_client = 1_000;
    let started = Instant::now();
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (client, url) = (s.client.clone(), format!("{}/v1/threads", s.base));
            tokio::spawn(async move {
                for _ in 0..per_client {
                    let response = client.post(&url).json(&json!({})).send().await.unwrap();
                    assert_eq!(response.status(), 201);
                }
            })
        })
        .collect();
    for c in clients {
        c.await.unwrap();
    }
    let rate = (4 * per_client) as f64 / started.elapsed().as_secs_f64();
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM threads")
        .fetch_one(s.store.pool())
        .await
        .unwrap();
    assert_eq!(stored, 4 * per_client as i64);
    vec![Sample::new(
        "thread creation, 4 concurrent clients",
        Target::AtLeast(2_000.0),
        rate,
        "/s",
    )]
}
