//! What the HTTP edge refuses before any handler runs: foreign `Host`
//! names (DNS rebinding), cross-site requests to a server that asks for no
//! token or that a runtime-token cookie authenticates, and server-function
//! bodies over the limit; and what failed server functions answer.

use crate::common;

use axum::{
    body::Body,
    http::{header, StatusCode},
};
use common::{post, Harness, FORM, TOKEN};

const BEARER: &str = "Bearer cwrt_test_token_0123456789abcdef";

async fn thread_count(h: &Harness) -> usize {
    let auth = [("authorization", BEARER)];
    let reply = h.request("GET", "/v1/threads", &auth, "").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    reply.json().as_array().unwrap().len()
}

#[tokio::test]
async fn a_foreign_host_is_refused_before_auth_on_every_surface() {
    for h in [Harness::new().await, Harness::no_auth().await] {
        for (method, path) in [
            ("GET", "/health"),
            ("GET", "/v1/runtime/info"),
            ("GET", "/v1/threads"),
            ("POST", "/v1/threads"),
            ("GET", "/v1/openapi.json"),
            ("GET", "/v1/workspace/browse?workspace=/&path=etc"),
            ("GET", "/v1/threads/thr_0/workspace/diff"),
            ("GET", "/"),
            ("GET", "/pkg/codewhale.js"),
            ("POST", "/api/ping"),
            ("OPTIONS", "/v1/threads"),
        ] {
            for host in [
                "attacker.example",
                "attacker.example:7878",
                "127.0.0.1.nip.io:7878",
            ] {
                let headers = [
                    ("host", host),
                    ("authorization", BEARER),
                    ("origin", "http://attacker.example:7878"),
                    ("access-control-request-method", "POST"),
                ];
                let reply = h.request(method, path, &headers, "{}").await;
                assert_eq!(
                    reply.status,
                    StatusCode::MISDIRECTED_REQUEST,
                    "{method} {path} Host {host}"
                );
                assert_eq!(reply.json()["error"]["status"], 421);
                assert!(reply.header("access-control-allow-origin").is_none());
                // Refusals carry the security headers too (`http/guard.rs`).
                assert_eq!(
                    reply.header("x-content-type-options").as_deref(),
                    Some("nosniff"),
                    "{method} {path} Host {host}"
                );
                assert!(reply
                    .header("content-security-policy")
                    .is_some_and(|csp| csp.contains("default-src 'none'")));
            }
        }
    }
}

#[tokio::test]
async fn loopback_hosts_are_answered_and_bad_host_values_are_400() {
    let h = Harness::no_auth().await;
    for host in [
        "127.0.0.1:7878",
        "localhost:7878",
        "[::1]:7878",
        "localhost",
    ] {
        let reply = h.request("GET", "/health", &[("host", host)], "").await;
        assert_eq!(reply.status, StatusCode::OK, "{host}");
    }
    for host in ["user@localhost", "local host", "[::1"] {
        let reply = h.request("GET", "/health", &[("host", host)], "").await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{host}");
        assert_eq!(reply.json()["error"]["status"], 400);
    }
}

/// Through a real socket, as a rebinding page's requests arrive.
#[tokio::test]
async fn a_rebinding_page_cannot_reach_a_real_server() {
    let h = Harness::no_auth().await;
    let base = h.serve().await;
    let client = common::api_client();
    let foreign = client
        .post(format!("{base}/v1/threads"))
        .header("host", "rebind.attacker.example")
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 421);
    let own = client.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(own.status(), 200);
    assert_eq!(thread_count(&h).await, 0);
}

