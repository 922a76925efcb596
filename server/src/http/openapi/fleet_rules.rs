//! The OpenAPI rules of `/v1/fleet` and `/v1/agent-runs` (see `rules.rs`):
//! what the runtime checks that a schema can state.

use super::rules::{merge, not_blank, schema_of};
use crate::runtime::{fleet::MAX_LIST, ids};
use serde_json::{json, Value};

pub fn add(document: &mut Value) {
    if let Some(schema) = schema_of(document, "/v1/fleet/runs", "get", "limit") {
        merge(schema, &json!({ "minimum": 1, "maximum": MAX_LIST }));
    }
    let worker = &mut document["components"]["schemas"]["FleetWorkerSpec"]["properties"];
    for field in ["prompt", "model", "model_provider"] {
        worker[field]["pattern"] = json!(not_blank());
    }
    agent_runs(document);
}

fn agent_runs(document: &mut Value) {
    let list = "/v1/agent-runs";
    if let Some(schema) = schema_of(document, list, "get", "limit") {
        merge(
            schema,
            &json!({ "minimum": 1, "maximum": crate::runtime::agent_runs::MAX_LIST }),
        );
    }
    if let Some(schema) = schema_of(document, list, "get", "parent_thread_id") {
        merge(schema, &json!({ "pattern": ids::pattern(ids::THREAD) }));
    }
    // A run's id or its child thread's. As with the fleet's ids, one of
    // another shape is answered 404 (the contract's stateful phase feeds
    // this parameter other resources' `run_id`s, which it counts valid).
    let hex = ids::pattern("").trim_start_matches('^').to_string();
    let run = crate::runtime::agent_runs::RUN;
    let pattern = json!({ "pattern": format!("^({run}|{}){hex}", ids::THREAD) });
    for (path, method) in [
        ("/v1/agent-runs/{run_id}", "get"),
        ("/v1/agent-runs/{run_id}/cleanup", "post"),
    ] {
        if let Some(schema) = schema_of(document, path, method, "run_id") {
            merge(schema, &pattern);
        }
    }
}
