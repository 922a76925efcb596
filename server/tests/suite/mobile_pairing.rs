//! Pairing phones (`--mobile`): one-time, expiring pairing links; device
//! sessions that are revocable (closing their streams at once), hashed at
//! rest, and bound to the page's origin; the typed-token fallback; and
//! `/mobile` existing only in mobile mode.

use crate::common;

use axum::http::StatusCode;
use common::{Harness, Reply, PAIRING_BASE, TOKEN};
use futures::StreamExt;
use serde_json::{json, Value};
use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

const PHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
/// The origin of pages served to a request with `Host: 127.0.0.1:7878`.
const OWN: &str = "http://127.0.0.1:7878";

fn phone_peer() -> SocketAddr {
    SocketAddr::from(([192, 0, 2, 50], 41000))
}

async fn mint(h: &Harness, body: Value) -> Reply {
    let bearer = format!("Bearer {TOKEN}");
    h.request(
        "POST",
        "/v1/devices/pairings",
        &[
            ("authorization", bearer.as_str()),
            ("content-type", "application/json"),
        ],
        body.to_string(),
    )
    .await
}

/// Mints a link and returns the path it carries.
async fn pairing_path(h: &Harness) -> String {
    let reply = mint(h, json!({"label": null})).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let url = reply.json()["url"].as_str().unwrap().to_string();
    url.strip_prefix(PAIRING_BASE)
        .unwrap_or_else(|| panic!("{url}"))
        .to_string()
}

/// Opens a pairing path from the phone; returns the reply.
async fn open(h: &Harness, path: &str) -> Reply {
    let request = axum::http::Request::get(path)
        .header("user-agent", PHONE)
        .header("host", "127.0.0.1:7878")
        .body(axum::body::Body::empty())
        .unwrap();
    h.send_from(request, phone_peer()).await
}

/// `name=value` of a reply's session cookie.
fn cookie_of(reply: &Reply) -> String {
    let set = reply.header("set-cookie").expect("a session cookie");
    set.split(';').next().unwrap().to_string()
}

async fn pair(h: &Harness) -> String {
    let path = pairing_path(h).await;
    let reply = open(h, &path).await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{}", reply.text());
    cookie_of(&reply)
}

/// A request as the phone's page would send it.
async fn as_phone(h: &Harness, method: &str, path: &str, cookie: &str, body: &str) -> Reply {
    h.request(
        method,
        path,
        &[
            ("cookie", cookie),
            ("host", "127.0.0.1:7878"),
            ("origin", OWN),
            ("sec-fetch-site", "same-origin"),
            ("content-type", "application/json"),
        ],
        body.to_string(),
    )
    .await
}

async fn devices(h: &Harness) -> Vec<Value> {
    let reply = h
        .request(
            "GET",
            "/v1/devices",
            &[("authorization", &format!("Bearer {TOKEN}"))],
            "",
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    reply.json().as_array().unwrap().clone()
}

#[tokio::test]
async fn a_pairing_link_pairs_one_phone_once() {
    let h = Harness::mobile().await;
    let minted = mint(&h, json!({"label": "Sofa phone"})).await;
    assert_eq!(minted.status, StatusCode::CREATED);
    let body = minted.json();
    let url = body["url"].as_str().unwrap();
    let capability = url.rsplit('/').next().unwrap();
    assert!(url.starts_with(&format!("{PAIRING_BASE}/__codewhale/pair/cwpair_")));
    // 192 bits of randomness, hex.
    assert_eq!(capability.len(), "cwpair_".len() + 48);
    assert!(body["qr_svg"].as_str().unwrap().contains("<svg"));
    assert!(body["expires_at"].as_str().unwrap().ends_with('Z'));

    let path = url.strip_prefix(PAIRING_BASE).unwrap();
    let paired = open(&h, path).await;
    assert_eq!(paired.status, StatusCode::SEE_OTHER);
    assert_eq!(paired.header("location").as_deref(), Some("/mobile"));
    assert_eq!(paired.header("cache-control").as_deref(), Some("no-store"));
    let set_cookie = paired.header("set-cookie").unwrap();
    assert!(
        set_cookie.contains("; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000"),
        "30 days, sliding: {set_cookie}"
    );
    assert!(!set_cookie.contains("Secure"), "no TLS here");

    // Used: the same link never works again, from anyone.
    let again = open(&h, path).await;
    assert_eq!(again.status, StatusCode::UNAUTHORIZED);
    assert!(again.header("set-cookie").is_none());
    assert!(again.text().contains("works once"));

    let listed = devices(&h).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["name"], "Sofa phone");
    assert_eq!(listed[0]["user_agent"], PHONE);
    assert_eq!(listed[0]["last_address"], "192.0.2.50");
    assert_eq!(listed[0]["current"], false);

    // The cookie is the phone's way in, and it knows which device it is.
    let cookie = cookie_of(&paired);
    let mine = as_phone(&h, "GET", "/v1/devices", &cookie, "").await;
    assert_eq!(mine.status, StatusCode::OK);
    assert_eq!(mine.json()[0]["current"], true);
    let thread = as_phone(&h, "POST", "/v1/threads", &cookie, "{}").await;
    assert_eq!(thread.status, StatusCode::CREATED, "{}", thread.text());
}

