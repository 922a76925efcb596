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
    match Site::get(path) {
        Some(file) if is_read && !path.is_empty() => match precompressed(&request, path) {
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
        _ => not_found(state, request).await,
    }
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
    fn content_types_carry_charsets_for_text() {
        assert_eq!(content_type("text/css"), "text/css; charset=utf-8");
        assert_eq!(
            content_type("text/javascript"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("application/wasm"), "application/wasm");
    }
}
