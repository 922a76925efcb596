//! Per-request cost of the HTTP edge: `wrk -t2 -c64` against the real
//! binary (skipped, with a note, when wrk is not installed).

use crate::{client, Sample, Target, TOKEN};
use std::process::Command;

pub async fn edge() -> Vec<Sample> {
    if Command::new("wrk").arg("--version").output().is_err() {
        eprintln!("edge: wrk is not installed (scripts/setup installs it); skipped");
        return Vec::new();
    }
    let home = tempfile::tempdir().unwrap();
    let (mut child, base) = crate::spawn_binary(home.path()).await;
    let client = client();
    let mut thread = String::new();
    for _ in 0..1_000 {
        thread = crate::create_thread(&client, &base).await;
    }
    let script = home.path().join("auth.lua");
    std::fs::write(
        &script,
        format!("wrk.headers[\"Authorization\"] = \"Bearer {TOKEN}\"\n"),
    )
    .unwrap();
    let mut samples = Vec::new();
    for (name, path, floor) in [
        ("GET /health", "/health".to_string(), 40_000.0),
        (
            "GET /v1/threads/{id}",
            format!("/v1/threads/{thread}"),
            10_000.0,
        ),
        (
            "GET /v1/threads/summary?limit=50, 1,000 threads",
            "/v1/threads/summary?limit=50".to_string(),
            3_000.0,
        ),
    ] {
        let out = Command::new("wrk")
            .args(["-t2", "-c64", "-d5s", "--latency", "-s"])
            .arg(&script)
            .arg(format!("{base}{path}"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let rate = field(&text, "Requests/sec:").unwrap_or(0.0);
        let p99 = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("99%"))
            .map(|v| millis(v.trim()))
            .unwrap_or(f64::INFINITY);
        let errors = text.contains("Non-2xx") || text.contains("Socket errors");
        if errors {
            eprintln!("edge: {name} had errors:\n{text}");
        }
        samples.push(Sample::new(
            format!("wrk -t2 -c64 {name}: requests"),
            Target::AtLeast(floor),
            if errors { 0.0 } else { rate },
            "/s",
        ));
        samples.push(Sample::new(
            format!("wrk -t2 -c64 {name}: p99"),
            Target::AtMost(20.0),
            p99,
            "ms",
        ));
    }
    let _ = child.kill().await;
    samples
}

fn field(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(name))
        .and_then(|v| v.trim().parse().ok())
}

/// wrk's latency: `812.00us`, `1.23ms`, `2.01s`.
fn millis(value: &str) -> f64 {
    let (number, scale) = if let Some(v) = value.strip_suffix("us") {
        (v, 0.001)
    } else if let Some(v) = value.strip_suffix("ms") {
        (v, 1.0)
    } else if let Some(v) = value.strip_suffix('s') {
        (v, 1000.0)
    } else {
        (value, 1.0)
    };
    number
        .parse::<f64>()
        .map(|n| n * scale)
        .unwrap_or(f64::INFINITY)
}
