//! The OpenAPI document: the committed copy is what the code generates,
//! every route is in it and everything in it is a route, the running
//! server and `codewhale openapi` serve that same document, and the event
//! stream is described one schema per event.
//!
//! After changing the API: `UPDATE_OPENAPI=1 cargo test -p codewhale --test
//! openapi` rewrites `openapi/codewhale-v1.json` (or `codewhale openapi -o
//! openapi/codewhale-v1.json`); review the diff like code.

use crate::common;

use axum::http::StatusCode;
use codewhale::http::openapi;
use common::{codewhale_in, Harness, TOKEN};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn committed_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../openapi/codewhale-v1.json")
}

fn document() -> Value {
    openapi::document()
}

/// Every documented operation as (METHOD, path template).
fn operations(document: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            found.push((method.to_uppercase(), path.clone()));
        }
    }
    found
}

#[test]
fn the_committed_document_is_what_the_code_generates() {
    let generated = openapi::document_json();
    let path = committed_path();
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/codewhale-v1.json differs from what this code generates.\n\
         If the API change is intended, regenerate it:\n  \
         UPDATE_OPENAPI=1 cargo test -p codewhale --test suite openapi\n\
         and commit the diff (the TypeScript SDK's types follow: \
         `npm run generate` in sdk/typescript)."
    );
}

#[test]
fn it_is_openapi_3_1_with_every_operation_identified_secured_and_answering_errors() {
    let document = document();
    assert_eq!(document["openapi"], "3.1.0");
    let schemes = document["components"]["securitySchemes"]
        .as_object()
        .unwrap();
    for scheme in [
        "bearer",
        "runtimeTokenHeader",
        "deepseekRuntimeTokenHeader",
        "runtimeTokenCookie",
        "sessionCookie",
    ] {
        assert!(schemes.contains_key(scheme), "security scheme {scheme}");
    }
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    assert_eq!(schemes["sessionCookie"]["in"], "cookie");
    assert_eq!(schemes["sessionCookie"]["name"], "codewhale_web_session");
    let mut ids = std::collections::HashSet::new();
    for (method, path) in operations(&document) {
        let operation = &document["paths"][&path][method.to_lowercase()];
        let id = operation["operationId"].as_str().unwrap();
        assert!(ids.insert(id.to_string()), "operationId {id} twice");
        let responses = operation["responses"].as_object().unwrap();
        assert!(
            responses.keys().any(|s| s.starts_with('2')),
            "{method} {path}: a success response"
        );
        for status in ["421", "500"] {
            assert!(responses.contains_key(status), "{method} {path}: {status}");
        }
        let public = ["/health", "/v1/runtime/info", "/v1/openapi.json"].contains(&path.as_str());
        assert_eq!(
            responses.contains_key("401"),
            !public,
            "{method} {path}: 401 exactly when it needs credentials"
        );
        if operation.get("requestBody").is_some() {
            for status in ["400", "413", "415"] {
                assert!(responses.contains_key(status), "{method} {path}: {status}");
            }
        }
        if path.contains('{') {
            assert!(responses.contains_key("404"), "{method} {path}: 404");
        }
        for (status, response) in responses {
            if status.starts_with('4') || status.starts_with('5') {
                let reference = response["$ref"].as_str().map(str::to_string);
                let schema = &response["content"]["application/json"]["schema"]["$ref"];
                assert!(
                    reference.is_some_and(|r| r.starts_with("#/components/responses/"))
                        || schema == "#/components/schemas/ErrorEnvelope",
                    "{method} {path} {status}: the JSON error envelope"
                );
            }
        }
    }
}

#[test]
fn the_event_stream_has_one_schema_per_event_discriminated_by_name() {
    let document = document();
    let schemas = &document["components"]["schemas"];
    // The response is read one SSE frame at a time; a frame's data is a
    // StreamEvent.
    let stream = &document["paths"]["/v1/threads/{id}/events"]["get"]["responses"]["200"]
        ["content"]["text/event-stream"]["schema"]["$ref"];
    assert_eq!(stream, "#/components/schemas/StreamFrame");
    let frame = &schemas["StreamFrame"];
    assert_eq!(
        frame["required"],
        serde_json::json!(["id", "event", "data"])
    );
    assert_eq!(
        frame["properties"]["data"]["contentSchema"]["$ref"],
        "#/components/schemas/StreamEvent"
    );
    assert_eq!(
        frame["properties"]["event"]["enum"]
            .as_array()
            .unwrap()
            .len(),
        protocol::EventName::ALL.len()
    );
    let union = &schemas["StreamEvent"];
    assert_eq!(union["discriminator"]["propertyName"], "event");
    assert_eq!(
        union["oneOf"].as_array().unwrap().len(),
        protocol::EventName::ALL.len()
    );
    for event in protocol::EventName::ALL {
        let mapped = union["discriminator"]["mapping"][event.as_str()]
            .as_str()
            .unwrap_or_else(|| panic!("{event} is in the discriminator"));
        let name = mapped.trim_start_matches("#/components/schemas/");
        let variant = &schemas[name]["allOf"][1];
        assert_eq!(
            variant["properties"]["event"]["enum"],
            serde_json::json!([event.as_str()])
        );
        let payload = variant["properties"]["payload"]["$ref"].as_str().unwrap();
        let payload = payload.trim_start_matches("#/components/schemas/");
        assert!(
            schemas[payload]["properties"].is_object() || schemas[payload]["allOf"].is_array(),
            "{event}: payload schema {payload} is in the document"
        );
    }
    let envelope = &schemas["EventEnvelope"]["properties"];
    for field in ["seq", "previous_seq", "event", "thread_id", "payload"] {
        assert!(envelope.get(field).is_some(), "envelope field {field}");
    }
}

