//! Who may call the protected surface (`/api/*` server functions, `/v1/*`),
//! and the browser-origin rules for cookie-authenticated requests.

use crate::common;

use axum::http::StatusCode;
use common::{Harness, FORM, ORIGIN, TOKEN};

async fn cookie_post(h: &Harness, cookie: &str, extra: &[(&str, &str)]) -> common::Reply {
    let headers = [&[FORM, ("cookie", cookie)][..], extra].concat();
    h.request("POST", "/api/ping", &headers, "").await
}

#[tokio::test]
async fn cookie_post_with_the_exact_origin_succeeds() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    let reply = cookie_post(
        &h,
        &cookie,
        &[("origin", ORIGIN), ("sec-fetch-site", "same-origin")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert!(reply.json()["server_time_ms"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn cookie_post_without_origin_is_refused() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    let reply = cookie_post(&h, &cookie, &[]).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(reply.json()["error"]["status"], 403);
    assert!(reply.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Origin"));
}

#[tokio::test]
async fn cookie_requests_with_any_other_origin_are_refused() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    for origin in [
        "http://localhost:7878",
        "http://127.0.0.1:7879",
        "https://127.0.0.1:7878",
        "http://127.0.0.1:7878/",
        "http://evil.example",
        "null",
    ] {
        let reply = cookie_post(&h, &cookie, &[("origin", origin)]).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{origin}");
    }
    // A safe method with a foreign Origin is refused too.
    let headers = [
        ("cookie", cookie.as_str()),
        ("origin", "http://evil.example"),
    ];
    let reply = h.request("GET", "/v1/anything", &headers, "").await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn unsafe_methods_all_need_the_origin() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    let cookie = ("cookie", cookie.as_str());
    for method in ["POST", "PUT", "PATCH", "DELETE"] {
        let reply = h.request(method, "/v1/no-such-route", &[cookie], "").await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{method}");
        let with_origin = [cookie, ("origin", ORIGIN)];
        let reply = h
            .request(method, "/v1/no-such-route", &with_origin, "")
            .await;
        // Authenticated: the route simply does not exist.
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}");
    }
}

#[tokio::test]
async fn safe_methods_without_origin_are_allowed() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    for method in ["GET", "HEAD", "OPTIONS"] {
        let headers = [("cookie", cookie.as_str())];
        // Past auth: GET and HEAD reach the 404, OPTIONS the CORS layer.
        let status = h
            .request(method, "/v1/no-such-route", &headers, "")
            .await
            .status;
        assert!(
            status == StatusCode::NOT_FOUND || (method == "OPTIONS" && status.is_success()),
            "{method}: {status}"
        );
    }
}

#[tokio::test]
async fn fetch_metadata_other_than_same_origin_is_refused() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    for site in ["cross-site", "same-site", "none", "bogus"] {
        let reply = cookie_post(&h, &cookie, &[("origin", ORIGIN), ("sec-fetch-site", site)]).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{site}");
        let headers = [("cookie", cookie.as_str()), ("sec-fetch-site", site)];
        let reply = h.request("GET", "/v1/threads", &headers, "").await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "GET {site}");
    }
}

#[tokio::test]
async fn bearer_and_token_header_clients_ignore_browser_rules() {
    let h = Harness::new().await;
    let credentials = [
        ("authorization", format!("Bearer {TOKEN}")),
        ("x-codewhale-runtime-token", TOKEN.to_string()),
        ("x-deepseek-runtime-token", TOKEN.to_string()),
    ];
    for (name, value) in credentials {
        let headers = [
            FORM,
            (name, value.as_str()),
            ("origin", "http://evil.example"),
            ("sec-fetch-site", "cross-site"),
        ];
        let reply = h.request("POST", "/api/ping", &headers, "").await;
        assert_eq!(reply.status, StatusCode::OK, "{name}: {}", reply.text());
    }
}

#[tokio::test]
async fn the_runtime_token_cookie_is_a_cookie_too() {
    let h = Harness::new().await;
    let cookie = format!("codewhale_runtime_token={TOKEN}");
    assert_eq!(
        cookie_post(&h, &cookie, &[]).await.status,
        StatusCode::FORBIDDEN
    );
    let ok = cookie_post(
        &h,
        &cookie,
        &[("origin", ORIGIN), ("sec-fetch-site", "same-origin")],
    )
    .await;
    assert_eq!(ok.status, StatusCode::OK);
}

#[tokio::test]
async fn missing_or_wrong_credentials_get_a_json_401() {
    let h = Harness::new().await;
    let cases: [(&str, Option<(&str, String)>); 6] = [
        ("/api/ping", None),
        (
            "/api/ping",
            Some(("authorization", "Bearer wrong-token-wrong-token".into())),
        ),
        (
            "/api/ping",
            Some(("authorization", format!("Basic {TOKEN}"))),
        ),
        (
            "/api/ping",
            Some(("x-codewhale-runtime-token", "nope".into())),
        ),
        (
            "/api/ping",
            Some(("cookie", "codewhale_web_session=cwws_forged".into())),
        ),
        (&*format!("/api/ping?token={TOKEN}"), None),
    ];
    for (path, credential) in cases {
        let mut headers = vec![FORM, ("origin", ORIGIN)];
        if let Some((name, value)) = &credential {
            headers.push((*name, value.as_str()));
        }
        let reply = h.request("POST", path, &headers, "").await;
        assert_eq!(
            reply.status,
            StatusCode::UNAUTHORIZED,
            "{path} {credential:?}"
        );
        assert_eq!(reply.json()["error"]["status"], 401);
        assert!(!reply.all_bytes().contains(TOKEN));
    }
}

#[tokio::test]
async fn a_wrong_header_token_is_refused_even_with_a_valid_cookie() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    let reply = cookie_post(
        &h,
        &cookie,
        &[
            ("origin", ORIGIN),
            ("authorization", "Bearer not-the-token-at-all"),
        ],
    )
    .await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn health_and_runtime_info_are_public() {
    let h = Harness::new().await;
    let health = h.get("/health").await;
    assert_eq!(health.status, StatusCode::OK);
    assert_eq!(
        health.json(),
        serde_json::json!({"status": "ok", "service": "codewhale-runtime-api", "mode": "local"})
    );
    let info = h.get("/v1/runtime/info").await.json();
    assert_eq!(info["runtime_api_version"], "1.0");
    assert_eq!(info["codewhale_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info["bind_host"], "127.0.0.1");
    assert_eq!(info["port"], 7878);
    assert_eq!(info["auth_required"], true);
    assert_eq!(info["capabilities"]["web_client"], true);
    assert_eq!(info["capabilities"]["threads"], true);
    assert_eq!(info["capabilities"]["event_replay"], true);
    assert_eq!(info["capabilities"]["external_tools"], true);
    assert_eq!(info["capabilities"]["user_input"], true);
    // Nothing that does not exist yet is claimed.
    assert_eq!(info["capabilities"]["mobile"], false);
}
