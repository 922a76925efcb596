//! Authentication: runtime tokens, the `codewhale web` bootstrap exchange and
//! session, and the middleware that applies one set of rules to every route.

mod attempts;
mod credentials;
mod host;
mod middleware;
mod secret;
pub mod sessions;
mod viewer;
mod web_session;

pub use attempts::Attempts;
pub use host::{check_host, HostPolicy};
pub use middleware::{authenticate, device_expiry};
pub use secret::{random_secret, RuntimeToken};
pub use sessions::{Owner, SessionStores, SESSION_COOKIE};
pub use viewer::{current_device, DeviceId, Viewer};
pub use web_session::{BootstrapRefusal, WebAuth};

/// Who may ask, and from where: what `check_host` and `authenticate`
/// enforce, fixed when the process starts.
pub struct Gate {
    /// `None` only for an explicitly insecure loopback server.
    pub token: Option<RuntimeToken>,
    /// Present in `codewhale web` mode only.
    pub web: Option<WebAuth>,
    /// CORS origins: the built-in allow-list plus configured ones.
    pub cors_origins: Vec<String>,
    /// The `Host` names requests may carry (DNS-rebinding defence).
    pub hosts: HostPolicy,
    /// `--mobile`: paired devices' sessions count, `/mobile` is served.
    pub mobile: bool,
    /// "https" under TLS, else "http": the scheme of this server's origins.
    pub scheme: &'static str,
    /// Failed pairing attempts, per peer.
    pub attempts: Attempts,
}
