//! Benchmarks over one big store, built once per process and reused by
//! every run: 100,000 threads and 1,000,000 events (all on one long
//! thread). Start-up, tail replay, listings and search.

use crate::{client, median_ms, server_in, store::read_events, Sample, Target};
use codewhale::{
    runtime::engine::NoProvider,
    store::{self, NewEvent, Store, ThreadRow},
};
use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};
use tokio::sync::OnceCell;

const THREADS: usize = 100_000;
const EVENTS: usize = 1_000_000;

struct Big {
    _dir: tempfile::TempDir,
    home: PathBuf,
    long_thread: String,
}

static BIG: OnceCell<Big> = OnceCell::const_new();

async fn big() -> &'static Big {
    BIG.get_or_init(build).await
}

fn thread_row(i: usize, workspace: &str) -> ThreadRow {
    // Distinct timestamps, so the newest-first order is the insert order.
    let at = format!("2026-01-01T00:00:00.{i:06}Z");
    ThreadRow {
        id: format!("thr_{i:016x}"),
        created_at: at.clone(),
        updated_at: at,
        model: Some("deepseek-v4".into()),
        model_provider: None,
        workspace: Some(workspace.to_string()),
        mode: "agent".into(),
        allow_shell: true,
        trust_mode: false,
        auto_approve: false,
        title: Some(format!("Fix flaky test {i:06} in module {}", i % 97)),
        system_prompt: None,
        task_id: None,
        latest_turn_id: None,
        latest_response_bookmark: None,
        archived: false,
        dynamic_tools: "[]".into(),
        preview: Some(format!("why does test {i:06} fail on CI but not here?")),
    }
}

async fn build() -> Big {
    eprintln!("building the big store: {THREADS} threads, {EVENTS} events");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let store = Store::open(&home).await.unwrap();
    let workspace = home.display().to_string();
    for chunk in (0..THREADS).collect::<Vec<_>>().chunks(5_000) {
        let mut tx = store.begin_write().await.unwrap();
        for &i in chunk {
            store::threads::insert(tx.conn(), &thread_row(i, &workspace))
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
    }
    let long_thread = thread_row(0, &workspace).id;
    let mut left = EVENTS;
    while left > 0 {
        let mut tx = store.begin_write().await.unwrap();
        for i in 0..left.min(4_000) {
            tx.append(NewEvent::thread(
                &long_thread,
                crate::delta(format!("token {i} ")),
            ))
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
        left -= left.min(4_000);
    }
    store.close().await;
    Big {
        _dir: dir,
        home,
        long_thread,
    }
}

/// `replay_limit=100` on the thread with 1,000,000 events: median of 21.
pub async fn tail_replay() -> Vec<Sample> {
    let big = big().await;
    let s = server_in(&big.home, Arc::new(NoProvider)).await;
    let url = format!(
        "{}/v1/threads/{}/events?replay_limit=100",
        s.base, big.long_thread
    );
    let mut times = Vec::new();
    for _ in 0..21 {
        times.push(read_events(&s.client, &url, 100).await);
    }
    s.runtime.stop_streams();
    s.store.close().await;
    vec![Sample::new(
        "tail replay (replay_limit=100), 1,000,000 events stored",
        Target::AtMost(5.0),
        median_ms(&mut times),
        "ms",
    )]
}

/// The rail's summary and a search that matches one thread of 100,000.
pub async fn listings() -> Vec<Sample> {
    let big = big().await;
    let s = server_in(&big.home, Arc::new(NoProvider)).await;
    let timed = |url: String, expect: usize| {
        let client = s.client.clone();
        async move {
            let mut times = Vec::new();
            for _ in 0..31 {
                let started = Instant::now();
                let rows: serde_json::Value =
                    client.get(&url).send().await.unwrap().json().await.unwrap();
                times.push(started.elapsed());
                assert_eq!(rows.as_array().unwrap().len(), expect, "{url}");
            }
            median_ms(&mut times)
        }
    };
    let summary = timed(format!("{}/v1/threads/summary?limit=50", s.base), 50).await;
    let search = timed(
        format!(
            "{}/v1/threads/summary?limit=50&search=test%20042421",
            s.base
        ),
        1,
    )
    .await;
    s.store.close().await;
    vec![
        Sample::new(
            "GET /v1/threads/summary?limit=50, 100,000 threads",
            Target::AtMost(5.0),
            summary,
            "ms",
        ),
        Sample::new(
            "search of 100,000 titles and previews (one match)",
            Target::AtMost(10.0),
            search,
            "ms",
        ),
    ]
}

/// exec → first `GET /health` answered, with the big store: median of 10.
pub async fn start_up() -> Vec<Sample> {
    let big = big().await;
    let client = client();
    let mut times = Vec::new();
    for _ in 0..10 {
        let started = Instant::now();
        let (mut child, base) = crate::spawn_binary(&big.home).await;
        let health = format!("{base}/health");
        loop {
            if let Ok(r) = client.get(&health).send().await {
                if r.status() == 200 {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        times.push(started.elapsed());
        if let Some(pid) = child.id() {
            // SIGTERM: a clean stop, so the next start finds the store as a
            // user's would be.
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    }
    vec![Sample::new(
        "start-up: exec → GET /health, 100,000 threads and 1,000,000 events stored",
        Target::AtMost(25.0),
        median_ms(&mut times),
        "ms",
    )]
}
