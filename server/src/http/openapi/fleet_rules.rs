//! The OpenAPI rules of `/v1/fleet` (see `rules.rs`): what the runtime
//! checks that a schema can state.

use super::rules::{merge, not_blank, schema_of};
use crate::runtime::fleet::MAX_LIST;
use serde_json::{json, Value};

pub fn add(document: &mut Value) {
    if let Some(schema) = schema_of(document, "/v1/fleet/runs", "get", "limit") {
        merge(schema, &json!({ "minimum": 1, "maximum": MAX_LIST }));
    }
    let worker = &mut document["components"]["schemas"]["FleetWorkerSpec"]["properties"];
    for field in ["prompt", "model", "model_provider"] {
        worker[field]["pattern"] = json!(not_blank());
    }
}
