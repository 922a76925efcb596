//! Response headers for server-rendered pages: a nonce-based Content Security
//! Policy (no inline script runs without the per-response nonce) and no caching.

use http::{header, HeaderValue};
use leptos::{nonce::use_nonce, prelude::use_context};
use leptos_axum::ResponseOptions;

/// The CSP for an HTML page whose inline scripts carry `nonce`.
pub fn page_csp(nonce: &str) -> String {
    format!(
        "default-src 'none'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
         manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; \
         object-src 'none'"
    )
}

/// Called while the shell renders: attaches the page CSP and cache headers.
pub fn set_page_headers() {
    let (Some(response), Some(nonce)) = (use_context::<ResponseOptions>(), use_nonce()) else {
        return;
    };
    if let Ok(csp) = HeaderValue::from_str(&page_csp(&nonce)) {
        response.insert_header(header::CONTENT_SECURITY_POLICY, csp);
    }
    response.insert_header(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}
