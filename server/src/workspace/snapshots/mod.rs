//! Snapshots of a workspace's files: the side repository that records them
//! (`side_repo`) and the confined writes that put them back (`apply`). The
//! rules (when to snapshot, compare-and-swap, undo) live in
//! `runtime::snapshots`; this is the mechanism.

pub mod apply;
pub mod side_repo;

pub use apply::{apply, Applied};
pub use side_repo::{Change, Entry, SideRepo};
