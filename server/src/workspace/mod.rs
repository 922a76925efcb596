//! The user's workspace as files: the one confinement resolver every path
//! goes through (`confine`). Below both the runtime and the agent, so the
//! API's workspace views and the tools share it.

pub mod confine;
pub mod snapshots;
