//! Command-line interface. A subcommand appears here when it works.

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "codewhale",
    version,
    about = "A local coding-agent runtime with a browser workbench and a durable HTTP/SSE API",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the browser workbench on 127.0.0.1 and open it through a one-time sign-in link.
    Web(WebArgs),
    /// Run the runtime API server (HTTP/SSE under /v1) for SDKs, scripts and other clients.
    AppServer(AppServerArgs),
    /// Same server as `app-server` (compatibility alias; the no-auth flag is --insecure).
    Serve(ServeArgs),
    /// Run one turn headless and print it; the exit code is the turn's outcome.
    Exec(ExecArgs),
    /// Mint a one-time link (and QR code) that pairs a phone with a running `--mobile` server.
    Pair(PairArgs),
    /// Print the OpenAPI 3.1 document of this build's runtime API (what GET /v1/openapi.json serves).
    Openapi(OpenapiArgs),
    /// Speak the Agent Client Protocol over stdio, for editors such as Zed (same as `serve --acp`).
    Acp(AcpArgs),
    /// Check this installation: config, provider, storage, sandbox (`--json` for machines).
    Doctor(DoctorArgs),
    /// Diagnostics safe to share: the configuration without its values, or a support bundle.
    #[command(subcommand)]
    Diagnostics(DiagnosticsCommand),
}

#[derive(Debug, Subcommand)]
pub enum DiagnosticsCommand {
    /// Which layer set each configuration key, and what is wrong (never a value).
    Config {
        /// Print JSON (the shape of GET /v1/diagnostics/config).
        #[arg(long)]
        json: bool,
    },
    /// Write a support bundle (no values, prompts, commands or tool data; paths hashed) and print its path.
    Export,
}

#[derive(Debug, Args)]
pub struct AcpArgs {
    /// The workspace new sessions fall back to when the editor gives no cwd
    /// (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print one JSON object (schema: docs/doctor.schema.json) instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Do not contact the provider.
    #[arg(long)]
    pub offline: bool,
    /// The workspace to report on (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct OpenapiArgs {
    /// Write the document to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct PairArgs {
    /// The running server, as this machine reaches it.
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    pub url: String,
    /// How long the link works: 90s, 5m, 1h (at most 1h).
    #[arg(long, default_value = "5m", value_parser = parse_ttl)]
    pub ttl: std::time::Duration,
    /// The name the paired device starts with (else guessed from its browser).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// The server's runtime token. Prefer CODEWHALE_RUNTIME_TOKEN (or
    /// DEEPSEEK_RUNTIME_TOKEN): a flag is visible to other users in the process list.
    #[arg(long, value_name = "TOKEN")]
    pub auth_token: Option<String>,
}

/// `90s`, `5m`, `1h` or plain seconds.
fn parse_ttl(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration like 90s, 5m or 1h"))?;
    let seconds = match unit {
        "s" => number,
        "m" => number.saturating_mul(60),
        "h" => number.saturating_mul(3600),
        _ => return Err(format!("{text:?} is not a duration like 90s, 5m or 1h")),
    };
    if seconds == 0 || seconds > 3600 {
        return Err("a pairing link lives between 1 second and 1 hour".into());
    }
    Ok(std::time::Duration::from_secs(seconds))
}

#[derive(Debug, Args)]
pub struct ExecArgs {
    /// Provider id (deepseek, openai, or one from config.toml).
    #[arg(long)]
    pub provider: Option<String>,

    /// Model id (default: the provider's default model).
    #[arg(long)]
    pub model: Option<String>,

    /// Workspace directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,

    /// Allow writes and shell commands without asking (otherwise they are denied).
    #[arg(long)]
    pub auto_approve: bool,

    /// text: the answer on stdout, activity on stderr; stream-json: one event envelope per line.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,

    /// What to ask.
    #[arg(required = true)]
    pub prompt: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    StreamJson,
}

#[derive(Debug, Args)]
pub struct WebArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,

    /// Host to bind. The workbench is loopback-only: anything but 127.0.0.1 is refused.
    #[arg(long, default_value = "127.0.0.1", value_parser = parse_web_host)]
    pub host: String,

    /// Print the sign-in link without opening a browser.
    #[arg(long)]
    pub no_open: bool,

    /// Runtime token for /v1 clients (else CODEWHALE_RUNTIME_TOKEN, DEEPSEEK_RUNTIME_TOKEN,
    /// or a generated one that is never shown).
    #[arg(long, value_name = "TOKEN")]
    pub auth_token: Option<String>,

    /// Another host name this server answers to (repeatable), e.g. a name in
    /// /etc/hosts or a tunnel's; also [runtime_api] allowed_hosts in config.toml.
    /// Requests naming any other host are refused (DNS-rebinding defence).
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
}

/// Flags shared by `app-server` and `serve`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["http", "mobile", "stdio", "acp", "mcp"]).multiple(true)))]
pub struct HttpArgs {
    /// Speak JSON-RPC 2.0 (newline-delimited) on stdin/stdout instead of listening:
    /// the control transport for a local supervisor.
    #[arg(long, conflicts_with_all = ["http", "mobile", "acp", "mcp"])]
    pub stdio: bool,

    /// Speak the Agent Client Protocol on stdin/stdout, for editors (same as `codewhale acp`).
    #[arg(long, conflicts_with_all = ["http", "mobile", "mcp"])]
    pub acp: bool,

    /// Serve the workspace's read-only tools as an MCP server on stdin/stdout.
    #[arg(long, conflicts_with_all = ["http", "mobile"])]
    pub mcp: bool,