#[tokio::test]
async fn no_auth_mode_refuses_cross_site_changes() {
    let h = Harness::no_auth().await;
    let host = ("host", "127.0.0.1:7878");
    let json = ("content-type", "application/json");
    let refused: [&[(&str, &str)]; 7] = [
        &[host, json, ("origin", "http://evil.example")],
        // Built-in development origins are whatever runs on that port.
        &[host, json, ("origin", "http://localhost:3000")],
        &[host, json, ("origin", "tauri://localhost")],
        &[host, json, ("origin", "null")],
        &[host, json, ("origin", "http://localhost:7879")],
        &[host, json, ("sec-fetch-site", "cross-site")],
        &[host, json, ("sec-fetch-site", "same-site")],
    ];
    for headers in refused {
        let reply = h.request("POST", "/v1/threads", headers, "{}").await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{headers:?}");
        assert_eq!(reply.json()["error"]["status"], 403);
    }
    // A form post needs no preflight: the classic cross-site attack on a
    // server function.
    let form = [
        FORM,
        host,
        ("origin", "http://evil.example"),
        ("sec-fetch-site", "cross-site"),
    ];
    let reply = h
        .request("POST", "/api/create_thread", &form, "request[title]=pwned")
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    // Reading with a foreign Origin is refused too.
    let read = [host, ("origin", "http://evil.example")];
    let reply = h.request("GET", "/v1/threads", &read, "").await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(thread_count(&h).await, 0);

    let allowed: [&[(&str, &str)]; 4] = [
        // curl and SDKs: no browser headers at all.
        &[host, json],
        &[host, json, ("origin", "http://127.0.0.1:7878")],
        &[host, json, ("sec-fetch-site", "same-origin")],
        // A CORS origin the user configured is cross-site by design.
        &[
            host,
            json,
            ("origin", common::CONFIGURED_ORIGIN),
            ("sec-fetch-site", "same-site"),
        ],
    ];
    for headers in allowed {
        let reply = h.request("POST", "/v1/threads", headers, "{}").await;
        assert_eq!(reply.status, StatusCode::CREATED, "{headers:?}");
    }
    assert_eq!(thread_count(&h).await, 4);
}

#[tokio::test]
async fn the_runtime_token_cookie_only_works_from_the_servers_own_origin() {
    let h = Harness::app_server().await;
    let cookie = format!("codewhale_runtime_token={TOKEN}");
    let host = ("host", "127.0.0.1:7878");
    let json = ("content-type", "application/json");
    for headers in [
        vec![
            host,
            json,
            ("cookie", &cookie),
            ("origin", "http://evil.example"),
        ],
        vec![
            host,
            json,
            ("cookie", &cookie),
            ("sec-fetch-site", "cross-site"),
        ],
        vec![host, json, ("cookie", &cookie)],
        // A CORS-listed origin cannot ride on the cookie.
        vec![
            host,
            json,
            ("cookie", &cookie),
            ("origin", "http://localhost:3000"),
        ],
    ] {
        let reply = h.request("POST", "/v1/threads", &headers, "{}").await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{headers:?}");
    }
    assert_eq!(thread_count(&h).await, 0);
    let own = [
        host,
        json,
        ("cookie", &cookie),
        ("origin", "http://127.0.0.1:7878"),
        ("sec-fetch-site", "same-origin"),
    ];
    let reply = h.request("POST", "/v1/threads", &own, "{}").await;
    assert_eq!(reply.status, StatusCode::CREATED);
}

/// The workspace views read the user's files: without credentials, or
/// from another site's page riding on the cookie, they answer nothing.
#[tokio::test]
async fn the_workspace_views_need_credentials_and_the_servers_own_origin() {
    let h = Harness::app_server().await;
    let cwd = std::env::current_dir().unwrap().display().to_string();
    let cookie = format!("codewhale_runtime_token={TOKEN}");
    let host = ("host", "127.0.0.1:7878");
    for path in [
        format!("/v1/workspace/file?workspace={cwd}&path=Cargo.toml"),
        format!("/v1/workspace/browse?workspace={cwd}"),
        "/v1/workspace/status".to_string(),
        "/v1/threads/thr_0/workspace/browse".to_string(),
        "/v1/threads/thr_0/workspace/file?path=a".to_string(),
        "/v1/threads/thr_0/workspace/diff".to_string(),
    ] {
        let reply = h.request("GET", &path, &[host], "").await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{path}");
        let cross_site = [host, ("cookie", &cookie), ("origin", "http://evil.example")];
        let reply = h.request("GET", &path, &cross_site, "").await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{path}");
        assert!(!reply.text().contains("[package]"), "{path}");
    }
    let reply = h
        .request(
            "GET",
            &format!("/v1/workspace/file?workspace={cwd}&path=Cargo.toml"),
            &[host, ("authorization", BEARER)],
            "",
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
}

#[tokio::test]
async fn server_function_bodies_over_the_limit_are_413() {
    let h = Harness::app_server().await;
    let big = "a".repeat(codewhale::http::router::MAX_BODY_BYTES + 1);
    let auth = [FORM, ("authorization", BEARER)];
    let reply = h
        .request("POST", "/api/create_thread", &auth, big.clone())
        .await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.json()["error"]["status"], 413);
    // Chunked: no Content-Length to refuse early; the read stops at the limit.
    let chunks = big
        .into_bytes()
        .chunks(1 << 20)
        .map(|c| Ok::<_, std::io::Error>(c.to_vec()))
        .collect::<Vec<_>>();
    let streamed = Body::from_stream(futures::stream::iter(chunks));
    let reply = h
        .request("POST", "/api/create_thread", &auth, streamed)
        .await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(thread_count(&h).await, 0);
}