#[tokio::test]
async fn pairing_links_expire_and_bad_ones_are_refused_alike() {
    let h = Harness::mobile().await;
    let reply = mint(&h, json!({"ttl_seconds": 1})).await;
    let url = reply.json()["url"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let expired = open(&h, url.strip_prefix(PAIRING_BASE).unwrap()).await;
    assert_eq!(expired.status, StatusCode::UNAUTHORIZED);
    assert!(expired.header("set-cookie").is_none());
    for forged in [
        format!("/__codewhale/pair/cwpair_{}", "0".repeat(48)),
        "/__codewhale/pair/cwpair_short".into(),
        "/__codewhale/pair/..%2f..%2fetc".into(),
    ] {
        let reply = open(&h, &forged).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{forged}");
    }
    assert!(devices(&h).await.is_empty());
    for ttl in [0, 3601] {
        let (status, message) = mint(&h, json!({"ttl_seconds": ttl})).await.error();
        assert_eq!(status, 400, "{message}");
    }
    let (status, _) = mint(&h, json!({"label": " "})).await.error();
    assert_eq!(status, 400);
}

#[tokio::test]
async fn only_hashes_of_device_secrets_are_stored() {
    let h = Harness::mobile().await;
    let path = pairing_path(&h).await;
    let capability = path.rsplit('/').next().unwrap().to_string();
    let cookie = pair_with(&h, &path).await;
    let secret = cookie.split_once('=').unwrap().1.to_string();
    // Everything on disk: the database, its WAL and anything beside it.
    h.state.runtime.store().close().await;
    for entry in std::fs::read_dir(h.home.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains(&secret),
                "{} holds the session",
                path.display()
            );
            assert!(
                !text.contains(&capability),
                "{} holds the capability",
                path.display()
            );
        }
    }
}

async fn pair_with(h: &Harness, path: &str) -> String {
    let reply = open(h, path).await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER);
    cookie_of(&reply)
}

#[tokio::test]
async fn a_paired_phone_cannot_mint_pairings_or_act_cross_site() {
    let h = Harness::mobile().await;
    let cookie = pair(&h).await;
    let refused = as_phone(&h, "POST", "/v1/devices/pairings", &cookie, "{}").await;
    assert_eq!(refused.error().0, 403);

    // Changes need this server's origin; Fetch Metadata's cross-site is refused.
    for (origin, site) in [
        ("http://attacker.example", "cross-site"),
        ("http://192.0.2.10:7878", "same-site"),
        ("https://127.0.0.1:7878", "same-origin"),
        ("null", "cross-site"),
    ] {
        let reply = h
            .request(
                "POST",
                "/v1/threads",
                &[
                    ("cookie", cookie.as_str()),
                    ("host", "127.0.0.1:7878"),
                    ("origin", origin),
                    ("sec-fetch-site", site),
                    ("content-type", "application/json"),
                ],
                "{}",
            )
            .await;
        assert_eq!(reply.error().0, 403, "{origin}");
    }
    let no_origin = h
        .request(
            "POST",
            "/v1/threads",
            &[
                ("cookie", cookie.as_str()),
                ("content-type", "application/json"),
            ],
            "{}",
        )
        .await;
    assert_eq!(no_origin.error().0, 403);
    let cross_site_read = h
        .request(
            "GET",
            "/v1/threads",
            &[
                ("cookie", cookie.as_str()),
                ("sec-fetch-site", "cross-site"),
            ],
            "",
        )
        .await;
    assert_eq!(cross_site_read.error().0, 403);
}

