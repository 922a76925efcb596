//! `RunError`: a command that cannot start or keep running (bad flags or
//! config, a port in use, a store that will not open).

use crate::store::StoreError;
use std::process::ExitCode;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(
        "port {port} on {host} is already in use; stop the other process or choose another --port"
    )]
    PortInUse { host: String, port: u16 },
    #[error("cannot listen on {host}:{port}: {source}")]
    Bind {
        host: String,
        port: u16,
        source: std::io::Error,
    },
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the server stopped: {0}")]
    Serve(std::io::Error),
}

impl RunError {
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::FAILURE
    }
}
