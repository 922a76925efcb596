//! Diagnostics that are safe to share: the value-free configuration report
//! (`config_report.rs`; `GET /v1/diagnostics/config`, `codewhale
//! diagnostics config`) and the support bundle (`export.rs`; `codewhale
//! diagnostics export`).

pub mod config_report;
pub mod export;
