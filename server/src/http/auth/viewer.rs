//! Who is asking. The auth middleware decides this once per request and
//! stores it in the request extensions; everything after it (the page
//! renderer, which decides whether to hand the app the runtime) reads it
//! from there, so the rule is never written twice.

use axum::http::request::Parts;

/// The credential a request was authenticated with, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// No valid credential (or a web session cookie used against the origin rules).
    Anonymous,
    /// The `codewhale_web_session` cookie of a `codewhale web` process.
    WebSession,
    /// The runtime token, by bearer, header or cookie.
    RuntimeToken,
    /// Anyone on loopback: a server started with --insecure-no-auth.
    NoAuth,
}

impl Viewer {
    pub fn is_authenticated(self) -> bool {
        !matches!(self, Viewer::Anonymous)
    }

    /// The viewer of the request being rendered or served (Anonymous when the
    /// middleware did not run, so a missing layer fails closed).
    pub fn current() -> Viewer {
        leptos::prelude::use_context::<Parts>()
            .and_then(|parts| parts.extensions.get::<Viewer>().copied())
            .unwrap_or(Viewer::Anonymous)
    }
}
