//! Authentication: runtime tokens, the `codewhale web` bootstrap exchange and
//! session, and the middleware that applies one set of rules to every route.

mod credentials;
mod host;
mod middleware;
mod secret;
mod web_session;

pub use host::{check_host, HostPolicy};
pub use middleware::authenticate;
pub use secret::{random_secret, RuntimeToken};
pub use web_session::{BootstrapRefusal, WebAuth, WEB_SESSION_COOKIE};
