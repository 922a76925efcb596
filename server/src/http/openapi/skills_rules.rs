//! The OpenAPI rules of `/v1/skills` (see `rules.rs`): the name format and
//! the description's bounds (`runtime/skills/manifest.rs`), an absolute
//! import path, and a workspace only for a workspace skill.

use super::rules::{merge, not_blank, schema_of};
use crate::runtime::skills::manifest::{MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, NAME_PATTERN};
use serde_json::{json, Value};

pub fn add(document: &mut Value) {
    let name = json!({ "pattern": NAME_PATTERN, "maxLength": MAX_NAME_CHARS });
    if let Some(schema) = schema_of(document, "/v1/skills/{name}", "patch", "name") {
        merge(schema, &name);
    }
    let schemas = &mut document["components"]["schemas"];
    merge(&mut schemas["CreateSkill"]["properties"]["name"], &name);
    merge(
        &mut schemas["CreateSkill"]["properties"]["description"],
        &json!({ "pattern": not_blank(), "maxLength": MAX_DESCRIPTION_CHARS }),
    );
    schemas["ImportSkill"]["properties"]["path"]["pattern"] = json!("^/");
    // A workspace names where a workspace skill goes; with a global one it
    // is refused (`Runtime::install`).
    let workspace_only_for_workspace = json!({
        "if": { "required": ["source"], "properties": { "source": { "const": "workspace" } } },
        "else": { "properties": { "workspace": { "type": "null" } } }
    });
    for body in ["CreateSkill", "ImportSkill"] {
        merge(&mut schemas[body], &workspace_only_for_workspace);
    }
}