#[tokio::test]
async fn failed_server_functions_answer_with_their_status_and_message() {
    let h = Harness::app_server().await;
    let call = |path: &str, body: &str| {
        post(path)
            .header(header::AUTHORIZATION, BEARER)
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    // A thread that does not exist: the runtime's 404, not Leptos' 500.
    let reply = h.send(call("/api/thread", "id=thr_00ff00ff")).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.text());
    assert_eq!(reply.json()["status"], 404);
    assert!(reply.json()["message"]
        .as_str()
        .unwrap()
        .contains("thr_00ff00ff"));
    // Malformed and missing arguments: 400 with what was wrong.
    for body in ["", "days=many", "days=-1", "days=%FF%FE"] {
        let reply = h.send(call("/api/usage", body)).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{body:?}: {}",
            reply.text()
        );
        assert_eq!(reply.json()["status"], 400);
        assert!(reply.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid request"));
    }
    // No such function: the JSON 404, not the app's page.
    let reply = h.send(call("/api/no_such_function", "")).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.json()["error"]["status"], 404);
    // A message quoting a huge argument is clipped, and keeps its status.
    let huge = format!("request[mode]={}", "A".repeat(70_000));
    let reply = h.send(call("/api/create_thread", &huge)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert!(reply.body.len() < 2048, "{} bytes", reply.body.len());
    // The function's own refusal keeps its status.
    let reply = h.send(call("/api/usage", "days=9999")).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(reply.json()["message"]
        .as_str()
        .unwrap()
        .contains("between 1 and"));
    // A runtime conflict: a workspace that does not exist here keeps its
    // status (409), as on /v1.
    let reply = h
        .send(call(
            "/api/create_thread",
            "request[workspace]=%2Fno%2Fsuch%2Fdir",
        ))
        .await;
    assert_eq!(reply.status, StatusCode::CONFLICT, "{}", reply.text());
}