/// The documented operations answer (not 405, not the unknown-route 404),
/// and each documented path refuses the methods it does not document.
#[tokio::test]
async fn every_documented_operation_is_routed_and_no_other_method_is() {
    let h = Harness::mobile().await;
    let document = document();
    let auth = [("authorization", &*format!("Bearer {TOKEN}"))];
    let documented = operations(&document);
    for (method, path) in &documented {
        let concrete = path
            .split('/')
            .map(|part| if part.starts_with('{') { "x" } else { part })
            .collect::<Vec<_>>()
            .join("/");
        // Read-only probes carry a real method; the others an empty JSON
        // body that the handler refuses or that names nothing.
        let reply = h
            .request(
                method,
                &concrete,
                &[auth[0], ("content-type", "application/json")],
                "{}",
            )
            .await;
        assert_ne!(
            reply.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert!(
            !reply.text().contains("no such runtime API route"),
            "{method} {path} is documented but not routed"
        );
        for other in ["GET", "POST", "PATCH", "DELETE", "PUT"] {
            if documented.iter().any(|(m, p)| m == other && p == path) {
                continue;
            }
            let reply = h.request(other, &concrete, &auth, "").await;
            assert_eq!(
                reply.status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{other} {path} is routed but not documented"
            );
        }
    }
}

/// A route added with a plain `.route("/v1/…")` would be served but not
/// documented. Every operation goes through `utoipa_axum::routes!`, which
/// documents it as it routes it; the only other registrations allowed
/// under `/v1` are the two unknown-route fallbacks, and every registration
/// anywhere names its path literally (so this scan sees it). Leptos pages
/// (`app/`) may not claim `/v1` either.
#[test]
fn no_v1_route_is_registered_outside_the_document() {
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    sources(&root.join("../app/src"), &mut files);
    let call =
        regex::Regex::new(r"\.(route|route_service|nest|nest_service)\(\s*([^,)]*)").unwrap();
    let page = regex::Regex::new(r#"path!\(\s*"/?v1["/]"#).unwrap();
    let fallbacks = [r#""/v1""#, r#""/v1/{*rest}""#];
    let mut escaped = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let at = file.display();
        for found in call.captures_iter(&text) {
            let (method, path) = (&found[1], found[2].trim());
            if path.is_empty() || !path.starts_with('"') {
                escaped.push(format!(
                    "{at}: .{method}({path}…) does not name its path literally"
                ));
            } else if path.starts_with("\"/v1") && !(method == "route" && fallbacks.contains(&path))
            {
                escaped.push(format!(
                    "{at}: .{method}({path}) under /v1 without #[utoipa::path]"
                ));
            }
        }
        if page.is_match(&text) {
            escaped.push(format!("{at}: a page claims a /v1 path"));
        }
    }
    assert!(
        escaped.is_empty(),
        "routes outside the document: {escaped:#?}"
    );
}

#[tokio::test]
async fn the_server_serves_the_document_publicly_and_refuses_a_foreign_host() {
    let h = Harness::new().await;
    let reply = h.get("/v1/openapi.json").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json")
    );
    assert_eq!(reply.json(), document());
    let foreign = h
        .request(
            "GET",
            "/v1/openapi.json",
            &[("host", "attacker.example")],
            "",
        )
        .await;
    assert_eq!(foreign.status, StatusCode::MISDIRECTED_REQUEST);
}

#[test]
fn codewhale_openapi_prints_and_writes_the_same_document() {
    let home = tempfile::tempdir().unwrap();
    let printed = codewhale_in(home.path()).arg("openapi").output().unwrap();
    assert!(printed.status.success());
    assert_eq!(
        String::from_utf8(printed.stdout).unwrap(),
        openapi::document_json()
    );
    let file = home.path().join("doc.json");
    let written = codewhale_in(home.path())
        .args(["openapi", "--output"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(written.status.success());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        openapi::document_json()
    );
    let refused = codewhale_in(home.path())
        .args(["openapi", "-o", "/nonexistent-dir/doc.json"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("cannot write"));
}

#[test]
fn the_printed_document_holds_every_field_of_the_generated_one() {
    let printed: Value = serde_json::from_str(openapi::document_json()).unwrap();
    assert_eq!(printed, document());
    assert!(openapi::document_json().starts_with("{\n  \"openapi\": \"3.1.0\""));
}
