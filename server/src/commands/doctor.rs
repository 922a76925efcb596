//! `codewhale doctor`: what this installation has and lacks (the report
//! itself is `crate::doctor`). Always exits 0 once it can say where the
//! home is: a missing piece is a finding, not a failure.

#![allow(clippy::print_stdout)] // stdout is this command's output

use super::current_dir;
use crate::{cli::DoctorArgs, doctor, error::RunError, home};
use std::io::IsTerminal;

pub async fn run(args: DoctorArgs) -> Result<(), RunError> {
    // Never created here: doctor on a fresh machine leaves no trace.
    let home = home::path()?;
    let workspace = match args.workspace {
        Some(dir) => dir,
        None => current_dir()?,
    };
    let report = doctor::gather(&home, &workspace, args.offline).await;
    if args.json {
        let json = serde_json::to_string_pretty(&report)
            .map_err(|e| RunError::Config(format!("cannot encode the report: {e}")))?;
        println!("{json}");
    } else {
        let colour = doctor::render::use_colour(std::io::stdout().is_terminal());
        print!("{}", doctor::render::text(&report, colour));
    }
    Ok(())
}
