//! The service layer: every rule about threads, turns and events lives here,
//! and every transport (/v1 handlers, server functions, stdio) calls it.

pub mod approvals;
pub mod client_tools;
pub mod engine;
pub mod git;
pub mod ids;
pub mod pending;
pub mod stream;
pub mod threads;
pub mod turn_writer;
pub mod turns;
pub mod usage;
pub mod user_input;
