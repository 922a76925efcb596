//! The `codewhale` binary.

use clap::Parser;
use codewhale::{
    cli,
    commands::{acp, app_server, diagnostics, doctor, exec, mcp_server, openapi, pair, stdio, web},
};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    init_tracing();
    // rustls' crypto provider for every HTTP client (providers, MCP over
    // HTTP, pairing): cheap, and it must precede the first client built.
    codewhale::provider::install_tls();
    // `app-server --workers N` sizes the async runtime; others take tokio's
    // default (one worker per core).
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    match &cli.command {
        cli::Command::AppServer(args) => builder.worker_threads(args.http.worker_threads()),
        cli::Command::Serve(args) => builder.worker_threads(args.http.worker_threads()),
        _ => &mut builder,
    };
    match builder.enable_all().build() {
        Ok(runtime) => {
            let code = runtime.block_on(run(cli));
            // Everything a command owns is finished when `run` returns; a
            // blocking read of stdin (the stdio transports) would otherwise
            // keep the process alive until the client closes its end.
            runtime.shutdown_background();
            code
        }
        Err(error) => {
            eprintln!("codewhale: cannot start the async runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: cli::Cli) -> ExitCode {
    let outcome = match cli.command {
        cli::Command::Web(args) => web::run(args).await,
        cli::Command::AppServer(args) => serve(args.http, args.insecure_no_auth).await,
        cli::Command::Serve(args) => serve(args.http, args.insecure).await,
        cli::Command::Acp(args) => acp::run(args.workspace).await,
        cli::Command::Doctor(args) => doctor::run(args).await,
        cli::Command::Diagnostics(command) => diagnostics::run(command).await,
        cli::Command::Pair(args) => pair::run(args).await,
        cli::Command::Openapi(args) => openapi::run(args),
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

/// `app-server` and `serve`: HTTP, or one of the stdio protocols.
async fn serve(args: cli::HttpArgs, insecure: bool) -> Result<(), codewhale::error::RunError> {
    match args.transport() {
        cli::Transport::Http => app_server::run(args, insecure).await,
        cli::Transport::Stdio => stdio::run(args.workspace).await,
        cli::Transport::Acp => acp::run(args.workspace).await,
        cli::Transport::Mcp => mcp_server::run(args.workspace, args.allow_agent).await,
    }
}

/// Logs go to stderr (stdout carries only what the user asked for).
/// `RUST_LOG` overrides the default level.
fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Whatever RUST_LOG says: the protocol crates log whole messages at
    // trace (answers to the agent's questions, URLs with credentials), and
    // rmcp logs every server notification at info (a server can flood us);
    // tower-sessions opens an info span on every request.
    let filter = [
        "agent_client_protocol=info",
        "rmcp=warn",
        "tower_sessions=warn",
        "tower_sessions_core=warn",
    ]
    .into_iter()
    .filter_map(|directive| directive.parse().ok())
    .fold(filter, |filter, directive| filter.add_directive(directive));
    // Colour only for a person: an editor or supervisor reading stderr of
    // a stdio transport gets plain lines.
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .init();
}
