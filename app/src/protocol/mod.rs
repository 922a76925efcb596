//! Wire types shared by the browser, the server and external `/v1` clients.

mod error;
mod runtime;
mod workbench;

pub use error::{ErrorBody, ErrorEnvelope};
pub use runtime::{Capabilities, Health, RuntimeInfo, RUNTIME_API_VERSION, SERVICE_NAME};
pub use workbench::{Ping, Workbench};
