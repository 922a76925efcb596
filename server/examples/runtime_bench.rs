//! Runtime benchmarks: `./scripts/bench-runtime` (or
//! `cargo run --release -p codewhale --example runtime_bench`).
//! Prints a Markdown table for BENCHMARKS.md. Everything runs against the
//! real store, router and (for memory) the real binary, over loopback.

#![allow(clippy::print_stdout)] // the report is its output

use codewhale::{
    http::{
        auth::RuntimeToken,
        router,
        state::{AppState, EdgeOptions},
    },
    runtime::{
        engine::{Engine, NoProvider, Outcome, Route, TurnContext, TurnSettings},
        error::RuntimeError,
        Runtime, RuntimeOptions,
    },
    store::{self, NewEvent, Store, ThreadRow},
};
use futures::{future::BoxFuture, StreamExt};
use protocol::{ItemKind, ThreadRecord, Usage};
use serde_json::json;
use std::{
    net::SocketAddr,
    path::Path,
    sync::Arc,
    time::{Duration, Instant},
};

const TOKEN: &str = "cwrt_bench_token_0123456789abcdef";

fn row(metric: &str, target: &str, measured: String, ok: bool) {
    println!(
        "| {metric} | {target} | {measured} | {} |",
        if ok { "yes" } else { "**no**" }
    );
}

#[tokio::main]
async fn main() {
    println!("| metric | target | measured | met |");
    println!("|---|---|---|---|");
    appends_with_coalescing().await;
    appends_one_per_commit().await;
    full_replay().await;
    for total in [10_000, 100_000, 1_000_000] {
        tail_replay(total).await;
    }
    summary_over_many_threads().await;
    many_subscribers().await;
    memory().await;
}

struct Server {
    base: String,
    client: reqwest::Client,
    runtime: Arc<Runtime>,
    store: Arc<Store>,
    _home: tempfile::TempDir,
}

/// The runtime every benchmark drives, on a fresh store in `home`.
async fn open_runtime(home: &Path, engine: Arc<dyn Engine>) -> Arc<Runtime> {
    let options = RuntimeOptions {
        home: home.to_path_buf(),
        engine,
        pricing: Default::default(),
        default_workspace: home.to_path_buf(),
        wait_timeout: codewhale::runtime::approvals::DEFAULT_TIMEOUT,
        clock: Default::default(),
        sub_agents: Default::default(),
    };
    Arc::new(Runtime::open(options).await.unwrap())
}

async fn server() -> Server {
    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path(), Arc::new(NoProvider)).await;
    let edge = EdgeOptions {
        bind_host: "127.0.0.1".into(),
        port: 0,
        token: Some(RuntimeToken::resolve(Some(TOKEN.into())).unwrap()),
        web: None,
        cors_origins: vec![],
        allowed_hosts: vec![],
        pairing: None,
        tls: false,
    };
    let state = AppState::new(runtime.clone(), edge);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = router::app(state).into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, service).await });
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    let client = {
        codewhale::provider::install_tls();
        reqwest::Client::builder()
    }
    .default_headers(headers)
    .build()
    .unwrap();
    Server {
        base: format!("http://{addr}"),
        client,
        store: runtime.store().clone(),
        runtime,
        _home: home,
    }
}

async fn new_thread(runtime: &Runtime) -> ThreadRecord {
    runtime.create_thread(Default::default()).await.unwrap()
}

/// Appends `n` events to `thread`, `per_tx` per transaction.
async fn fill(store: &Store, thread: &str, n: usize, per_tx: usize) {
    let mut left = n;
    while left > 0 {
        let batch = left.min(per_tx);
        let mut tx = store.begin_write().await.unwrap();
        for i in 0..batch {
            tx.append(NewEvent::thread(thread, delta(format!("token {i} "))))
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
        left -= batch;
    }
}

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

async fn appends_with_coalescing() {
    let home = tempfile::tempdir().unwrap();
    let n = 200_000;
    let runtime = open_runtime(home.path(), Arc::new(Flood(n))).await;
    let store = runtime.store().clone();
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
    let took = started.elapsed().as_secs_f64();
    let events = store::events::after(store.pool(), &thread.id, 0, 1_000_000)
        .await
        .unwrap();
    let deltas = events.iter().filter(|e| e.event == "item.delta").count();
    let rate = n as f64 / took;
    row(
        "streamed deltas made durable (coalesced)",
        "≥ 20,000 /s",
        format!("{rate:.0} /s ({n} deltas → {deltas} item.delta events)"),
        rate >= 20_000.0,
    );
}

async fn appends_one_per_commit() {
    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path(), Arc::new(NoProvider)).await;
    let store = runtime.store().clone();
    let thread = new_thread(&runtime).await;
    let n = 20_000;
    let started = Instant::now();
    fill(&store, &thread.id, n, 1).await;
    let rate = n as f64 / started.elapsed().as_secs_f64();
    row(
        "durable events, one commit each (no coalescing)",
        "(reference)",
        format!("{rate:.0} /s"),
        true,
    );
}

