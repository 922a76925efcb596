//! The user's workspace as files: the one confinement resolver every path
//! goes through (`confine`), and the read-only views the API serves
//! (`browse`, `file`, `diff`), and snapshots (`snapshots`: the side
//! repository and restores written through confinement). Below both the runtime and the agent, so the
//! API's workspace views and the tools share it.

pub mod browse;
pub mod confine;
pub mod diff;
pub mod file;
pub mod snapshots;

use confine::{ConfineError, Refusal};

/// Why a workspace view could not be shown, by the answer it deserves.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The path leads outside the workspace (403).
    #[error("{0}")]
    Outside(String),
    /// Nothing is at the path (404).
    #[error("{0}")]
    Missing(String),
    /// The path or workspace is not what the view needs: a file where a
    /// directory was asked, a workspace that is gone or not a repository,
    /// an unreadable file, git failing (409).
    #[error("{0}")]
    Conflict(String),
}

impl From<ConfineError> for ViewError {
    fn from(e: ConfineError) -> Self {
        match e.1 {
            Refusal::Outside => ViewError::Outside(e.0),
            Refusal::Missing => ViewError::Missing(e.0),
            Refusal::Unusable => ViewError::Conflict(e.0),
        }
    }
}
