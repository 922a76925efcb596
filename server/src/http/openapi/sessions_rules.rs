//! The OpenAPI rules of `/v1/sessions` (see `rules.rs`): the id format and
//! the listing's bounds (`runtime/sessions/`).

use super::rules::{merge, schema_of};
use crate::runtime::sessions::{files::ID_PATTERN, MAX_LIMIT};
use serde_json::{json, Value};

pub fn add(document: &mut Value) {
    let id = json!({ "pattern": ID_PATTERN });
    for (path, method) in [
        ("/v1/sessions/{id}", "get"),
        ("/v1/sessions/{id}", "delete"),
        ("/v1/sessions/{id}/resume-thread", "post"),
    ] {
        if let Some(schema) = schema_of(document, path, method, "id") {
            merge(schema, &id);
        }
    }
    if let Some(schema) = schema_of(document, "/v1/sessions", "get", "limit") {
        merge(schema, &json!({ "minimum": 1, "maximum": MAX_LIMIT }));
    }
}