/// Reads SSE frames until `count` events arrived; returns the elapsed time.
async fn read_events(client: &reqwest::Client, url: &str, count: usize) -> Duration {
    let started = Instant::now();
    let response = client.get(url).send().await.unwrap();
    let mut body = response.bytes_stream();
    let mut seen = 0;
    let mut tail = Vec::new();
    while seen < count {
        let chunk = body.next().await.expect("stream ended early").unwrap();
        tail.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(pos) = tail[start..].windows(2).position(|w| w == b"\n\n") {
            let frame = &tail[start..start + pos];
            if frame.starts_with(b"id:") || frame.windows(4).any(|w| w == b"\nid:") {
                seen += 1;
            }
            start += pos + 2;
        }
        tail.drain(..start);
    }
    started.elapsed()
}

async fn full_replay() {
    let s = server().await;
    let thread = new_thread(&s.runtime).await;
    let n = 100_000;
    fill(&s.store, &thread.id, n, 1000).await;
    let url = format!("{}/v1/threads/{}/events?since_seq=0", s.base, thread.id);
    let took = read_events(&s.client, &url, n + 1).await;
    let rate = (n + 1) as f64 / took.as_secs_f64();
    row(
        "full replay of a 100,000-event thread over SSE",
        "≥ 100,000 events/s",
        format!("{rate:.0} events/s ({:.2} s)", took.as_secs_f64()),
        rate >= 100_000.0,
    );
}

async fn tail_replay(total: usize) {
    let s = server().await;
    let thread = new_thread(&s.runtime).await;
    fill(&s.store, &thread.id, total, 4000).await;
    let url = format!(
        "{}/v1/threads/{}/events?replay_limit=100",
        s.base, thread.id
    );
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..21 {
        times.push(read_events(&s.client, &url, 100).await);
    }
    times.sort();
    let median = times[times.len() / 2];
    row(
        &format!("tail replay (replay_limit=100), {total} events stored"),
        "< 10 ms, flat",
        format!("{:.2} ms median", median.as_secs_f64() * 1000.0),
        median < Duration::from_millis(10),
    );
}