/// A thread page holds its newest items (`from`, or the last 100) and says
/// how many come before; `thread_items` serves any range of them, clamped.
#[tokio::test]
async fn thread_pages_and_item_ranges_are_served_in_order() {
    use common::scripted::{Scripted, Step};
    let steps = (0..4)
        .map(|n| Step::Say(vec![format!("answer {n}")]))
        .collect();
    let h = Harness::with_engine(Scripted::new(steps)).await;
    let api = h.api().await;
    let thread = api.create_thread(serde_json::json!({})).await.id;
    let mut reader = api.events(&thread).await;
    api.start_turn(&thread, serde_json::json!({"prompt": "go"}))
        .await;
    reader.until("turn.completed").await;
    let all: Vec<String> = api
        .thread(&thread)
        .await
        .items
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(all.len(), 5, "the prompt and four answers");

    let call = |path: &'static str, body: String| {
        h.request("POST", path, &[FORM, ("authorization", BEARER)], body)
    };
    let ids = |items: &serde_json::Value| -> Vec<String> {
        let items = items.as_array().expect("a list of items");
        items
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect()
    };
    for (from, earlier) in [("", 0), ("&from=2", 2), ("&from=5", 5), ("&from=99999", 5)] {
        let reply = call("/api/thread", format!("id={thread}{from}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{from}: {}", reply.text());
        let page = reply.json();
        assert_eq!(page["earlier"], earlier, "{from}");
        assert_eq!(ids(&page["detail"]["items"]), all[earlier..], "{from}");
    }
    for (range, expected) in [
        ("start=1&end=3", &all[1..3]),
        ("start=0&end=99999", &all[..]),
        ("start=3&end=1", &all[..0]),
        ("start=7&end=9", &all[..0]),
        ("start=4&end=18446744073709551615", &all[4..]),
        (
            "start=18446744073709551615&end=18446744073709551615",
            &all[..0],
        ),
    ] {
        let reply = call("/api/thread_items", format!("id={thread}&{range}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{range}: {}", reply.text());
        assert_eq!(ids(&reply.json()), expected, "{range}");
    }
    // A thread that does not exist is 404, an id that cannot be one 400,
    // as the whole snapshot answers them.
    for (id, status) in [
        ("thr_00ff00ff", StatusCode::NOT_FOUND),
        ("nope", StatusCode::BAD_REQUEST),
    ] {
        let reply = call("/api/thread_items", format!("id={id}&start=0&end=5")).await;
        assert_eq!(reply.status, status, "{id}: {}", reply.text());
    }
    for bad in ["&from=-1", "&from=many"] {
        let reply = call("/api/thread", format!("id={thread}{bad}")).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{bad}: {}",
            reply.text()
        );
    }
}

/// The Changes and Files panels' server functions (`app/src/api/changes.rs`)
/// get the edge's rules like every other: no credentials is a 401 before
/// they run, and a path out of the workspace is refused as `/v1` refuses it.
#[tokio::test]
async fn the_rewind_and_workspace_server_functions_hold_the_same_rules() {
    let endpoints = [
        ("/api/workspace_browse", "id=thr_00ff00ff"),
        ("/api/workspace_file", "id=thr_00ff00ff&path=a"),
        ("/api/workspace_diff", "id=thr_00ff00ff"),
        ("/api/thread_snapshots", "id=thr_00ff00ff"),
        ("/api/undo", "id=thr_00ff00ff"),
        ("/api/retry", "id=thr_00ff00ff"),
        ("/api/edit_last_turn", "id=thr_00ff00ff&prompt=x"),
        (
            "/api/fork_at_user_message",
            "id=thr_00ff00ff&item_id=item_0",
        ),
        (
            "/api/restore_snapshot",
            "id=thr_00ff00ff&snapshot_id=snap_0",
        ),
        ("/api/review_apply", "id=thr_00ff00ff&finding_id=item_0"),
        ("/api/review_revert", "id=thr_00ff00ff&action_id=item_0"),
        ("/api/thread_items", "id=thr_00ff00ff&start=0&end=10"),
    ];
    let visitor = Harness::new().await;
    let h = Harness::app_server().await;
    for (path, body) in endpoints {
        let reply = visitor.request("POST", path, &[FORM], body).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{path}");
        let signed = h.request("POST", path, &[FORM, ("authorization", BEARER)], body);
        let reply = signed.await;
        // The runtime's own refusal of an unknown thread.
        assert_eq!(
            reply.status,
            StatusCode::NOT_FOUND,
            "{path}: {}",
            reply.text()
        );
    }
    let auth = [
        ("authorization", BEARER),
        ("content-type", "application/json"),
    ];
    let thread = h.request("POST", "/v1/threads", &auth, "{}").await;
    let id = thread.json()["id"].as_str().unwrap().to_string();
    let escape = format!("id={id}&path=..%2F..%2Fetc%2Fpasswd");
    let reply = h
        .request("POST", "/api/workspace_file", &[FORM, auth[0]], escape)
        .await;
    let v1 = h
        .request(
            "GET",
            &format!("/v1/threads/{id}/workspace/file?path=../../etc/passwd"),
            &auth[..1],
            "",
        )
        .await;
    assert!(reply.status.is_client_error(), "{}", reply.text());
    assert_eq!(reply.status, v1.status, "{}", reply.text());
    assert!(!reply.text().contains("root:"));
}
