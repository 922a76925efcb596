//! The `codewhale` binary.

use clap::Parser;
use codewhale::{app_server, cli, exec, web};
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    init_tracing();
    let outcome = match cli.command {
        cli::Command::Web(args) => web::run(args).await,
        cli::Command::AppServer(args) => app_server::run(args.http, args.insecure_no_auth).await,
        cli::Command::Serve(args) => app_server::run(args.http, args.insecure).await,
        cli::Command::Exec(args) => match exec::run(args).await {
            Ok(code) => return code,
            Err(error) => Err(error),
        },
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("codewhale: {error}");
            error.exit_code()
        }
    }
}

/// Logs go to stderr (stdout carries only what the user asked for).
/// `RUST_LOG` overrides the default level.
fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
