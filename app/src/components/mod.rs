mod connection_check;
mod error_notice;
mod sign_in;
mod usage_chart;
mod workbench_view;

pub use connection_check::ConnectionCheck;
pub use error_notice::ErrorNotice;
pub use sign_in::SignIn;
pub use usage_chart::{format_tokens, format_usd, UsageChart};
pub use workbench_view::WorkbenchView;