async fn summary_over_many_threads() {
    let s = server().await;
    let workspace = s._home.path().display().to_string();
    let mut left = 10_000;
    while left > 0 {
        let mut tx = s.store.begin_write().await.unwrap();
        for _ in 0..1000 {
            let now = codewhale::clock::now();
            let row = ThreadRow {
                id: codewhale::runtime::ids::new("thr_"),
                created_at: now.clone(),
                updated_at: now,
                model: Some("deepseek-v4".into()),
                model_provider: None,
                workspace: Some(workspace.clone()),
                mode: "agent".into(),
                allow_shell: true,
                trust_mode: false,
                auto_approve: false,
                title: Some("A thread".into()),
                system_prompt: None,
                task_id: None,
                latest_turn_id: None,
                latest_response_bookmark: None,
                archived: false,
                dynamic_tools: "[]".into(),
                preview: Some("what the user asked".into()),
            };
            store::threads::insert(tx.conn(), &row).await.unwrap();
        }
        tx.commit().await.unwrap();
        left -= 1000;
    }
    let url = format!("{}/v1/threads/summary?limit=50", s.base);
    let mut times = Vec::new();
    for _ in 0..51 {
        let started = Instant::now();
        let rows: serde_json::Value = s
            .client
            .get(&url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(rows.as_array().unwrap().len(), 50);
        times.push(started.elapsed());
    }
    times.sort();
    let median = times[times.len() / 2];
    row(
        "GET /v1/threads/summary?limit=50 over 10,000 threads",
        "< 20 ms median",
        format!(
            "{:.2} ms median (git cached)",
            median.as_secs_f64() * 1000.0
        ),
        median < Duration::from_millis(20),
    );
}

async fn many_subscribers() {
    let s = server().await;
    let thread = new_thread(&s.runtime).await;
    let subscribers = 1000;
    let events = 50;
    let epoch = Instant::now();
    let mut readers = Vec::new();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(subscribers);
    for _ in 0..subscribers {
        let client = s.client.clone();
        let url = format!("{}/v1/threads/{}/events", s.base, thread.id);
        let ready = ready_tx.clone();
        readers.push(tokio::spawn(async move {
            let response = client.get(&url).send().await.unwrap();
            let mut stream = eventsource_stream::Eventsource::eventsource(response.bytes_stream());
            let mut latencies = Vec::new();
            let first = stream.next().await.unwrap().unwrap(); // thread.started
            assert_eq!(first.event, "thread.started");
            ready.send(()).await.unwrap();
            while latencies.len() < events {
                let event = stream.next().await.unwrap().unwrap();
                let envelope: serde_json::Value = serde_json::from_str(&event.data).unwrap();
                let sent: u64 = envelope["payload"]["delta"]
                    .as_str()
                    .and_then(|text| text.parse().ok())
                    .unwrap();
                let now = epoch.elapsed().as_micros() as u64;
                latencies.push(now.saturating_sub(sent));
            }
            latencies
        }));
    }
    for _ in 0..subscribers {
        ready_rx.recv().await.unwrap();
    }
    for _ in 0..events {
        let mut tx = s.store.begin_write().await.unwrap();
        let sent_us = epoch.elapsed().as_micros() as u64;
        // The send time rides in the delta's text.
        tx.append(NewEvent::thread(&thread.id, delta(sent_us.to_string())))
            .await
            .unwrap();
        tx.commit().await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut all: Vec<u64> = Vec::new();
    for reader in readers {
        all.extend(reader.await.unwrap());
    }
    all.sort_unstable();
    let p = |q: f64| all[((all.len() as f64 - 1.0) * q) as usize] as f64 / 1000.0;
    row(
        "1,000 SSE subscribers on one thread: commit → delivery",
        "p99 < 50 ms",
        format!("p50 {:.1} ms, p99 {:.1} ms", p(0.5), p(0.99)),
        p(0.99) < 50.0,
    );
}

/// RSS of the real binary: idle, then with 1,000 open SSE connections.
async fn memory() {
    let binary =
        std::env::var("CODEWHALE_BIN").unwrap_or_else(|_| "target/release/codewhale".into());
    let home = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(&binary)
        .args(["app-server", "--http", "--port", "0", "--auth-token", TOKEN])
        .env("CODEWHALE_HOME", home.path())
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("run scripts/build first (or set CODEWHALE_BIN)");
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut base = String::new();
    tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut base)
        .await
        .unwrap();
    let base = base.trim().to_string();
    let pid = child.id().unwrap();
    let rss_kib = || {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap()
    };
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    let client = {
        codewhale::provider::install_tls();
        reqwest::Client::builder()
    }
    .default_headers(headers)
    .build()
    .unwrap();
    let thread: serde_json::Value = client
        .post(format!("{base}/v1/threads"))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle = rss_kib();
    let url = format!(
        "{base}/v1/threads/{}/events",
        thread["id"].as_str().unwrap()
    );
    let mut streams = Vec::new();
    for _ in 0..1000 {
        let response = client.get(&url).send().await.unwrap();
        let mut body = response.bytes_stream();
        body.next().await; // thread.started: the stream is live
        streams.push(body);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let loaded = rss_kib();
    let per_connection = (loaded.saturating_sub(idle)) as f64 / 1000.0;
    row(
        "idle RSS of codewhale app-server",
        "< 40 MB",
        format!("{:.1} MB", idle as f64 / 1024.0),
        idle < 40 * 1024,
    );
    row(
        "RSS per open SSE connection (1,000 open)",
        "< 64 KiB",
        format!("{per_connection:.1} KiB"),
        per_connection < 64.0,
    );
    drop(streams);
    let _ = child.kill().await;
}

fn delta(text: String) -> protocol::EventPayload {
    protocol::EventPayload::ItemDelta(protocol::ItemDeltaPayload {
        delta: text,
        kind: ItemKind::AgentMessage,
    })
}
