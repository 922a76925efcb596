//! Server functions: the browser's calls into the server. Their HTTP routes
//! live under `/api/`, which the server's auth middleware protects; during
//! server-side rendering they run in-process and check the viewer themselves.

mod background;
mod changes;
mod devices;
mod fleet;
mod json;
mod mcp;
mod sessions;
mod skills;
mod threads;
mod usage;
mod workbench;

pub use background::*;
pub use changes::*;
pub use devices::*;
pub use fleet::*;
pub use json::{from_text, record, Json};
pub use mcp::*;
pub use sessions::*;
pub use skills::*;
pub use threads::*;
pub use usage::*;
pub use workbench::{check_connection, load_workbench, CheckConnection, LoadWorkbench};
