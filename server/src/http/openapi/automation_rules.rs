//! The OpenAPI rules of `/v1/automations` (see `rules.rs`): what the
//! runtime checks that a schema can state. A cron expression or time zone
//! it cannot read is a 409, since no schema states cron's grammar.

use super::rules::not_blank;
use crate::runtime::automations::{
    schedule::{MAX_INTERVAL_SECS, MIN_INTERVAL_SECS},
    MAX_NAME_CHARS, MAX_RUNS,
};
use serde_json::{json, Value};

pub fn add(document: &mut Value) {
    let interval = json!({ "minimum": MIN_INTERVAL_SECS, "maximum": MAX_INTERVAL_SECS });
    if let Some(schema) =
        super::rules::schema_of(document, "/v1/automations/{id}/runs", "get", "limit")
    {
        super::rules::merge(schema, &json!({ "minimum": 1, "maximum": MAX_RUNS }));
    }
    if let Some(schema) = super::rules::schema_of(
        document,
        "/v1/automations/preview",
        "get",
        "interval_seconds",
    ) {
        super::rules::merge(schema, &interval);
    }
    let schemas = &mut document["components"]["schemas"];
    for name in ["CreateAutomation", "PatchAutomation"] {
        let properties = &mut schemas[name]["properties"];
        properties["name"]["pattern"] = json!(not_blank());
        properties["name"]["maxLength"] = json!(MAX_NAME_CHARS);
        properties["prompt"]["pattern"] = json!(not_blank());
        for field in ["model", "model_provider"] {
            properties[field]["pattern"] = json!(not_blank());
        }
        super::rules::merge(&mut properties["interval_seconds"], &interval);
    }
    // Exactly one of a cron schedule and an interval.
    let given = |field: &str| json!({ "required": [field], "properties": { field: { "not": { "type": "null" } } } });
    let absent = |field: &str| json!({ "properties": { field: { "type": "null" } } });
    schemas["CreateAutomation"]["oneOf"] = json!([
        { "allOf": [given("schedule"), absent("interval_seconds")] },
        { "allOf": [given("interval_seconds"), absent("schedule")] },
    ]);
    // A patch changes something (`model`, `model_provider` and `mode` may
    // be null: that clears them), and never names both kinds of schedule.
    let fields: Vec<String> = schemas["PatchAutomation"]["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    schemas["PatchAutomation"]["anyOf"] = fields
        .iter()
        .map(|f| match f.as_str() {
            "model" | "model_provider" | "mode" => json!({ "required": [f] }),
            _ => given(f),
        })
        .collect();
    schemas["PatchAutomation"]["not"] =
        json!({ "allOf": [given("schedule"), given("interval_seconds")] });
}
