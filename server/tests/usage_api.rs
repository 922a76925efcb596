//! `GET /v1/usage` against hand-computed expectations.

mod common;

use common::agent::{setup_with, Setup};
use mock_provider::Reply;
use serde_json::{json, Value};

async fn run_turn(s: &Setup, thread: &str) {
    s.mock.push(Reply::text(&["ok"])); // usage: 100 in (40 cached), 20 out
    let url = format!("{}/v1/threads/{thread}/events", s.base);
    let detail: Value = s
        .client
        .get(format!("{}/v1/threads/{thread}", s.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut reader = common::EventReader::open(
        &s.client,
        &format!("{url}?since_seq={}", detail["latest_seq"]),
        &[],
    )
    .await;
    let reply = s
        .client
        .post(format!("{}/v1/threads/{thread}/turns", s.base))
        .json(&json!({"prompt": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 201);
    while reader.next().await.1 != "turn.completed" {}
}

#[tokio::test]
async fn usage_groups_tokens_and_cost() {
    let s = setup_with(json!({"model": "deepseek-chat"})).await;
    let other: Value = s
        .client
        .post(format!("{}/v1/threads", s.base))
        .json(&json!({"model": "mystery-model"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let other = other["id"].as_str().unwrap().to_string();
    run_turn(&s, &s.thread).await;
    run_turn(&s, &s.thread).await;
    run_turn(&s, &other).await;

    let get = |query: &str| {
        let url = format!("{}/v1/usage{query}", s.base);
        let client = s.client.clone();
        async move { client.get(url).send().await.unwrap() }
    };
    let by_model: Value = get("?group_by=model").await.json().await.unwrap();
    // deepseek-chat: per turn (60 × 0.27 + 40 × 0.07 + 20 × 1.10) / 1e6 = 41e-6 USD
    let per_turn = (60.0 * 0.27 + 40.0 * 0.07 + 20.0 * 1.10) / 1e6;
    assert_eq!(by_model["group_by"], "model");
    assert_eq!(by_model["totals"]["turns"], 3);
    assert_eq!(by_model["totals"]["input_tokens"], 300);
    assert_eq!(by_model["totals"]["cached_tokens"], 120);
    let buckets = by_model["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 2);
    assert_eq!(buckets[0]["key"], "deepseek-chat", "ascending keys");
    assert_eq!(buckets[0]["turns"], 2);
    assert_eq!(buckets[0]["output_tokens"], 40);
    assert!((buckets[0]["cost_usd"].as_f64().unwrap() - 2.0 * per_turn).abs() < 1e-12);
    assert_eq!(buckets[1]["key"], "mystery-model");
    assert_eq!(
        buckets[1]["cost_usd"], 0.0,
        "unpriced models add tokens, not cost"
    );
    assert!((by_model["totals"]["cost_usd"].as_f64().unwrap() - 2.0 * per_turn).abs() < 1e-12);

    let by_day: Value = get("").await.json().await.unwrap();
    assert_eq!(by_day["group_by"], "day");
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(by_day["buckets"][0]["key"], today);
    assert_eq!(
        by_thread_count(get("?group_by=thread").await.json().await.unwrap()),
        2
    );
    let by_provider: Value = get("?group_by=provider").await.json().await.unwrap();
    assert_eq!(by_provider["buckets"][0]["key"], "mock");

    let future: Value = get("?since=2999-01-01T00:00:00Z")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(future["buckets"], json!([]));
    assert_eq!(future["totals"]["turns"], 0);
    let until_past: Value = get("?until=2000-01-01T00:00:00%2B02:00")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(until_past["buckets"], json!([]));
    for bad in [
        "?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z",
        "?group_by=week",
        "?since=yesterday",
        "?extra=1",
    ] {
        assert_eq!(get(bad).await.status(), 400, "{bad}");
    }
}

fn by_thread_count(report: Value) -> usize {
    report["buckets"].as_array().unwrap().len()
}
