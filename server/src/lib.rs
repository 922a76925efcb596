//! codewhale's server: CLI, HTTP router, auth, the runtime store and service
//! layer, and the embedded browser assets. The binary (`main.rs`) is a thin
//! shell over this library so that tests can drive the real router.

pub mod agent;
pub mod app_server;
pub mod assets;
pub mod auth;
pub mod child;
pub mod cli;
pub mod clock;
pub mod config;
pub mod cors;
pub mod error;
pub mod exec;
pub mod extract;
pub mod headers;
pub mod home;
pub mod pricing;
pub mod provider;
pub mod router;
pub mod routes;
pub mod runtime;
pub mod server;
pub mod server_fn_edge;
pub mod state;
pub mod store;
pub mod web;
pub mod web_service;
