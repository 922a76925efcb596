//! codewhale's server: CLI, HTTP router, auth and embedded browser assets.
//! The binary (`main.rs`) is a thin shell over this library so that tests can
//! drive the real router.

pub mod assets;
pub mod auth;
pub mod cli;
pub mod error;
pub mod headers;
pub mod router;
pub mod routes;
pub mod state;
pub mod web;
