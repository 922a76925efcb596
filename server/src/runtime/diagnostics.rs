//! The value-free configuration report, for the API (the CLI reads it
//! without a runtime).

use super::{error::RuntimeError, Runtime};
use protocol::ConfigDiagnostics;

impl Runtime {
    pub async fn config_diagnostics(&self) -> Result<ConfigDiagnostics, RuntimeError> {
        let home = self.home.clone();
        tokio::task::spawn_blocking(move || crate::diagnostics::config_report::report(&home))
            .await
            .map_err(|e| RuntimeError::Internal(e.to_string()))
    }
}
