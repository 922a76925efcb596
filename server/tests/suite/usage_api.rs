//! `GET /v1/usage` against hand-computed expectations.

use crate::common;

use common::agent::{setup_with, Setup};
use mock_provider::Reply;
use protocol::UsageReport;
use serde_json::json;

async fn run_turn(s: &Setup, thread: &str) {
    s.mock.push(Reply::text(&["ok"])); // usage: 100 in (40 cached), 20 out
    s.api.run_turn(thread, json!({"prompt": "hi"})).await;
}

#[tokio::test]
async fn usage_groups_tokens_and_cost() {
    let s = setup_with(json!({"model": "deepseek-chat"})).await;
    let other = s
        .api
        .create_thread(json!({"model": "mystery-model"}))
        .await
        .id;
    run_turn(&s, &s.thread).await;
    run_turn(&s, &s.thread).await;
    run_turn(&s, &other).await;

    let api = &s.api;
    let by_model = api.usage("?group_by=model").await;
    // deepseek-chat: per turn (60 × 0.27 + 40 × 0.07 + 20 × 1.10) / 1e6 = 41e-6 USD
    let per_turn = (60.0 * 0.27 + 40.0 * 0.07 + 20.0 * 1.10) / 1e6;
    assert_eq!(by_model.group_by, "model");
    assert_eq!(by_model.totals.turns, 3);
    assert_eq!(by_model.totals.input_tokens, 300);
    assert_eq!(by_model.totals.cached_tokens, 120);
    let buckets = &by_model.buckets;
    assert_eq!(buckets.len(), 2);
    assert_eq!(buckets[0].key, "deepseek-chat", "ascending keys");
    assert_eq!(buckets[0].totals.turns, 2);
    assert_eq!(buckets[0].totals.output_tokens, 40);
    assert!((buckets[0].totals.cost_usd - 2.0 * per_turn).abs() < 1e-12);
    assert_eq!(buckets[1].key, "mystery-model");
    assert_eq!(
        buckets[1].totals.cost_usd, 0.0,
        "unpriced models add tokens, not cost"
    );
    assert!((by_model.totals.cost_usd - 2.0 * per_turn).abs() < 1e-12);

    let by_day = api.usage("").await;
    assert_eq!(by_day.group_by, "day");
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(by_day.buckets[0].key, today);
    assert_eq!(by_thread_count(api.usage("?group_by=thread").await), 2);
    let by_provider = api.usage("?group_by=provider").await;
    assert_eq!(by_provider.buckets[0].key, "mock");

    let future = api.usage("?since=2999-01-01T00:00:00Z").await;
    assert_eq!(future.buckets, vec![]);
    assert_eq!(future.totals.turns, 0);
    let until_past = api.usage("?until=2000-01-01T00:00:00%2B02:00").await;
    assert_eq!(until_past.buckets, vec![]);
    // A range that ends before it starts holds nothing (each bound is valid).
    let backwards = api
        .usage("?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z")
        .await;
    assert_eq!(backwards.buckets, vec![]);
    assert_eq!(backwards.totals.turns, 0);
    for bad in ["?group_by=week", "?since=yesterday", "?extra=1"] {
        assert_eq!(api.try_usage(bad).await.status, 400, "{bad}");
    }
}

fn by_thread_count(report: UsageReport) -> usize {
    report.buckets.len()
}
