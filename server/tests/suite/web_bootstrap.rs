//! The one-time bootstrap exchange of `codewhale web`, over the real router.

use crate::common;

use axum::{
    body::Body,
    http::{Request, StatusCode},
};
use common::Harness;
use std::{net::SocketAddr, time::Duration};

#[tokio::test]
async fn valid_capability_sets_a_strict_session_cookie_and_redirects_home() {
    let h = Harness::new().await;
    let reply = h.get(&h.bootstrap_path()).await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER);
    assert_eq!(reply.header("location").as_deref(), Some("/"));
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    let cookie = reply.header("set-cookie").expect("session cookie");
    let (pair, attributes) = cookie.split_once("; ").unwrap();
    let (name, value) = pair.split_once('=').unwrap();
    assert_eq!(name, "codewhale_web_session");
    // A tower-sessions id: 128 random bits, base64url.
    assert_eq!(value.len(), 22, "{value}");
    let max_age: u64 = attributes
        .strip_prefix("HttpOnly; SameSite=Strict; Path=/; Max-Age=")
        .unwrap_or_else(|| panic!("{attributes}"))
        .parse()
        .unwrap();
    // Until 12 hours after the server started, and no longer.
    assert!((12 * 3600 - 60..=12 * 3600).contains(&max_age), "{max_age}");
    assert!(
        !value.contains(&h.capability[5..]),
        "the session is not the capability"
    );
}

#[tokio::test]
async fn a_capability_works_only_once() {
    let h = Harness::new().await;
    assert_eq!(
        h.get(&h.bootstrap_path()).await.status,
        StatusCode::SEE_OTHER
    );
    let again = h.get(&h.bootstrap_path()).await;
    assert_eq!(again.status, StatusCode::UNAUTHORIZED);
    assert!(again.header("set-cookie").is_none());
    assert!(again.text().contains("works once"));
}

#[tokio::test]
async fn a_capability_expires_after_ten_minutes() {
    let h = Harness::new().await;
    h.clock.advance(Duration::from_secs(10 * 60));
    let reply = h.get(&h.bootstrap_path()).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert!(reply.header("set-cookie").is_none());
}

