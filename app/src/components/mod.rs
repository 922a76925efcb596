mod connection_check;
mod error_notice;
mod sign_in;
mod workbench_view;

pub use connection_check::ConnectionCheck;
pub use error_notice::ErrorNotice;
pub use sign_in::SignIn;
pub use workbench_view::WorkbenchView;
