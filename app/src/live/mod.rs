//! The selected thread, kept current in the browser.

// Applying events runs in the browser (and in tests), not on the server.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
mod state;
#[cfg(feature = "hydrate")]
pub mod stream;

pub use state::{Connection, Entry, Live};
