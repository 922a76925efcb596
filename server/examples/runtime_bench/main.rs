//! Runtime benchmarks: `./scripts/bench` (or `cargo run --release -p
//! codewhale --example runtime_bench`). Every benchmark runs `RUNS` times
//! (3 unless set); the table shows the median with the slowest and fastest
//! run, and a target counts as met only when the slowest run meets it.
//! Everything runs against the real store, router and (for start-up,
//! memory and fan-out) the real binary, over loopback.
//! `ONLY=replay,fan-out` runs the benchmarks whose names contain a word.

#![allow(clippy::print_stdout)] // the report is its output

mod big;
mod live;
mod process;
mod store;

use codewhale::{
    http::{
        auth::RuntimeToken,
        router,
        state::{AppState, EdgeOptions},
    },
    runtime::{engine::Engine, Runtime, RuntimeOptions},
    store::{NewEvent, Store},
};
use futures::future::BoxFuture;
use protocol::{ItemKind, ThreadRecord};
use std::{net::SocketAddr, path::Path, sync::Arc};

pub const TOKEN: &str = "cwrt_bench_token_0123456789abcdef";

/// What a measurement must reach.
#[derive(Clone, Copy)]
pub enum Target {
    AtLeast(f64),
    AtMost(f64),
    /// Shown for reference; no target.
    None,
}

/// One measurement of one run.
pub struct Sample {
    pub metric: String,
    pub target: Target,
    pub value: f64,
    pub unit: &'static str,
}

impl Sample {
    pub fn new(metric: impl Into<String>, target: Target, value: f64, unit: &'static str) -> Self {
        Self {
            metric: metric.into(),
            target,
            value,
            unit,
        }
    }
}

type Bench = fn() -> BoxFuture<'static, Vec<Sample>>;

fn benches() -> Vec<(&'static str, Bench)> {
    vec![
        ("appends", || Box::pin(store::appends())),
        ("replay", || Box::pin(store::full_replay())),
        ("tail", || Box::pin(big::tail_replay())),
        ("listings", || Box::pin(big::listings())),
        ("start-up", || Box::pin(big::start_up())),
        ("creation", || Box::pin(store::thread_creation())),
        ("turn", || Box::pin(live::short_turn())),
        ("fan-out", || Box::pin(live::fan_out())),
        ("edge", || Box::pin(process::edge())),
    ]
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let only: Vec<String> = std::env::var("ONLY")
        .map(|o| o.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let chosen: Vec<_> = benches()
        .into_iter()
        .filter(|(name, _)| only.is_empty() || only.iter().any(|o| name.contains(o.as_str())))
        .collect();
    let mut samples: Vec<Sample> = Vec::new();
    for run in 1..=runs {
        for (name, bench) in &chosen {
            eprintln!("run {run}/{runs}: {name}");
            samples.extend(bench().await);
        }
    }
    report(&samples, runs);
}

/// One row per metric: median (slowest–fastest), met by the slowest run.
fn report(samples: &[Sample], runs: usize) {
    println!("| metric | target | median of {runs} (slowest–fastest) | met |");
    println!("|---|---|---|---|");
    let mut order: Vec<&str> = Vec::new();
    for s in samples {
        if !order.contains(&s.metric.as_str()) {
            order.push(&s.metric);
        }
    }
    for metric in order {
        let these: Vec<&Sample> = samples.iter().filter(|s| s.metric == metric).collect();
        let mut values: Vec<f64> = these.iter().map(|s| s.value).collect();
        values.sort_by(f64::total_cmp);
        let (target, unit) = (these[0].target, these[0].unit);
        let median = values[values.len() / 2];
        let (low, high) = (values[0], values[values.len() - 1]);
        let (goal, slowest, met) = match target {
            Target::AtLeast(x) => (format!("≥ {} {unit}", num(x)), low, Some(low >= x)),
            Target::AtMost(x) => (format!("< {} {unit}", num(x)), high, Some(high < x)),
            Target::None => ("(reference)".to_string(), low, None),
        };
        let fastest = if slowest == low { high } else { low };
        println!(
            "| {metric} | {goal} | {} {unit} ({}–{}) | {} |",
            num(median),
            num(slowest),
            num(fastest),
            match met {
                Some(true) => "yes",
                Some(false) => "**no**",
                None => "—",
            }
        );
    }
}

/// Big numbers with thousands separators, small ones with two decimals.
fn num(x: f64) -> String {
    if x.abs() >= 100.0 {
        let digits = format!("{:.0}", x);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 && c != '-' {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else {
        format!("{x:.2}")
    }
}

pub struct Server {
    pub base: String,
    pub client: reqwest::Client,
    pub runtime: Arc<Runtime>,
    pub store: Arc<Store>,
    pub _home: Option<tempfile::TempDir>,
}

/// The runtime every in-process benchmark drives, on the store in `home`.
pub async fn open_runtime(home: &Path, engine: Arc<dyn Engine>) -> Arc<Runtime> {
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

/// A client that sends the bench token.
pub fn client() -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    codewhale::provider::install_tls();
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

/// The real router on a loopback port over a fresh store.
pub async fn server(engine: Arc<dyn Engine>) -> Server {
    let home = tempfile::tempdir().unwrap();
    let mut s = server_in(home.path(), engine).await;
    s._home = Some(home);
    s
}

/// The real router on a loopback port over the store in `home`.
pub async fn server_in(home: &Path, engine: Arc<dyn Engine>) -> Server {
    let runtime = open_runtime(home, engine).await;
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
    Server {
        base: format!("http://{addr}"),
        client: client(),
        store: runtime.store().clone(),
        runtime,
        _home: None,
    }
}

pub async fn new_thread(runtime: &Runtime) -> ThreadRecord {
    runtime.create_thread(Default::default()).await.unwrap()
}

/// Appends `n` events to `thread`, `per_tx` per transaction.
pub async fn fill(store: &Store, thread: &str, n: usize, per_tx: usize) {
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

pub fn delta(text: String) -> protocol::EventPayload {
    protocol::EventPayload::ItemDelta(protocol::ItemDeltaPayload {
        delta: text,
        kind: ItemKind::AgentMessage,
    })
}

/// The median of `times` (sorted in place), in milliseconds.
pub fn median_ms(times: &mut [std::time::Duration]) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

/// The real binary (`CODEWHALE_BIN`, else target/release/codewhale) as
/// `app-server --http` on the store in `home`, and its base URL (the first
/// line it prints, once it listens).
pub async fn spawn_binary(home: &Path) -> (tokio::process::Child, String) {
    let binary =
        std::env::var("CODEWHALE_BIN").unwrap_or_else(|_| "target/release/codewhale".into());
    let mut child = tokio::process::Command::new(binary)
        .args(["app-server", "--http", "--port", "0", "--auth-token", TOKEN])
        .env("CODEWHALE_HOME", home)
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
    (child, base.trim().to_string())
}

/// `POST /v1/threads` with an empty body; the new thread's id.
pub async fn create_thread(client: &reqwest::Client, base: &str) -> String {
    let created: serde_json::Value = client
        .post(format!("{base}/v1/threads"))
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    created["id"].as_str().unwrap().to_string()
}
