//! What the server sends: security headers, the page CSP and its nonce,
//! embedded assets with types, ETags and compression, and never the token.

use crate::common;

use axum::http::StatusCode;
use common::{Harness, FORM, ORIGIN, TOKEN};

fn name() -> &'static str {
    app::OUTPUT_NAME
}

#[tokio::test]
async fn pages_carry_a_nonce_csp_that_matches_their_scripts() {
    let h = Harness::new().await;
    let page = h.get("/").await;
    let csp = page.header("content-security-policy").expect("CSP");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert!(
        !csp.contains("unsafe-eval'") || csp.contains("wasm-unsafe-eval"),
        "{csp}"
    );
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    let nonce = csp
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("a nonce in script-src");
    assert!(nonce.len() >= 16);
    let html = page.text();
    let scripts = html.matches("<script").count();
    assert!(scripts >= 1, "the hydration script is inline");
    assert_eq!(
        html.matches(&format!("nonce=\"{nonce}\"")).count(),
        scripts,
        "every inline script carries this response's nonce"
    );
    assert_eq!(
        page.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );
    assert_eq!(
        page.header("referrer-policy").as_deref(),
        Some("no-referrer")
    );
    assert_eq!(page.header("cache-control").as_deref(), Some("no-store"));
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));

    let second = h.get("/").await.header("content-security-policy").unwrap();
    assert_ne!(csp, second, "a fresh nonce per response");
}

#[tokio::test]
async fn unknown_pages_are_a_404_with_the_same_protections() {
    let h = Harness::new().await;
    let reply = h.get("/no/such/page").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert!(reply.text().contains("Not found"));
    assert!(reply
        .header("content-security-policy")
        .unwrap()
        .contains("frame-ancestors 'none'"));
    assert_eq!(
        reply.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );
}

#[tokio::test]
async fn assets_have_types_etags_and_strict_headers() {
    let h = Harness::new().await;
    for (path, mime) in [
        (format!("/pkg/{}.js", name()), "text/javascript"),
        (format!("/pkg/{}_bg.wasm", name()), "application/wasm"),
        (format!("/pkg/{}.css", name()), "text/css"),
        ("/favicon.svg".to_string(), "image/svg+xml"),
    ] {
        let reply = h.get(&path).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert!(
            reply.header("content-type").unwrap().starts_with(mime),
            "{path}"
        );
        assert_eq!(
            reply.header("x-content-type-options").as_deref(),
            Some("nosniff")
        );
        assert_eq!(
            reply.header("referrer-policy").as_deref(),
            Some("no-referrer")
        );
        assert!(reply
            .header("content-security-policy")
            .unwrap()
            .contains("frame-ancestors 'none'"));
        let etag = reply.header("etag").expect("etag");
        let revalidate = [("if-none-match", etag.as_str())];
        let cached = h.request("GET", &path, &revalidate, "").await;
        assert_eq!(cached.status, StatusCode::NOT_MODIFIED, "{path}");
        assert!(cached.body.is_empty());
    }
}

#[tokio::test]
async fn wasm_js_and_css_are_served_compressed() {
    let h = Harness::new().await;
    for path in [
        format!("/pkg/{}.js", name()),
        format!("/pkg/{}_bg.wasm", name()),
        format!("/pkg/{}.css", name()),
    ] {
        for encoding in ["gzip", "br"] {
            let accept = [("accept-encoding", encoding)];
            let reply = h.request("GET", &path, &accept, "").await;
            assert_eq!(
                reply.header("content-encoding").as_deref(),
                Some(encoding),
                "{path}"
            );
        }
    }
}

