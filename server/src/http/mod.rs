//! The HTTP edge: everything between a socket and the runtime. Requests
//! pass, outermost first, security headers → Host check → CORS → sessions → auth →
//! the server-function edge → body limit → a route (`router.rs`).

pub mod assets;
pub mod auth;
pub mod cors;
pub mod error;
pub mod extract;
pub mod guard;
pub mod headers;
pub mod lan;
pub mod openapi;
pub mod pairing;
pub mod router;
pub mod routes;
pub mod serve;
pub mod server_fn_edge;
pub mod sse;
pub mod state;
pub mod tls;
pub mod web_service;
