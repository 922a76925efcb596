//! Live delivery: one short turn against the mock provider, and fan-out of
//! one thread's events to 10,000 SSE subscribers of the real binary (with
//! its memory, idle and per connection).

use crate::{client, median_ms, server, Sample, Target, TOKEN};
use codewhale::agent::Agent;
use mock_provider::{Mock, Reply};
use serde_json::json;
use std::{
    sync::Arc,
    time::{Duration, Instant},
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// POST a turn → its `turn.completed` on the thread's stream, with a real
/// engine streaming a short answer from the mock provider: median of 30.
pub async fn short_turn() -> Vec<Sample> {
    let mock = Mock::default();
    let mock_url = mock.serve(0).await.unwrap();
    let config: codewhale::config::Config = toml::from_str(&format!(
        "default_provider = \"mock\"\n[providers.mock]\nbase_url = \"{mock_url}\"\nmodels = [\"mock-large\"]\n"
    ))
    .unwrap();
    let s = server(Arc::new(Agent::from_config(&config))).await;
    let id = crate::create_thread(&s.client, &s.base).await;
    let response = s
        .client
        .get(format!("{}/v1/threads/{id}/events", s.base))
        .send()
        .await
        .unwrap();
    let mut events = eventsource_stream::Eventsource::eventsource(response.bytes_stream());
    let mut times = Vec::new();
    for i in 0..31 {
        mock.push(Reply::text(&["Done", " — nothing else to change."]));
        let started = Instant::now();
        let answer = s
            .client
            .post(format!("{}/v1/threads/{id}/turns", s.base))
            .json(&json!({ "prompt": format!("short turn {i}") }))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 201);
        loop {
            let event = futures::StreamExt::next(&mut events)
                .await
                .unwrap()
                .unwrap();
            if event.event == "turn.completed" {
                break;
            }
            assert_ne!(event.event, "turn.failed", "{}", event.data);
        }
        if i > 0 {
            times.push(started.elapsed()); // the first warms the connections
        }
    }
    vec![Sample::new(
        "one short turn against the mock provider: POST → turn.completed",
        Target::AtMost(20.0),
        median_ms(&mut times),
        "ms",
    )]
}

const SUBSCRIBERS: usize = 10_000;
const EVENTS: usize = 30;

/// The real binary, `SUBSCRIBERS` raw-socket SSE clients on one thread,
/// `EVENTS` title changes 100 ms apart; latency is request sent → frame read.
pub async fn fan_out() -> Vec<Sample> {
    let home = tempfile::tempdir().unwrap();
    let (mut child, base) = crate::spawn_binary(home.path()).await;
    let pid = child.id().unwrap();
    let client = client();
    let id = crate::create_thread(&client, &base).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle = rss_kib(pid);

    let addr = base.trim_start_matches("http://").to_string();
    let epoch = Instant::now();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(SUBSCRIBERS);
    let permits = Arc::new(tokio::sync::Semaphore::new(256)); // connects in flight
    let mut readers = Vec::new();
    for _ in 0..SUBSCRIBERS {
        let (addr, id, ready) = (addr.clone(), id.clone(), ready_tx.clone());
        let permit = permits.clone().acquire_owned().await.unwrap();
        readers.push(tokio::spawn(async move {
            let mut socket = subscribe(&addr, &id).await;
            drop(permit);
            ready.send(()).await.unwrap();
            read_latencies(&mut socket, epoch).await
        }));
    }
    for _ in 0..SUBSCRIBERS {
        ready_rx.recv().await.unwrap();
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let loaded = rss_kib(pid);
    let (server_cpu, client_cpu) = (cpu_seconds(&pid.to_string()), cpu_seconds("self"));
    for _ in 0..EVENTS {
        let sent = epoch.elapsed().as_micros();
        let response = client
            .patch(format!("{base}/v1/threads/{id}"))
            .json(&json!({ "title": format!("bench-{sent}") }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut all: Vec<u64> = Vec::new();
    for reader in readers {
        all.extend(reader.await.unwrap());
    }
    all.sort_unstable();
    let deliveries = (SUBSCRIBERS * EVENTS) as f64;
    let server_us = (cpu_seconds(&pid.to_string()) - server_cpu) * 1e6 / deliveries;
    let client_us = (cpu_seconds("self") - client_cpu) * 1e6 / deliveries;
    let _ = child.kill().await;
    let p = |q: f64| all[((all.len() as f64 - 1.0) * q) as usize] as f64 / 1000.0;
    vec![
        Sample::new(
            "10,000 SSE subscribers on one thread: commit → delivery p99",
            Target::AtMost(100.0),
            p(0.99),
            "ms",
        ),
        Sample::new(
            "10,000 SSE subscribers: delivery p50",
            Target::None,
            p(0.5),
            "ms",
        ),
        Sample::new(
            "10,000 SSE subscribers: server CPU per delivery",
            Target::None,
            server_us,
            "µs",
        ),
        Sample::new(
            "10,000 SSE subscribers: client CPU per delivery (same 2 cores)",
            Target::None,
            client_us,
            "µs",
        ),
        Sample::new(
            "idle RSS of codewhale app-server",
            Target::AtMost(40.0),
            idle as f64 / 1024.0,
            "MB",
        ),
        Sample::new(
            "RSS per open SSE connection (10,000 open)",
            Target::AtMost(32.0),
            loaded.saturating_sub(idle) as f64 / SUBSCRIBERS as f64,
            "KiB",
        ),
    ]
}

/// A raw HTTP/1.1 SSE request (no client library: 10,000 of them share
/// the two cores with the server, so the client must cost little); returns
/// once the stream's first event (`thread.started`) arrived.
async fn subscribe(addr: &str, thread: &str) -> tokio::net::TcpStream {
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /v1/threads/{thread}/events HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nAccept: text/event-stream\r\n\r\n"
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !contains(&seen, b"thread.started") {
        let n = socket.read(&mut buf).await.unwrap();
        assert!(n > 0, "stream closed: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    socket
}

/// Reads until `EVENTS` title changes arrived; each one's latency in µs.
async fn read_latencies(socket: &mut tokio::net::TcpStream, epoch: Instant) -> Vec<u64> {
    const MARK: &[u8] = b"\"title\":\"bench-";
    let mut latencies = Vec::with_capacity(EVENTS);
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = [0u8; 8192];
    while latencies.len() < EVENTS {
        let n = socket.read(&mut buf).await.unwrap();
        assert!(n > 0, "stream closed early");
        let now = epoch.elapsed().as_micros() as u64;
        pending.extend_from_slice(&buf[..n]);
        let mut consumed = 0;
        while let Some(at) = find(&pending[consumed..], MARK) {
            let digits_at = consumed + at + MARK.len();
            let digits: Vec<u8> = pending[digits_at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .copied()
                .collect();
            if digits_at + digits.len() >= pending.len() {
                break; // the number continues in the next read
            }
            let sent: u64 = std::str::from_utf8(&digits).unwrap().parse().unwrap();
            latencies.push(now.saturating_sub(sent));
            consumed = digits_at + digits.len();
        }
        pending.drain(..consumed);
        if pending.len() > 64 * 1024 {
            let keep = pending.len() - 64;
            pending.drain(..keep);
        }
    }
    latencies
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

/// User + system CPU time of a process (`self` or a pid), in seconds.
fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command (which may hold spaces) start after ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0 // USER_HZ
}

pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
}
