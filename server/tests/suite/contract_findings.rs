//! What the contract test (`scripts/test-contract`: schemathesis over
//! `openapi/codewhale-v1.json` against the real binary) found, one test
//! per finding, so that each stays fixed without running schemathesis.
//! The rule they share: a request the document admits is never a 400, one
//! it refuses never succeeds, and what no schema can say is a 404 or 409.
//! Answers that do not fit a pending question (409, not 400) are pinned in
//! `agent_client_calls.rs`, which has a model that asks.

use crate::common;

use common::Harness;
use reqwest::Method;
use serde_json::{json, Value};

/// `[null, null]` was a valid `CreatePairing` (serde reads a struct from an
/// array too); the document admits only objects.
#[tokio::test]
async fn a_json_body_is_an_object() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    for (path, body) in [
        ("/v1/devices/pairings", json!([null, null])),
        ("/v1/threads", json!([])),
        ("/v1/threads", json!("{}")),
    ] {
        let reply = api.post(path, &body).await;
        assert_eq!(reply.error().0, 400, "{path} {body}");
    }
    let reply = api
        .post_bytes("/v1/threads", Some("application/json"), " \n{}")
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
}

/// The document says the compaction body may be `null`; it was a 400.
#[tokio::test]
async fn a_compaction_takes_no_body_null_or_an_object() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    let thread = api.create_thread(json!({})).await;
    // Without a provider every compaction is refused as a conflict (409):
    // what matters is that the body itself was accepted.
    for body in [None, Some(Value::Null), Some(json!({"reason": "tidy"}))] {
        let reply = api.try_compact(&thread.id, body.clone()).await;
        assert_eq!(reply.error().0, 409, "{body:?}: {}", reply.text());
    }
    for body in [json!([null]), json!(3), json!({"why": "x"})] {
        let reply = api.try_compact(&thread.id, Some(body.clone())).await;
        assert_eq!(reply.error().0, 400, "{body}");
    }
}

/// A workspace that is not a directory here, and a provider that is not
/// configured, were 400s for requests the document admits: they are
/// conflicts with this machine's state (409).
#[tokio::test]
async fn a_missing_workspace_or_provider_is_a_conflict() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    let file = h.home.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    for workspace in ["/no/such/dir".to_string(), file.display().to_string()] {
        let reply = api
            .try_create_thread(json!({ "workspace": workspace }))
            .await;
        assert_eq!(reply.error().0, 409, "{workspace}: {}", reply.text());
    }
    let thread = api.create_thread(json!({})).await;
    let reply = api
        .try_patch_thread(&thread.id, json!({"workspace": "/no/such/dir"}))
        .await;
    assert_eq!(reply.error().0, 409);
    // The harness runs without a model provider.
    let reply = api
        .try_start_turn(&thread.id, json!({"prompt": "hello"}))
        .await;
    let (status, message) = reply.error();
    assert_eq!(status, 409, "{message}");
    assert!(
        message.contains("no model provider is configured"),
        "{message}"
    );
}

/// Tool names that clash (with a built-in tool, or with each other) were
/// 400s for bodies the document admits; malformed names stay 400s, and
/// the limits are the document's.
#[tokio::test]
async fn clashing_dynamic_tool_names_are_conflicts() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    let tools = |tools: Value| json!({ "dynamic_tools": tools });
    let cases = [
        (json!([{"name": "exec_shell"}]), 409),
        (json!([{"name": "x"}, {"name": "x"}]), 409),
        (json!([{"namespace": "ide", "name": "exec_shell"}]), 201),
        (json!([{"name": "bad name"}]), 400),
        (json!([{"name": "x".repeat(64)}]), 201),
        (json!([{"name": "x".repeat(65)}]), 400),
        (
            json!([{"namespace": "n".repeat(20), "name": "x".repeat(42)}]),
            201,
        ),
        (json!([{"namespace": "n".repeat(21), "name": "x"}]), 400),
        (json!([{"namespace": "n", "name": "x".repeat(43)}]), 400),
        (
            json!([{"name": "x", "input_schema": {"type": "string"}}]),
            400,
        ),
    ];
    for (list, status) in cases {
        let reply = api.try_create_thread(tools(list.clone())).await;
        assert_eq!(reply.status.as_u16(), status, "{list}: {}", reply.text());
    }
}

/// A range whose `since` is after its `until` was a 400 although both
/// bounds are valid date-times: it holds no turns.
#[tokio::test]
async fn a_usage_range_that_ends_before_it_starts_is_empty() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    let report = api
        .usage("?since=2030-01-01T00:00:00Z&until=2020-01-01T00:00:00Z")
        .await;
    assert!(report.buckets.is_empty());
    assert_eq!(report.totals.turns, 0);
}

/// `ttl_seconds: 300.0` is an integer to JSON Schema but was refused.
#[tokio::test]
async fn a_pairing_ttl_is_a_whole_number_in_range() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    for (ttl, status) in [
        (json!(300.0), 201),
        (json!(3600), 201),
        (json!(300.5), 400),
        (json!(0), 400),
        (json!(3601), 400),
    ] {
        let reply = api
            .post("/v1/devices/pairings", json!({ "ttl_seconds": ttl }))
            .await;
        assert_eq!(reply.status.as_u16(), status, "{ttl}: {}", reply.text());
    }
}

/// A malformed `Last-Event-ID` was ignored when `since_seq` was given; the
/// document refuses it whatever else the request says.
#[tokio::test]
async fn a_malformed_last_event_id_is_refused_even_beside_since_seq() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    let thread = api.create_thread(json!({})).await;
    let url = api.url(&format!("/v1/threads/{}/events?since_seq=0", thread.id));
    for bad in ["W2D", "+5", "-1", "1234567890123456789"] {
        let reply = api
            .send(api.http().get(&url).header("last-event-id", bad))
            .await;
        assert_eq!(reply.error().0, 400, "{bad}");
    }
    let response = api
        .http()
        .get(&url)
        .header("last-event-id", "5")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

/// Names and titles are limited as sent (the document's `maxLength`
/// counts what is sent), and a device name's characters are checked
/// before trimming.
#[tokio::test]
async fn names_and_titles_are_counted_as_sent() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    let padded = format!(" {} ", "t".repeat(159));
    let reply = api.try_create_thread(json!({ "title": padded })).await;
    assert_eq!(reply.error().0, 400);
    let reply = api
        .try_create_thread(json!({ "title": "t".repeat(160) }))
        .await;
    assert_eq!(reply.status, 201);
    for (label, status) in [
        (" phone ".to_string(), 201),
        ("x".repeat(80), 201),
        (format!(" {} ", "x".repeat(79)), 400),
        ("phone\u{85}".to_string(), 400),
        ("   ".to_string(), 400),
    ] {
        let reply = api
            .post("/v1/devices/pairings", json!({ "label": label }))
            .await;
        assert_eq!(reply.status.as_u16(), status, "{label:?}: {}", reply.text());
    }
}

/// The document named 404 for a server without `--mobile`; the server
/// answers 409 (as `mobile_pairing` pins).
#[tokio::test]
async fn pairing_on_a_server_without_phones_is_the_documented_409() {
    let responses =
        &codewhale::http::openapi::document()["paths"]["/v1/devices/pairings"]["post"]["responses"];
    assert!(responses.get("409").is_some());
    let h = Harness::new().await;
    let api = h.api().await;
    let reply = api
        .request(Method::POST, "/v1/devices/pairings", Some(&json!({})))
        .await;
    assert_eq!(reply.error().0, 409);
}
