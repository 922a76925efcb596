//! Server functions: the browser's calls into the server. Their HTTP routes
//! live under `/api/`, which the server's auth middleware protects; during
//! server-side rendering they run in-process and check the viewer themselves.

mod background;
mod changes;
#[cfg(feature = "hydrate")]
mod clicks;
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
// In the browser, the calls only a user's action makes go through a chunk
// of the bundle (`clicks.rs`); these names shadow the server functions'
// own from the globs above.
#[cfg(feature = "hydrate")]
pub use clicks::{
    answer_user_input, apply_finding, create_pairing, create_thread, decide_approval,
    edit_last_prompt, fork_at_message, fork_thread, interrupt_turn, restore_files, retry_last_turn,
    revert_action, start_turn, steer_turn, update_thread,
};
