//! The OpenAPI rules of `/v1/apps/mcp` (see `rules.rs`), from the
//! constants `runtime/mcp/config.rs` checks with: the server name, variable
//! and header names, header values, the timeouts' bounds, and a new server
//! reached by exactly one of `command` and `url`.

use super::rules::{merge, not_blank, schema_of};
use crate::runtime::mcp::config::{
    ENV_NAME_PATTERN, HEADER_NAME_PATTERN, HEADER_VALUE_PATTERN, MAX_NAME_CHARS,
    MAX_STARTUP_TIMEOUT, MAX_TOOL_TIMEOUT, NAME_PATTERN,
};
use serde_json::{json, Value};

pub fn add(document: &mut Value) {
    let name = json!({ "pattern": NAME_PATTERN, "maxLength": MAX_NAME_CHARS });
    for (path, methods) in [
        (
            "/v1/apps/mcp/servers/{name}",
            &["get", "patch", "delete"][..],
        ),
        ("/v1/apps/mcp/servers/{name}/reload", &["post"][..]),
    ] {
        for method in methods {
            if let Some(schema) = schema_of(document, path, method, "name") {
                merge(schema, &name);
            }
        }
    }
    if let Some(schema) = schema_of(document, "/v1/apps/mcp/tools", "get", "server") {
        merge(schema, &name);
    }
    let schemas = &mut document["components"]["schemas"];
    merge(&mut schemas["CreateMcpServer"]["properties"]["name"], &name);
    for body in ["CreateMcpServer", "PatchMcpServer"] {
        let properties = &mut schemas[body]["properties"];
        merge(
            &mut properties["env"],
            &json!({ "propertyNames": { "pattern": ENV_NAME_PATTERN } }),
        );
        merge(
            &mut properties["headers"],
            &json!({
                "propertyNames": { "pattern": HEADER_NAME_PATTERN },
                "additionalProperties": { "type": "string", "pattern": HEADER_VALUE_PATTERN },
            }),
        );
        merge(
            &mut properties["startup_timeout_seconds"],
            &json!({ "minimum": 1, "maximum": MAX_STARTUP_TIMEOUT }),
        );
        merge(
            &mut properties["tool_timeout_seconds"],
            &json!({ "minimum": 1, "maximum": MAX_TOOL_TIMEOUT }),
        );
        merge(
            &mut properties["command"],
            &json!({ "pattern": not_blank() }),
        );
        merge(&mut properties["url"], &json!({ "pattern": "^https?://" }));
    }
    // A stdio server (`command`) or an HTTP one (`url`): one of the two.
    merge(
        &mut schemas["CreateMcpServer"],
        &json!({ "oneOf": [
            { "required": ["command"], "properties": {
                "command": { "type": "string" }, "url": { "type": "null" } } },
            { "required": ["url"], "properties": {
                "url": { "type": "string" }, "command": { "type": "null" } } },
        ] }),
    );
}