#[tokio::test]
async fn devices_are_renamed_and_revoked() {
    let h = Harness::mobile().await;
    let cookie = pair(&h).await;
    let id = devices(&h).await[0]["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("dev_"));

    let renamed = as_phone(
        &h,
        "PATCH",
        &format!("/v1/devices/{id}"),
        &cookie,
        r#"{"name":"  Kitchen iPad  "}"#,
    )
    .await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.text());
    assert_eq!(renamed.json()["name"], "Kitchen iPad");
    for (body, status) in [
        (r#"{"name":""}"#, 400),
        (r#"{"name":"a\u0007b"}"#, 400),
        (r#"{"nom":"x"}"#, 400),
    ] {
        let reply = as_phone(&h, "PATCH", &format!("/v1/devices/{id}"), &cookie, body).await;
        assert_eq!(reply.error().0, status, "{body}");
    }
    let bearer = format!("Bearer {TOKEN}");
    let unknown = h
        .request(
            "DELETE",
            "/v1/devices/dev_0123",
            &[("authorization", bearer.as_str())],
            "",
        )
        .await;
    assert_eq!(unknown.error().0, 404);
    let malformed = as_phone(&h, "DELETE", "/v1/devices/../threads", &cookie, "").await;
    assert!(malformed.status.is_client_error());

    let revoked = h
        .request(
            "DELETE",
            &format!("/v1/devices/{id}"),
            &[("authorization", bearer.as_str())],
            "",
        )
        .await;
    assert_eq!(revoked.status, StatusCode::OK);
    assert_eq!(revoked.json()["revoked"], true);
    let after = as_phone(&h, "GET", "/v1/threads", &cookie, "").await;
    let (status, message) = after.error();
    assert_eq!(status, 401);
    assert!(message.contains("pair again"), "{message}");
    // The dead session is gone and the browser is told to drop its cookie.
    let set_cookie = after.header("set-cookie").unwrap_or_default();
    assert!(set_cookie.contains("Max-Age=0"), "{set_cookie}");
    assert!(devices(&h).await.is_empty());
}

#[tokio::test]
async fn revoking_a_device_closes_its_event_streams_within_a_second() {
    let h = Harness::mobile().await;
    let api = h.api().await;
    let base = api.base().to_string();
    let thread = api.create_thread(json!({})).await;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let path = pairing_path(&h).await;
    let paired = http
        .get(format!("{base}{path}"))
        .header("user-agent", PHONE)
        .send()
        .await
        .unwrap();
    assert_eq!(paired.status(), 303);
    let set_cookie = paired.headers()["set-cookie"].to_str().unwrap();
    let cookie = set_cookie.split(';').next().unwrap().to_string();
    let id = api.http().get(api.url("/v1/devices")).send().await.unwrap();
    let id = id.json::<Value>().await.unwrap()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let stream = http
        .get(format!("{base}/v1/threads/{}/events", thread.id))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let mut body = stream.bytes_stream();
    // Open and idle: nothing more arrives until the keep-alive.
    let idle = tokio::time::timeout(Duration::from_millis(300), body.next()).await;
    assert!(idle.is_err() || matches!(idle, Ok(Some(Ok(_)))), "{idle:?}");

    let revoked_at = Instant::now();
    let revoked = api
        .http()
        .delete(api.url(&format!("/v1/devices/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 200);
    let ended = tokio::time::timeout(Duration::from_secs(1), async {
        while let Some(chunk) = body.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(
        ended.is_ok(),
        "the stream was still open {:?} after the revocation",
        revoked_at.elapsed()
    );
    let again = http
        .get(format!("{base}/v1/threads/{}/events", thread.id))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 401);
}

#[tokio::test]
async fn a_typed_runtime_token_pairs_only_from_the_servers_own_page() {
    let h = Harness::mobile().await;
    let form = format!("token={TOKEN}");
    let post = |origin: Option<&'static str>, body: String| {
        let h = &h;
        async move {
            let mut headers = vec![
                ("content-type", "application/x-www-form-urlencoded"),
                ("host", "127.0.0.1:7878"),
                ("user-agent", PHONE),
            ];
            if let Some(origin) = origin {
                headers.push(("origin", origin));
            }
            h.request("POST", "/__codewhale/pair/token", &headers, body)
                .await
        }
    };
    let foreign = post(Some("http://attacker.example"), form.clone()).await;
    assert_eq!(foreign.status, StatusCode::FORBIDDEN);
    assert!(foreign.header("set-cookie").is_none());
    let no_origin = post(None, form.clone()).await;
    assert_eq!(no_origin.status, StatusCode::FORBIDDEN);
    let wrong = post(Some(OWN), "token=cwrt_not_the_token_at_all".into()).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(wrong.header("set-cookie").is_none());
    assert!(!wrong.text().contains("cwrt_not_the_token"), "never echoed");
    assert!(devices(&h).await.is_empty());

    let paired = post(Some(OWN), form).await;
    assert_eq!(paired.status, StatusCode::SEE_OTHER);
    assert_eq!(paired.header("location").as_deref(), Some("/mobile"));
    let cookie = cookie_of(&paired);
    assert!(
        !cookie.contains(TOKEN),
        "the cookie is a session, not the token"
    );
    assert_eq!(
        as_phone(&h, "GET", "/v1/threads", &cookie, "").await.status,
        StatusCode::OK
    );
    assert_eq!(devices(&h).await[0]["name"], "Safari on iPhone");
}

#[tokio::test]
async fn without_mobile_mode_there_is_no_phone_surface() {
    let h = Harness::new().await;
    assert_eq!(
        h.get("/v1/runtime/info").await.json()["capabilities"]["mobile"],
        false
    );
    let mobile = Harness::mobile().await;
    assert_eq!(
        mobile.get("/v1/runtime/info").await.json()["capabilities"]["mobile"],
        true
    );
    let (status, message) = h.get("/mobile").await.error();
    assert_eq!(status, 404);
    assert!(message.contains("--mobile"), "{message}");
    assert_eq!(
        h.get("/mobile/threads/x").await.status,
        StatusCode::NOT_FOUND
    );
    let path = format!("/__codewhale/pair/cwpair_{}", "0".repeat(48));
    assert_eq!(h.get(&path).await.status, StatusCode::NOT_FOUND);
    let bearer = format!("Bearer {TOKEN}");
    let minted = h
        .request(
            "POST",
            "/v1/devices/pairings",
            &[
                ("authorization", bearer.as_str()),
                ("content-type", "application/json"),
            ],
            "{}",
        )
        .await;
    assert_eq!(minted.error().0, 409);
    // A device session from a mobile run of the same store is no key here.
    let token_form = h
        .request(
            "POST",
            "/__codewhale/pair/token",
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("origin", OWN),
                ("host", "127.0.0.1:7878"),
            ],
            format!("token={TOKEN}"),
        )
        .await;
    assert_eq!(token_form.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_desktop_workbench_session_still_signs_in_beside_devices() {
    let h = Harness::mobile().await;
    let cookie = h.sign_in().await;
    let reply = h
        .request("GET", "/v1/devices", &[("cookie", cookie.as_str())], "")
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    // The workbench may mint pairing links (it is the computer, not a phone).
    let minted = h
        .request(
            "POST",
            "/v1/devices/pairings",
            &[
                ("cookie", cookie.as_str()),
                ("origin", OWN),
                ("content-type", "application/json"),
            ],
            "{}",
        )
        .await;
    assert_eq!(minted.status, StatusCode::CREATED, "{}", minted.text());
}

#[tokio::test]
async fn a_paired_phone_manages_only_itself() {
    let h = Harness::mobile().await;
    let first = pair(&h).await;
    let second = pair(&h).await;
    let all = devices(&h).await;
    assert_eq!(all.len(), 2);
    let mine = as_phone(&h, "GET", "/v1/devices", &second, "").await.json();
    assert_eq!(mine.as_array().unwrap().len(), 1, "{mine}");
    assert_eq!(mine[0]["current"], true);
    let first_id = as_phone(&h, "GET", "/v1/devices", &first, "").await.json()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let rename = as_phone(
        &h,
        "PATCH",
        &format!("/v1/devices/{first_id}"),
        &second,
        r#"{"name":"Lost phone"}"#,
    )
    .await;
    assert_eq!(rename.error().0, 403);
    let revoke = as_phone(
        &h,
        "DELETE",
        &format!("/v1/devices/{first_id}"),
        &second,
        "",
    )
    .await;
    assert_eq!(revoke.error().0, 403);
    assert_eq!(devices(&h).await.len(), 2);
    // Forgetting itself is fine.
    let own = as_phone(&h, "GET", "/v1/devices", &second, "").await.json()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let forget = as_phone(&h, "DELETE", &format!("/v1/devices/{own}"), &second, "").await;
    assert_eq!(forget.status, StatusCode::OK);
    assert_eq!(devices(&h).await.len(), 1);
}

#[tokio::test]
async fn a_device_session_slides_by_the_configured_lifetime() {
    let h = Harness::mobile().await;
    let cookie = pair(&h).await;
    // Within the minute: nothing is written, no cookie is resent.
    let quiet = as_phone(&h, "GET", "/v1/threads", &cookie, "").await;
    assert_eq!(quiet.status, StatusCode::OK);
    assert!(quiet.header("set-cookie").is_none());
    h.state
        .runtime
        .devices()
        .clock()
        .advance(Duration::from_secs(61));
    let slid = as_phone(&h, "GET", "/v1/threads", &cookie, "").await;
    assert_eq!(slid.status, StatusCode::OK);
    let set_cookie = slid.header("set-cookie").expect("the cookie is renewed");
    assert!(
        set_cookie.starts_with(&format!("{cookie};")),
        "same session: {set_cookie}"
    );
    assert!(set_cookie.contains("Max-Age=2592000"), "{set_cookie}");
    let expiry: String = sqlx::query_scalar("SELECT expiry_date FROM device_sessions")
        .fetch_one(h.state.runtime.store().pool())
        .await
        .unwrap();
    let expiry = chrono::DateTime::parse_from_rfc3339(&expiry).unwrap();
    let days = (expiry.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_hours() / 24;
    assert!((29..=30).contains(&days), "{expiry}");
}

#[tokio::test]
async fn previews_do_not_spend_a_link_and_pairing_again_replaces_the_device() {
    let h = Harness::mobile().await;
    let path = pairing_path(&h).await;
    let head = h
        .request("HEAD", &path, &[("host", "127.0.0.1:7878")], "")
        .await;
    assert!(head.header("set-cookie").is_none());
    let prefetch = h
        .request(
            "GET",
            &path,
            &[("host", "127.0.0.1:7878"), ("sec-purpose", "prefetch")],
            "",
        )
        .await;
    assert!(prefetch.header("set-cookie").is_none());
    let cookie = pair_with(&h, &path).await;
    let old = devices(&h).await[0]["id"].clone();

    let again = pairing_path(&h).await;
    let request = axum::http::Request::get(again)
        .header("host", "127.0.0.1:7878")
        .header("cookie", &cookie)
        .body(axum::body::Body::empty())
        .unwrap();
    let reply = h.send_from(request, phone_peer()).await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER);
    let listed = devices(&h).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_ne!(listed[0]["id"], old);
}

#[tokio::test]
async fn guessing_tokens_from_one_address_is_stopped() {
    let h = Harness::mobile().await;
    let attempt = |token: &str| {
        let request = axum::http::Request::post("/__codewhale/pair/token")
            .header("content-type", "application/x-www-form-urlencoded")
            .header("host", "127.0.0.1:7878")
            .header("origin", OWN)
            .body(axum::body::Body::from(format!("token={token}")))
            .unwrap();
        h.send_from(request, phone_peer())
    };
    for guess in 0..10 {
        let reply = attempt(&format!("cwrt_guess_{guess:020}")).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    }
    // Even the right token waits now, from that address.
    let stopped = attempt(TOKEN).await;
    assert_eq!(stopped.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(stopped.header("set-cookie").is_none());
    // Another address is not affected.
    let request = axum::http::Request::post("/__codewhale/pair/token")
        .header("content-type", "application/x-www-form-urlencoded")
        .header("host", "127.0.0.1:7878")
        .header("origin", OWN)
        .body(axum::body::Body::from(format!("token={TOKEN}")))
        .unwrap();
    let other = h
        .send_from(request, SocketAddr::from(([192, 0, 2, 51], 41000)))
        .await;
    assert_eq!(other.status, StatusCode::SEE_OTHER);
}