    /// The workspace of --mcp and --acp (and the default one of --stdio); default: the current directory.
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,

    /// With --mcp: also offer `codewhale_run`, which runs an agent turn in the workspace.
    // `requires = "mcp"` is always met by a flag's default `false`.
    #[arg(long, conflicts_with_all = ["http", "mobile", "stdio", "acp"])]
    pub allow_agent: bool,

    /// Serve the HTTP/SSE runtime API on loopback.
    #[arg(long)]
    pub http: bool,

    /// Also serve phones on the LAN: binds 0.0.0.0 unless --host is given, serves
    /// /mobile and prints a one-time pairing link and QR code.
    #[arg(long)]
    pub mobile: bool,

    /// Host to bind (default 127.0.0.1; 0.0.0.0 with --mobile).
    #[arg(long)]
    pub host: Option<String>,

    /// Serve HTTPS with this certificate chain (PEM), e.g. from mkcert or `tailscale cert`.
    #[arg(
        long,
        value_name = "FILE",
        requires = "tls_key",
        conflicts_with = "tls"
    )]
    pub tls_cert: Option<std::path::PathBuf>,

    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,

    /// `self-signed`: serve HTTPS with a certificate generated once and kept in
    /// $CODEWHALE_HOME/tls (its SHA-256 fingerprint is printed to compare on the phone).
    #[arg(long, value_enum, value_name = "MODE")]
    pub tls: Option<TlsMode>,

    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,

    /// Threads serving requests and running turns (clamped to 1-8).
    #[arg(long, default_value_t = 2)]
    pub workers: u32,

    /// Runtime token (else CODEWHALE_RUNTIME_TOKEN, DEEPSEEK_RUNTIME_TOKEN, or a
    /// generated one that is never shown).
    #[arg(long, value_name = "TOKEN")]
    pub auth_token: Option<String>,

    /// Extra allowed CORS origin (repeatable); also CODEWHALE_CORS_ORIGINS and
    /// [runtime_api] cors_origins in config.toml.
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    pub cors_origins: Vec<String>,

    /// Another host name this server answers to (repeatable), e.g. a name in
    /// /etc/hosts or a tunnel's; also [runtime_api] allowed_hosts in config.toml.
    /// Requests naming any other host are refused (DNS-rebinding defence).
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TlsMode {
    SelfSigned,
}

/// What `app-server`/`serve` runs, from its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// HTTP/SSE (with `--mobile`, also the phone page).
    Http,
    Stdio,
    Acp,
    Mcp,
}

impl HttpArgs {
    pub fn transport(&self) -> Transport {
        if self.stdio {
            Transport::Stdio
        } else if self.acp {
            Transport::Acp
        } else if self.mcp {
            Transport::Mcp
        } else {
            Transport::Http
        }
    }

    /// `--workers`, clamped to 1–8: the async runtime's worker threads.
    pub fn worker_threads(&self) -> usize {
        self.workers.clamp(1, 8) as usize
    }

    /// The bind host: as given, else loopback (all interfaces with --mobile).
    pub fn bind_host(&self) -> String {
        match &self.host {
            Some(host) => host.clone(),
            None if self.mobile => "0.0.0.0".into(),
            None => "127.0.0.1".into(),
        }
    }
}

#[derive(Debug, Args)]
pub struct AppServerArgs {
    #[command(flatten)]
    pub http: HttpArgs,

    /// Serve /v1 without a token (loopback binds only).
    #[arg(long)]
    pub insecure_no_auth: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub http: HttpArgs,

    /// Serve /v1 without a token (loopback binds only).
    #[arg(long)]
    pub insecure: bool,
}

fn parse_web_host(host: &str) -> Result<String, String> {
    if host == "127.0.0.1" {
        Ok(host.to_string())
    } else {
        Err(format!(
            "codewhale web only binds 127.0.0.1 (got {host:?}); the workbench is never exposed beyond this machine"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn web_refuses_non_loopback_hosts() {
        for host in ["0.0.0.0", "localhost", "::1", "192.168.1.2", "127.0.0.2"] {
            let parsed = Cli::try_parse_from(["codewhale", "web", "--host", host]);
            assert!(parsed.is_err(), "{host} must be refused");
        }
        assert!(Cli::try_parse_from(["codewhale", "web", "--host", "127.0.0.1"]).is_ok());
    }

    #[test]
    fn app_server_needs_a_transport() {
        assert!(Cli::try_parse_from(["codewhale", "app-server"]).is_err());
        assert!(Cli::try_parse_from(["codewhale", "app-server", "--http"]).is_ok());
        assert!(Cli::try_parse_from(["codewhale", "serve", "--http", "--insecure"]).is_ok());
    }

    #[test]
    fn stdio_transports_stand_alone() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(args).map(|cli| match cli.command {
                Command::AppServer(a) => a.http.transport(),
                Command::Serve(a) => a.http.transport(),
                _ => unreachable!(),
            })
        };
        assert_eq!(
            parse(&["codewhale", "app-server", "--stdio"]).ok(),
            Some(Transport::Stdio)
        );
        assert_eq!(
            parse(&["codewhale", "serve", "--acp"]).ok(),
            Some(Transport::Acp)
        );
        assert_eq!(
            parse(&["codewhale", "serve", "--mcp", "--allow-agent"]).ok(),
            Some(Transport::Mcp)
        );
        assert!(parse(&["codewhale", "app-server", "--stdio", "--http"]).is_err());
        assert!(parse(&["codewhale", "serve", "--acp", "--mcp"]).is_err());
        assert!(parse(&["codewhale", "serve", "--http", "--allow-agent"]).is_err());
    }
}