/// Browsers that accept br get the build's quality-11 twin, byte for byte;
/// the twins are not addressable themselves.
#[tokio::test]
async fn brotli_comes_precompressed_from_the_build() {
    let h = Harness::new().await;
    for file in [
        format!("pkg/{}_bg.wasm", name()),
        format!("pkg/{}.js", name()),
    ] {
        let twin = codewhale::http::assets::Site::get(&format!("{file}.br")).expect("a .br twin");
        let accept = [("accept-encoding", "gzip, deflate, br, zstd")];
        let reply = h.request("GET", &format!("/{file}"), &accept, "").await;
        assert_eq!(reply.header("content-encoding").as_deref(), Some("br"));
        assert_eq!(reply.header("vary").as_deref(), Some("accept-encoding"));
        assert!(reply
            .header("content-type")
            .is_some_and(|t| !t.contains("brotli")));
        assert_eq!(reply.body.as_slice(), twin.data.as_ref(), "{file}");
        assert_eq!(
            h.get(&format!("/{file}.br")).await.status,
            StatusCode::NOT_FOUND
        );
    }
}

#[tokio::test]
async fn the_runtime_token_is_in_no_served_byte() {
    let h = Harness::new().await;
    let cookie = h.sign_in().await;
    let mut replies = Vec::new();
    for path in [
        "/".to_string(),
        "/health".into(),
        "/v1/runtime/info".into(),
        "/no/such/page".into(),
        format!("/pkg/{}.js", name()),
        format!("/pkg/{}_bg.wasm", name()),
        format!("/pkg/{}.css", name()),
        "/favicon.svg".into(),
        "/manifest.webmanifest".into(),
        h.bootstrap_path(),
    ] {
        replies.push(h.get(&path).await);
        let with_cookie = [("cookie", cookie.as_str())];
        replies.push(h.request("GET", &path, &with_cookie, "").await);
    }
    let bearer = format!("Bearer {TOKEN}");
    for path in ["/api/ping", "/api/workbench"] {
        let with_cookie = [FORM, ("cookie", cookie.as_str()), ("origin", ORIGIN)];
        let reply = h.request("POST", path, &with_cookie, "").await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        replies.push(reply);
        let with_token = [FORM, ("authorization", bearer.as_str())];
        replies.push(h.request("POST", path, &with_token, "").await);
    }
    for reply in replies {
        assert!(!reply.all_bytes().contains(TOKEN), "token leaked");
        assert!(!reply.all_bytes().contains(&TOKEN[5..]), "token leaked");
    }
}

/// Pages ask for the bundle under this build's path, which never changes
/// content (cached for good, revalidated by nobody); another build's path
/// is a 404 that is not cached, so a tab of an older build never gets a
/// chunk cut from another module.
#[tokio::test]
async fn the_bundle_is_served_under_this_builds_path_and_no_other() {
    let h = Harness::new().await;
    let pkg = codewhale::http::assets::PKG_DIR;
    let page = String::from_utf8(h.get("/").await.body).expect("utf-8 page");
    assert!(
        page.contains(&format!("/{pkg}/{}.js", name())),
        "the page preloads the glue from /{pkg}/"
    );
    let accept = [("accept-encoding", "br")];
    let wasm = h
        .request("GET", &format!("/{pkg}/{}_bg.wasm", name()), &accept, "")
        .await;
    assert_eq!(wasm.status, StatusCode::OK);
    assert_eq!(wasm.header("content-encoding").as_deref(), Some("br"));
    assert_eq!(
        wasm.header("cache-control").as_deref(),
        Some("private, max-age=31536000, immutable")
    );
    let split = h
        .get(&format!("/{pkg}/__wasm_split.______________________.js"))
        .await;
    assert_eq!(split.status, StatusCode::OK);
    let other = format!("/pkg/{}/{}_bg.wasm", "0".repeat(64), name());
    let refused = h.get(&other).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    assert!(refused
        .header("cache-control")
        .is_none_or(|c| !c.contains("immutable")));
    // Paths that try to climb out of it find nothing either.
    for path in [
        format!("/{pkg}/../{}.css", name()),
        format!("/{pkg}/%2e%2e/{}.css", name()),
        format!("/{pkg}//{}_bg.wasm", name()),
    ] {
        assert_eq!(h.get(&path).await.status, StatusCode::NOT_FOUND, "{path}");
    }
}
