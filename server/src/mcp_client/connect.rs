//! Starting or reaching one MCP server (`rmcp` client): a child process
//! over stdio, or a streamable-HTTP endpoint.
//!
//! A stdio server gets the scrubbed environment of every child
//! (`child::env`) plus only the variables its configuration names, and
//! runs in its own process group, killed whole when the connection drops
//! (`npx` servers are a tree, and rmcp's own shutdown only closes stdin
//! and reaps the leader). Its stderr is discarded: servers print their
//! configuration there, secrets included, and a log is no place for them.

use rmcp::{
    service::RunningService,
    transport::{
        streamable_http_client::StreamableHttpClientTransportConfig, StreamableHttpClientTransport,
        TokioChildProcess,
    },
    RoleClient, ServiceExt,
};
use std::{collections::HashMap, path::PathBuf, process::Stdio, time::Duration};

/// How long a server gets to start and answer `initialize`.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// One server as configured (by an ACP client's session/new, or config).
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSpec {
    pub name: String,
    pub transport: Transport,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<PathBuf>,
    },
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

pub type Service = RunningService<RoleClient, ()>;

/// A connected server, and for a stdio one the kill of its group.
pub struct Started {
    pub service: Service,
    pub group: Option<GroupKill>,
}

/// SIGKILLs the process group when dropped.
pub struct GroupKill(i32);

impl Drop for GroupKill {
    fn drop(&mut self) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.0),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Connects and completes the MCP handshake within `timeout`.
pub async fn connect(spec: &ServerSpec, timeout: Duration) -> Result<Started, String> {
    let started = async {
        match &spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => stdio(command, args, env, cwd.as_ref()).await,
            Transport::Http { url, headers } => Ok(Started {
                service: http(url, headers).await?,
                group: None,
            }),
        }
    };
    tokio::time::timeout(timeout, started)
        .await
        .map_err(|_| format!("did not answer within {} s", timeout.as_secs()))?
}

async fn stdio(
    command: &str,
    args: &[String],
    env: &[(String, String)],
    cwd: Option<&PathBuf>,
) -> Result<Started, String> {
    let mut process = tokio::process::Command::new(command);
    crate::child::env::apply(process.as_std_mut());
    process.args(args).envs(env.iter().map(|(k, v)| (k, v)));
    if let Some(cwd) = cwd {
        process.current_dir(cwd);
    }
    let mut wrapped = process_wrap::tokio::CommandWrap::from(process);
    wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
    let (transport, _) = TokioChildProcess::builder(wrapped)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {command}: {e}"))?;
    // The leader's pid is the group's id (ProcessGroup::leader).
    let group = transport.id().map(|pid| GroupKill(pid as i32));
    let service = ().serve(transport).await.map_err(|e| e.to_string())?;
    Ok(Started { service, group })
}

async fn http(url: &str, headers: &[(String, String)]) -> Result<Service, String> {
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let name = http::HeaderName::try_from(name.as_str())
            .map_err(|_| format!("{name:?} is not a valid header name"))?;
        let value = http::HeaderValue::try_from(value.as_str())
            .map_err(|_| format!("the {name} header's value is not valid"))?;
        custom.insert(name, value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.custom_headers = custom;
    let transport = StreamableHttpClientTransport::from_config(config);
    ().serve(transport).await.map_err(|e| e.to_string())
}
