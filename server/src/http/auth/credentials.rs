//! Reading credentials off a request and deciding who is asking. The
//! browser-origin rules for cookie authentication live here and only here.

use super::sessions::Owner;
use super::{Gate, Viewer};
use crate::http::{cors, error::ApiError};
use axum::http::{header, HeaderMap, Method};

const RUNTIME_TOKEN_COOKIE: &str = "codewhale_runtime_token";
const TOKEN_HEADERS: [&str; 2] = ["x-codewhale-runtime-token", "x-deepseek-runtime-token"];

/// What kind of request is being identified.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// `/v1` and server functions: a cookie needs the exact web origin.
    Api,
    /// A page load: a user-initiated navigation (`Sec-Fetch-Site: none`) may
    /// carry the session too; anything cross-origin is treated as signed out.
    Page,
}

/// True when the request names a token in a header: it is judged by that
/// alone, and its session (if any) is never loaded.
pub fn has_header_token(headers: &HeaderMap) -> bool {
    headers.contains_key(header::AUTHORIZATION)
        || TOKEN_HEADERS.iter().any(|name| headers.contains_key(*name))
}

/// Who is asking. `owner` is whose session the request's session cookie
/// names, if any. `Err` means a credential was presented and refused.
pub fn identify(
    gate: &Gate,
    kind: RequestKind,
    method: &Method,
    headers: &HeaderMap,
    owner: Option<&Owner>,
) -> Result<Viewer, ApiError> {
    // An explicit token (bearer or header) is judged on its own: a wrong one
    // is refused even if a valid cookie rides along.
    if let Some(token) = header_token(headers)? {
        let valid = gate.token.as_ref().is_some_and(|t| t.matches(token));
        return if valid {
            Ok(Viewer::RuntimeToken)
        } else {
            Err(ApiError::Unauthorized("runtime API token is not valid"))
        };
    }
    let session = owner.and_then(|owner| match owner {
        Owner::Workbench => gate
            .web
            .as_ref()
            .is_some_and(|web| web.session_is_live())
            .then_some(Viewer::WebSession),
        // Devices are paired only to a server that lets them in.
        Owner::Device { .. } => gate.mobile.then_some(Viewer::Device),
    });
    let Some(viewer) = session.or_else(|| token_cookie_viewer(gate, headers)) else {
        return Ok(Viewer::Anonymous);
    };
    // Browsers attach cookies to cross-site requests; only the server's own
    // pages may use them, whichever cookie it is and whatever the mode.
    let own = own_origin(gate, viewer, headers);
    check_browser_origin(own.as_deref(), kind, method, headers)?;
    Ok(viewer)
}

/// A server that asks for no token (`--insecure-no-auth`) trusts whoever
/// reaches it, so a web page must not: a present `Origin` must be the
/// server's own or an allowed CORS origin, and a change without one must
/// not be marked cross-site by the browser. (Browsers send `Origin` on every
/// cross-origin and every non-GET request, including the form posts that
/// need no preflight.) Origins the user listed for CORS may be cross-site
/// by design; the built-in development origins may not.
pub fn check_open_access(
    gate: &Gate,
    method: &Method,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
    match headers.get(header::ORIGIN) {
        Some(origin) => {
            let origin = origin.as_bytes();
            let own = own_origin(gate, Viewer::NoAuth, headers)
                .is_some_and(|own| own.as_bytes() == origin);
            // Only origins the user listed: the built-in dev origins
            // (`localhost:3000`…) are whatever happens to run there.
            let listed = gate
                .cors_origins
                .iter()
                .filter(|allowed| !cors::BUILT_IN.contains(&allowed.as_str()))
                .any(|allowed| allowed.as_bytes() == origin);
            if own || listed {
                Ok(())
            } else {
                Err(ApiError::Forbidden(
                    "request refused: its Origin is neither this server nor an allowed CORS origin",
                ))
            }
        }
        None if is_safe(method) => Ok(()),
        None => match headers.get("sec-fetch-site").map(|v| v.as_bytes()) {
            Some(b"same-origin" | b"none") | None => Ok(()),
            Some(_) => Err(ApiError::Forbidden(
                "cross-site request refused: Sec-Fetch-Site must be same-origin",
            )),
        },
    }
}

/// The origin the asking page must have been served from. The workbench's
/// is fixed (`http(s)://127.0.0.1:port`, where its sign-in link points). A
/// phone reaches the server by whichever of its addresses or configured
/// names the phone used: its page's origin is the scheme this server
/// serves plus that `Host`, which `check_host` has already matched against
/// the bound addresses and configured names (so the Host alone is never
/// trusted). Other cookies follow the workbench when there is one.
fn own_origin(gate: &Gate, viewer: Viewer, headers: &HeaderMap) -> Option<String> {
    if let (Some(web), false) = (&gate.web, viewer == Viewer::Device) {
        return Some(web.origin().to_string());
    }
    let host = headers.get(header::HOST)?.to_str().ok()?;
    Some(format!("{}://{host}", gate.scheme))
}

/// `Authorization: Bearer …` or one of the runtime-token headers.
fn header_token(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    if let Some(value) = headers.get(header::AUTHORIZATION) {
        let value = value
            .to_str()
            .map_err(|_| ApiError::Unauthorized("Authorization header is not valid text"))?;
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .ok_or(ApiError::Unauthorized(
                "Authorization must use the Bearer scheme",
            ))?;
        return Ok(Some(token.trim()));
    }
    for name in TOKEN_HEADERS {
        if let Some(value) = headers.get(name) {
            let token = value
                .to_str()
                .map_err(|_| ApiError::Unauthorized("runtime token header is not valid text"))?;
            return Ok(Some(token.trim()));
        }
    }
    Ok(None)
}

/// The `codewhale_runtime_token` cookie, for clients that set it themselves.
fn token_cookie_viewer(gate: &Gate, headers: &HeaderMap) -> Option<Viewer> {
    let token = gate.token.as_ref()?;
    let valid = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| cookie::Cookie::split_parse(value).flatten())
        .any(|cookie| cookie.name() == RUNTIME_TOKEN_COOKIE && token.matches(cookie.value()));
    valid.then_some(Viewer::RuntimeToken)
}

/// A cookie-authenticated request must come from the server's own origin.
/// Refusals are 403, never a silent downgrade, for API calls.
fn check_browser_origin(
    own_origin: Option<&str>,
    kind: RequestKind,
    method: &Method,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
    let fetch_site = headers.get("sec-fetch-site").map(|v| v.as_bytes());
    let navigation_allowed = kind == RequestKind::Page && fetch_site == Some(b"none");
    if fetch_site.is_some_and(|site| site != b"same-origin") && !navigation_allowed {
        return Err(ApiError::Forbidden(
            "cross-origin request refused: Sec-Fetch-Site must be same-origin",
        ));
    }
    match headers.get(header::ORIGIN) {
        Some(origin) if own_origin.is_none_or(|own| origin.as_bytes() != own.as_bytes()) => {
            Err(ApiError::Forbidden(
                "request refused: its Origin is not this codewhale server's origin",
            ))
        }
        Some(_) => Ok(()),
        None if is_safe(method) => Ok(()),
        None => Err(ApiError::Forbidden(
            "request refused: a cookie-authenticated change must carry an Origin header",
        )),
    }
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}