#[tokio::test]
async fn a_capability_is_still_good_just_before_expiry() {
    let h = Harness::new().await;
    h.clock.advance(Duration::from_secs(10 * 60 - 1));
    assert_eq!(
        h.get(&h.bootstrap_path()).await.status,
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn malformed_capabilities_fail_closed() {
    let h = Harness::new().await;
    let wrong_but_well_formed = format!("cwwb_{}", "0".repeat(64));
    let too_long = format!("{}0", h.capability);
    let upper = h.capability.to_uppercase();
    let huge = "a".repeat(16 * 1024);
    for candidate in [
        "x",
        "cwwb_",
        "cwwb_zz",
        &wrong_but_well_formed,
        &too_long,
        &upper,
        &huge,
        "..%2F..%2Fetc%2Fpasswd",
    ] {
        let reply = h.get(&format!("/__codewhale/bootstrap/{candidate}")).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{candidate}");
        assert!(reply.header("set-cookie").is_none(), "{candidate}");
    }
    // None of those consumed the real capability.
    assert_eq!(
        h.get(&h.bootstrap_path()).await.status,
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn non_loopback_peers_are_refused_without_consuming_the_capability() {
    let h = Harness::new().await;
    for peer in ["192.168.1.20:5000", "10.0.0.2:1", "[2001:db8::1]:443"] {
        let request = Request::get(h.bootstrap_path())
            .body(Body::empty())
            .unwrap();
        let reply = h
            .send_from(request, peer.parse::<SocketAddr>().unwrap())
            .await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{peer}");
        assert!(reply.header("set-cookie").is_none());
    }
    assert_eq!(
        h.get(&h.bootstrap_path()).await.status,
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn the_session_opens_the_workbench_and_nothing_else_does() {
    let h = Harness::new().await;
    let anonymous = h.get("/").await;
    assert_eq!(anonymous.status, StatusCode::OK);
    assert!(anonymous.text().contains("not signed in"));
    let workspace = std::env::current_dir().unwrap().display().to_string();
    assert!(
        !anonymous.text().contains(&workspace),
        "no data for visitors"
    );

    let cookie = h.sign_in().await;
    let headers = [("cookie", cookie.as_str()), ("sec-fetch-site", "none")];
    let signed_in = h.request("GET", "/", &headers, "").await;
    assert_eq!(signed_in.status, StatusCode::OK);
    assert!(signed_in.text().contains(&workspace));
    assert!(signed_in.text().contains("Check connection"));
}

#[tokio::test]
async fn a_cross_site_navigation_sees_the_sign_in_page() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    for site in ["cross-site", "same-site"] {
        let headers = [("cookie", cookie.as_str()), ("sec-fetch-site", site)];
        let reply = h.request("GET", "/", &headers, "").await;
        assert!(reply.text().contains("not signed in"), "{site}");
    }
}

#[tokio::test]
async fn the_session_ends_twelve_hours_after_start() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    h.clock.advance(Duration::from_secs(12 * 60 * 60));
    let ping = [
        common::FORM,
        ("cookie", &cookie),
        ("origin", common::ORIGIN),
    ];
    let reply = h.request("POST", "/api/ping", &ping, "").await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    let page = h.request("GET", "/", &[("cookie", &cookie)], "").await;
    assert!(page.text().contains("not signed in"));
}

/// Server functions get the runtime only for a signed-in viewer: a
/// visitor's render of any page (threads, usage, tasks, automations, the
/// fleet) reaches no runtime data, in-process; the owner's does.
#[tokio::test]
async fn pages_rendered_for_a_visitor_reach_no_runtime_data() {
    let h = Harness::new().await;
    let title = "a title only the runtime knows";
    let thread = h
        .state
        .runtime
        .create_thread(protocol::CreateThread {
            title: Some(title.into()),
            ..Default::default()
        })
        .await
        .unwrap();
    // Work that runs without a client, named with the same secret text.
    let runtime = &h.state.runtime;
    let here = std::env::current_dir().unwrap().display().to_string();
    runtime
        .create_task(protocol::CreateTask {
            prompt: title.into(),
            ..Default::default()
        })
        .await
        .unwrap();
    runtime
        .create_automation(protocol::CreateAutomation {
            name: title.into(),
            prompt: title.into(),
            interval_seconds: Some(3600),
            ..Default::default()
        })
        .await
        .unwrap();
    let fleet = runtime
        .create_fleet_run(protocol::CreateFleetRun {
            workers: vec![protocol::FleetWorkerSpec {
                prompt: title.into(),
                ..Default::default()
            }],
            workspace: here,
            isolation: protocol::FleetIsolation::Shared,
            ..Default::default()
        })
        .await
        .unwrap();
    // A saved session and an MCP server, each named after the secret title.
    let sessions = h.home.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let session = serde_json::json!({
        "metadata": {"id": "ses_0123456789abcdef", "name": title, "title": title,
            "created_at": 0, "updated_at": 0, "message_count": 0},
        "messages": [], "system_prompt": "",
    });
    std::fs::write(
        sessions.join("ses_0123456789abcdef.json"),
        session.to_string(),
    )
    .unwrap();
    runtime
        .add_mcp_server(protocol::CreateMcpServer {
            name: "leak".into(),
            command: Some(format!("/nonexistent/{title}")),
            enabled: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let pages = [
        "/".to_string(),
        format!("/threads/{}", thread.id),
        "/usage".to_string(),
        "/tasks".to_string(),
        "/automations".to_string(),
        "/fleet".to_string(),
        format!("/fleet/{}", fleet.run.id),
        "/mcp".to_string(),
        "/sessions".to_string(),
    ];
    for page in &pages {
        let visitor = h.get(page).await;
        assert!(
            !visitor.text().contains(title),
            "{page} leaked to a visitor"
        );
    }
    let fleet_page = format!("/fleet/{}", fleet.run.id);
    let cookie = h.sign_in().await;
    let headers = [("cookie", cookie.as_str()), ("sec-fetch-site", "none")];
    for page in [
        "/tasks",
        "/automations",
        fleet_page.as_str(),
        "/mcp",
        "/sessions",
    ] {
        let owner = h.request("GET", page, &headers, "").await;
        assert!(owner.text().contains(title), "the owner sees {page}");
    }
    let signed_in = h.request("GET", &pages[1], &headers, "").await;
    assert!(
        signed_in.text().contains(title),
        "the owner sees the thread"
    );
}
