//! The browser bundle (wasm, JS, CSS, icons) embedded in the binary at build
//! time, served with content types and ETags. Browsers that accept br get
//! the build's quality-11 `.br` twin. Anything else falls through to the
//! app's own 404 page.

use crate::http::state::AppState;
use axum::{
    body::Body,
    extract::{Request, State},
    http::{header, HeaderValue, Method, StatusCode},
    response::{IntoResponse, Response},
};
use tower::ServiceExt;

/// `target/site`, produced by scripts/build before the server compiles;
/// build.rs refuses to compile against a missing or stale site.
#[derive(rust_embed::Embed)]
#[folder = "../target/site/"]
#[exclude = "SOURCE_HASH"]
pub struct Site;

/// This build's bundle, as the pages it renders ask for it:
/// `/pkg/<version>/codewhale.js` and the lazy routes' chunks beside it. A
/// page of another build (a tab left open across an upgrade) asks under
/// its own version and gets a 404, never a chunk cut from another module.
pub const PKG_DIR: &str = concat!("pkg/", env!("CODEWHALE_SITE_DIGEST"));

/// The embedded file a request path names, and whether the path is
/// versioned (immutable: its content never changes under that name).
fn resolve(path: &str) -> Option<(String, bool)> {
    match path
        .strip_prefix(PKG_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(rest) => Some((format!("pkg/{rest}"), true)),
        // Other builds' versions; plain /pkg/<file> (the stylesheet) is not one.
        None if path.starts_with("pkg/") && path[4..].contains('/') => None,
        None => Some((path.to_string(), false)),
    }
}

pub async fn serve(State(state): State<AppState>, request: Request) -> Response {
    let path = request.uri().path().trim_start_matches('/');
    // Server functions are an API: a miss there is the JSON error, not a page.
    if path == "api" || path.starts_with("api/") {
        return crate::http::error::ApiError::NotFound(format!("no server function at /{path}"))
            .into_response();
    }
    let is_read = matches!(*request.method(), Method::GET | Method::HEAD);
    if path.ends_with(".br") {
        return not_found(state, request).await;
    }
    let Some((path, immutable)) = resolve(path) else {
        return not_found(state, request).await;
    };
    let mut response = match Site::get(&path) {
        Some(file) if is_read && !path.is_empty() => match precompressed(&request, &path) {
            Some(brotli) => {
                let mime = file.metadata.mimetype().to_string();
                let mut response = embedded_file(&request, brotli, &mime);
                let headers = response.headers_mut();
                headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("br"));
                headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
                response
            }
            None => {
                let mime = file.metadata.mimetype().to_string();
                embedded_file(&request, file, &mime)
            }
        },
        _ => return not_found(state, request).await,
    };
    if immutable {
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, max-age=31536000, immutable"),
        );
    }
    response
}

/// The `.br` twin of `path`, when the request accepts br.
fn precompressed(request: &Request, path: &str) -> Option<rust_embed::EmbeddedFile> {
    let accepts_br = request
        .headers()
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|p| p.trim().replace(' ', "") == "q=0");
            name.eq_ignore_ascii_case("br") && !refused
        });
    if accepts_br {
        Site::get(&format!("{path}.br"))
    } else {
        None
    }
}

fn embedded_file(request: &Request, file: rust_embed::EmbeddedFile, mime: &str) -> Response {
    let etag = format!("\"{}\"", hex::encode(&file.metadata.sha256_hash()[..16]));
    let fresh = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == etag.as_bytes());
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = Body::from(file.data.into_owned()).into_response();
        if let Ok(mime) = HeaderValue::from_str(&content_type(mime)) {
            response.headers_mut().insert(header::CONTENT_TYPE, mime);
        }
        response
    };
    let headers = response.headers_mut();
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    // Names are stable across builds, so browsers revalidate by ETag.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Text types get an explicit charset.
fn content_type(mime: &str) -> String {
    let textual = mime.starts_with("text/")
        || mime.ends_with("javascript")
        || mime.ends_with("json")
        || mime.ends_with("+xml");
    if textual && !mime.contains("charset") {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    }
}

/// The app renders its 404 page (with the page CSP) for browsers.
async fn not_found(state: AppState, request: Request) -> Response {
    let handler = leptos_axum::ErrorHandler::new(app::shell, (*state.leptos_options).clone());
    match handler.oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_the_page_asks_for_is_embedded() {
        let name = app::OUTPUT_NAME;
        for path in [
            format!("pkg/{name}.js"),
            format!("pkg/{name}_bg.wasm"),
            format!("pkg/{name}.css"),
            "favicon.svg".to_string(),
            "manifest.webmanifest".to_string(),
        ] {
            assert!(
                Site::get(&path).is_some(),
                "{path} is missing from the embedded site"
            );
        }
    }

    #[test]
    fn this_builds_bundle_path_is_immutable_and_other_builds_are_refused() {
        let name = app::OUTPUT_NAME;
        let versioned = format!("{PKG_DIR}/{name}_bg.wasm");
        assert_eq!(
            resolve(&versioned),
            Some((format!("pkg/{name}_bg.wasm"), true))
        );
        assert!(Site::get(&format!("pkg/{name}_bg.wasm")).is_some());
        // The stylesheet and icons keep their plain, revalidated paths.
        assert_eq!(
            resolve(&format!("pkg/{name}.css")),
            Some((format!("pkg/{name}.css"), false))
        );
        assert_eq!(resolve("favicon.svg"), Some(("favicon.svg".into(), false)));
        let other = format!("pkg/{}/{name}_bg.wasm", "0".repeat(64));
        assert_eq!(resolve(&other), None);
        assert_eq!(resolve(&format!("{PKG_DIR}x/{name}.js")), None);
    }

    #[test]
    fn content_types_carry_charsets_for_text() {
        assert_eq!(content_type("text/css"), "text/css; charset=utf-8");
        assert_eq!(
            content_type("text/javascript"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("application/wasm"), "application/wasm");
    }
}
