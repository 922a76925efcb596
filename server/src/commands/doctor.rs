//! `codewhale doctor`: what this installation has and lacks.

use crate::error::RunError;

pub async fn run(args: crate::cli::DoctorArgs) -> Result<(), RunError> {
    let _ = args;
    Err(RunError::Config(
        "this transport is being built (issue 15)".into(),
    ))
}
