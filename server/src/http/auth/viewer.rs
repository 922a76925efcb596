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
    /// The workbench session of a `codewhale web` (or `--mobile`) process.
    WebSession,
    /// A paired device's session (its id is in the request's `DeviceId`).
    Device,
    /// The runtime token, by bearer, header or cookie.
    RuntimeToken,
    /// Anyone on loopback: a server started with --insecure-no-auth.
    NoAuth,
}

/// The device a `Viewer::Device` request comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceId(pub String);

impl Viewer {
    pub fn is_authenticated(self) -> bool {
        !matches!(self, Viewer::Anonymous)
    }

    /// Whoever sits at the computer codewhale runs on: its workbench, a
    /// runtime-token holder, or anyone on a no-auth loopback server. Only
    /// they mint pairing links and manage every device (fails closed: a
    /// kind added later is not the computer until said so here).
    pub fn is_computer(self) -> bool {
        matches!(
            self,
            Viewer::WebSession | Viewer::RuntimeToken | Viewer::NoAuth
        )
    }

    /// Who manages devices on this request; `None` for nobody.
    pub fn manager(self, device: Option<&str>) -> Option<crate::runtime::devices::Manager<'_>> {
        use crate::runtime::devices::Manager;
        match (self, device) {
            (Viewer::Device, Some(id)) => Some(Manager::Device(id)),
            (viewer, _) if viewer.is_computer() => Some(Manager::Computer),
            _ => None,
        }
    }

    /// The viewer of the request being rendered or served (Anonymous when the
    /// middleware did not run, so a missing layer fails closed).
    pub fn current() -> Viewer {
        leptos::prelude::use_context::<Parts>()
            .and_then(|parts| parts.extensions.get::<Viewer>().copied())
            .unwrap_or(Viewer::Anonymous)
    }
}

/// The device of the request being rendered or served, if it is one.
pub fn current_device() -> Option<String> {
    leptos::prelude::use_context::<Parts>()
        .and_then(|parts| parts.extensions.get::<DeviceId>().map(|d| d.0.clone()))
}
