//! The selected thread, kept current in the browser.

// Applying events runs in the browser (and in tests), not on the server.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
mod state;
// Older items of a long thread, fetched after the page opens.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
mod paging;
#[cfg(feature = "hydrate")]
pub mod stream;

#[cfg(feature = "hydrate")]
pub use paging::fetch_older;
pub use state::{Connection, Entry, Live};

/// Items a thread page holds at first: the newest ones. Older items are
/// fetched once the page is interactive and shown a page at a time as the
/// reader scrolls up, so a page costs the same at 200 items as at 10,000.
#[cfg_attr(not(feature = "ssr"), allow(dead_code))]
pub const WINDOW: usize = 100;
