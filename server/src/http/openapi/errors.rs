//! The error statuses every route shares, added to each operation by what
//! it takes (credentials, parameters, a body), all with the JSON error
//! envelope. Statuses particular to one route (404, 409…) are in its
//! `#[utoipa::path]` attribute, and kept.

use serde_json::{json, Map, Value};

/// `(status, component name, description)`.
const SHARED: [(&str, &str, &str); 9] = [
    ("400", "BadRequest", "The request does not match this document: invalid JSON, an unknown field, a wrong type, or a value outside its pattern, range or enum"),
    ("401", "Unauthorized", "No credentials, or not valid ones (`WWW-Authenticate: Bearer realm=\"codewhale\"`)"),
    ("403", "Forbidden", "A cookie-authenticated request without this server's `Origin`, or a caller this route refuses"),
    ("404", "NotFound", "No such resource"),
    ("413", "PayloadTooLarge", "The body is larger than 16 MiB"),
    ("415", "UnsupportedMediaType", "The body is not `application/json`"),
    ("421", "MisdirectedRequest", "The `Host` names neither this server's address nor an allowed host"),
    ("500", "InternalError", "The server failed; the message says nothing more"),
    ("503", "ServiceUnavailable", "A paired device's session could not be read; try again"),
];

pub fn add_shared_responses(document: &mut Value) {
    let mut responses = Map::new();
    for (_, name, description) in SHARED {
        responses.insert(
            name.to_string(),
            json!({
                "description": description,
                "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/ErrorEnvelope" }
                } }
            }),
        );
    }
    document["components"]["responses"] = Value::Object(responses);
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for operation in item.values_mut() {
            add_to_operation(operation);
        }
    }
}

fn add_to_operation(operation: &mut Value) {
    let public = operation["security"].as_array().is_some_and(|schemes| {
        schemes
            .iter()
            .all(|s| s.as_object().is_some_and(Map::is_empty))
    });
    let parameters = operation["parameters"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let in_path = parameters.iter().any(|p| p["in"] == "path");
    let body = operation.get("requestBody").is_some();
    let applies = |status: &str| match status {
        "400" => body || !parameters.is_empty(),
        "401" | "403" | "503" => !public,
        "404" => in_path,
        "413" | "415" => body,
        _ => true,
    };
    let Some(responses) = operation["responses"].as_object_mut() else {
        return;
    };
    for (status, name, _) in SHARED {
        if applies(status) && !responses.contains_key(status) {
            responses.insert(
                status.to_string(),
                json!({ "$ref": format!("#/components/responses/{name}") }),
            );
        }
    }
}
