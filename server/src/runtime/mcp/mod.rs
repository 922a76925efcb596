//! MCP servers from `config.toml` (`[mcp.servers.NAME]`): the
//! `/v1/apps/mcp` operations (`config.rs` keeps the file, `pool.rs` the
//! running servers) and the tools a turn is offered. Every turn reads the
//! configuration afresh, starts what it needs (bounded by each server's
//! start-up timeout) and gets the ready servers' tools as
//! `mcp__<server>__<tool>`, asked for unless the server is trusted.
//!
//! Environment and header values never leave the file: records name them.

pub mod config;
mod pool;

use super::{error::RuntimeError, Runtime};
use crate::{
    mcp_client::{self, McpTools},
    runtime::hosted_tools::ExtraTools,
};
use config::{Edit, ServerEntry, ServerFile};
use pool::{Pool, Use};
use protocol::{
    CreateMcpServer, ListMcpTools, McpServerRecord, McpServers, McpToolRecord, McpTransport,
    PatchMcpServer,
};
use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

/// How long a tools listing or a reload waits for servers to start before
/// answering with them still `starting`.
const LISTING_WAIT: Duration = Duration::from_secs(2);

/// The configured servers: the file and the running connections.
pub struct McpServersHost {
    file: ServerFile,
    pool: Pool,
}

impl McpServersHost {
    pub fn new(home: &Path, default_cwd: PathBuf) -> Self {
        Self {
            file: ServerFile::new(home),
            pool: Pool::new(default_cwd),
        }
    }

    async fn read(&self) -> Result<BTreeMap<String, ServerEntry>, RuntimeError> {
        let file = self.file.clone();
        tokio::task::spawn_blocking(move || file.read())
            .await
            .map_err(|e| RuntimeError::Internal(e.to_string()))?
            .map_err(RuntimeError::Conflict)
    }

    /// The tools of every enabled server, for one turn: servers not running
    /// are started and waited on (each within its start-up timeout); one
    /// that fails is left out (its record says why). `None`: none.
    pub async fn turn_tools(&self, honour_trust: bool) -> Option<Arc<dyn ExtraTools>> {
        let entries = match self.read().await {
            Ok(entries) => entries,
            Err(error) => {
                tracing::warn!(%error, "the MCP servers' configuration cannot be read; none offered");
                return None;
            }
        };
        let enabled: Vec<_> = entries.into_iter().filter(|(_, e)| e.enabled).collect();
        if enabled.is_empty() {
            return None;
        }
        let ready = futures::future::join_all(enabled.iter().map(|(name, entry)| async move {
            match self.pool.use_server(name, entry, false) {
                Use::Ready(server) => Some(server),
                Use::Starting(starting) => starting.await.ok(),
                Use::Failed => None,
            }
        }))
        .await;
        let offered: Vec<_> = enabled
            .iter()
            .zip(ready)
            .filter_map(|((name, entry), server)| {
                Some((server?, self.pool.policy(name, entry, honour_trust)))
            })
            .collect();
        let tools = McpTools::offer(offered);
        (!tools.is_empty()).then(|| Arc::new(tools) as Arc<dyn ExtraTools>)
    }

    /// Ends every server this process started (it is shutting down).
    pub fn stop_all(&self) {
        self.pool.stop_all();
    }

    fn record(&self, name: &str, entry: &ServerEntry) -> McpServerRecord {
        let standing = self.pool.standing(name, entry);
        let secrets = entry.secrets();
        let (last_error, last_error_at) = standing.last_error.unzip();
        McpServerRecord {
            name: name.to_string(),
            transport: match entry.url {
                Some(_) => McpTransport::Http,
                None => McpTransport::Stdio,
            },
            command: entry.command.clone(),
            args: entry
                .args
                .iter()
                .map(|arg| mcp_client::redact(arg, &secrets))
                .collect(),
            cwd: entry.cwd.clone(),
            url: entry.url.as_deref().map(without_credentials),
            env: entry.env.keys().cloned().collect(),
            headers: entry.headers.keys().cloned().collect(),
            trusted: entry.trusted,
            enabled: entry.enabled,
            startup_timeout_seconds: entry.startup_timeout(),
            tool_timeout_seconds: entry.tool_timeout(),
            status: standing.status,
            last_error,
            last_error_at,
            started_at: standing.started_at,
            tool_count: standing.tool_count,
            starts: standing.starts,
        }
    }

    /// Starts what is not running among `names` and waits for them, at
    /// most `LISTING_WAIT` in all.
    async fn warm(&self, entries: &[(String, ServerEntry)], force: bool) {
        let starting: Vec<_> = entries
            .iter()
            .filter(|(_, entry)| entry.enabled)
            .filter_map(
                |(name, entry)| match self.pool.use_server(name, entry, force) {
                    Use::Starting(starting) => Some(starting),
                    Use::Ready(_) | Use::Failed => None,
                },
            )
            .collect();
        if !starting.is_empty() {
            let _ = tokio::time::timeout(LISTING_WAIT, futures::future::join_all(starting)).await;
        }
    }

    async fn change<T: Send + 'static>(
        &self,
        name: &str,
        change: impl FnOnce(Option<ServerEntry>) -> Result<(Option<ServerEntry>, T), Edit>
            + Send
            + 'static,
    ) -> Result<T, RuntimeError> {
        let file = self.file.clone();
        let name = name.to_string();
        tokio::task::spawn_blocking(move || file.update(&name, change))
            .await
            .map_err(|e| RuntimeError::Internal(e.to_string()))?
            .map_err(|edit| match edit {
                Edit::NotFound(m) => RuntimeError::NotFound(m),
                Edit::Invalid(m) | Edit::Conflict(m) | Edit::Damaged(m) => {
                    RuntimeError::Conflict(m)
                }
                Edit::Io(m) => RuntimeError::Internal(m),
            })
    }
}

/// An endpoint as a record shows it: without `user:password@`, query and
/// fragment (any of them may carry a key).
fn without_credentials(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => "…".into(),
    }
}

/// What the request itself gets wrong (400): what the document states.
fn check_request(
    name: &str,
    env: Option<&BTreeMap<String, String>>,
    headers: Option<&BTreeMap<String, String>>,
    timeouts: (Option<u64>, Option<u64>),
) -> Result<(), RuntimeError> {
    if !config::valid_name(name) {
        return Err(RuntimeError::Invalid(format!(
            "a server's name is 1 to {} letters, digits or '-'",
            config::MAX_NAME_CHARS
        )));
    }
    let entry = ServerEntry {
        command: Some("x".into()),
        env: env.cloned().unwrap_or_default(),
        startup_timeout_seconds: timeouts.0,
        tool_timeout_seconds: timeouts.1,
        enabled: true,
        ..Default::default()
    };
    entry.check(name).map_err(RuntimeError::Invalid)?;
    if let Some(headers) = headers {
        let as_http = ServerEntry {
            url: Some("http://127.0.0.1/".into()),
            headers: headers.clone(),
            enabled: true,
            ..Default::default()
        };
        as_http.check(name).map_err(RuntimeError::Invalid)?;
    }
    Ok(())
}

fn not_found(name: &str) -> Edit {
    Edit::NotFound(format!("no MCP server {name:?}"))
}

impl Runtime {
    fn mcp(&self) -> &McpServersHost {
        &self.mcp
    }

    pub async fn list_mcp_servers(&self) -> Result<McpServers, RuntimeError> {
        let entries = self.mcp().read().await?;
        Ok(McpServers {
            servers: entries
                .iter()
                .map(|(name, entry)| self.mcp().record(name, entry))
                .collect(),
        })
    }

    pub async fn mcp_server(&self, name: &str) -> Result<McpServerRecord, RuntimeError> {
        let entries = self.mcp().read().await?;
        let entry = entries
            .get(name)
            .ok_or_else(|| RuntimeError::NotFound(format!("no MCP server {name:?}")))?;
        Ok(self.mcp().record(name, entry))
    }

    /// Adds a server to `config.toml`; it starts when first used.
    pub async fn add_mcp_server(
        &self,
        request: CreateMcpServer,
    ) -> Result<McpServerRecord, RuntimeError> {
        check_request(
            &request.name,
            Some(&request.env),
            Some(&request.headers),
            (
                request.startup_timeout_seconds,
                request.tool_timeout_seconds,
            ),
        )?;
        if request.command.is_some() == request.url.is_some() {
            return Err(RuntimeError::Invalid(
                "give a command (a stdio server) or a url (an HTTP server)".into(),
            ));
        }
        let name = request.name.clone();
        let entry = ServerEntry {
            command: request.command,
            args: request.args,
            env: request.env,
            cwd: request.cwd,
            url: request.url,
            headers: request.headers,
            trusted: request.trusted,
            enabled: request.enabled,
            startup_timeout_seconds: request.startup_timeout_seconds,
            tool_timeout_seconds: request.tool_timeout_seconds,
        };
        let written = entry.clone();
        let taken = name.clone();
        self.mcp()
            .change(&name, move |current| match current {
                Some(_) => Err(Edit::Conflict(format!(
                    "an MCP server named {taken:?} is configured already"
                ))),
                None => Ok((Some(written), ())),
            })
            .await?;
        Ok(self.mcp().record(&name, &entry))
    }

    /// Changes a server; a running one is stopped and starts again, as
    /// changed, on its next use.
    pub async fn patch_mcp_server(
        &self,
        name: &str,
        patch: PatchMcpServer,
    ) -> Result<McpServerRecord, RuntimeError> {
        check_request(
            name,
            patch.env.as_ref(),
            patch.headers.as_ref(),
            (patch.startup_timeout_seconds, patch.tool_timeout_seconds),
        )?;
        let missing = name.to_string();
        let entry = self
            .mcp()
            .change(name, move |current| {
                let mut entry = current.ok_or_else(|| not_found(&missing))?;
                let stdio = entry.url.is_none();
                let wrong = if stdio {
                    patch.url.is_some() || patch.headers.is_some()
                } else {
                    patch.command.is_some()
                        || patch.args.is_some()
                        || patch.env.is_some()
                        || patch.cwd.is_some()
                };
                if wrong {
                    return Err(Edit::Conflict(format!(
                        "{missing:?} is {}; to change how it is reached, delete it and add it again",
                        if stdio { "a stdio server (command, args, env, cwd)" } else { "an HTTP server (url, headers)" }
                    )));
                }
                entry.command = patch.command.or(entry.command);
                entry.args = patch.args.unwrap_or(entry.args);
                entry.env = patch.env.unwrap_or(entry.env);
                entry.cwd = patch.cwd.or(entry.cwd);
                entry.url = patch.url.or(entry.url);
                entry.headers = patch.headers.unwrap_or(entry.headers);
                entry.trusted = patch.trusted.unwrap_or(entry.trusted);
                entry.enabled = patch.enabled.unwrap_or(entry.enabled);
                entry.startup_timeout_seconds =
                    patch.startup_timeout_seconds.or(entry.startup_timeout_seconds);
                entry.tool_timeout_seconds =
                    patch.tool_timeout_seconds.or(entry.tool_timeout_seconds);
                Ok((Some(entry.clone()), entry))
            })
            .await?;
        self.mcp().pool.stop(name);
        Ok(self.mcp().record(name, &entry))
    }

    pub async fn delete_mcp_server(&self, name: &str) -> Result<(), RuntimeError> {
        let missing = name.to_string();
        self.mcp()
            .change(name, move |current| match current {
                Some(_) => Ok((None, ())),
                None => Err(not_found(&missing)),
            })
            .await?;
        self.mcp().pool.forget(name);
        Ok(())
    }

    /// Stops the server and starts it again now (a failed one too, without
    /// waiting out its back-off); answers once it is ready, failed, or
    /// after a couple of seconds still `starting`.
    pub async fn reload_mcp_server(&self, name: &str) -> Result<McpServerRecord, RuntimeError> {
        let entries = self.mcp().read().await?;
        let entry = entries
            .get(name)
            .ok_or_else(|| RuntimeError::NotFound(format!("no MCP server {name:?}")))?;
        if !entry.enabled {
            return Err(RuntimeError::Conflict(format!(
                "{name:?} is switched off; enable it first"
            )));
        }
        self.mcp().pool.stop(name);
        self.mcp()
            .warm(&[(name.to_string(), entry.clone())], true)
            .await;
        Ok(self.mcp().record(name, entry))
    }

    /// The tools of the enabled servers (or of one), starting those not
    /// running; a server still starting after a couple of seconds is listed
    /// `starting` with no tools yet.
    pub async fn mcp_tools(&self, query: ListMcpTools) -> Result<protocol::McpTools, RuntimeError> {
        let entries = self.mcp().read().await?;
        let chosen: Vec<(String, ServerEntry)> = match &query.server {
            Some(name) => {
                let entry = entries
                    .get(name)
                    .ok_or_else(|| RuntimeError::NotFound(format!("no MCP server {name:?}")))?;
                vec![(name.clone(), entry.clone())]
            }
            None => entries.into_iter().collect(),
        };
        self.mcp().warm(&chosen, false).await;
        let mut tools = Vec::new();
        for (name, entry) in chosen.iter().filter(|(_, e)| e.enabled) {
            if let Use::Ready(server) = self.mcp().pool.use_server(name, entry, false) {
                for tool in server.tools() {
                    tools.push(McpToolRecord {
                        server: name.clone(),
                        name: tool.name.to_string(),
                        exposed_name: mcp_client::exposed_name(name, &tool.name),
                        description: tool.description.as_deref().unwrap_or_default().to_string(),
                        input_schema: serde_json::Value::Object((*tool.input_schema).clone()),
                        read_only: mcp_client::declares_read_only(tool),
                        needs_approval: !entry.trusted,
                    });
                }
            }
        }
        let servers = chosen
            .iter()
            .map(|(name, entry)| self.mcp().record(name, entry))
            .collect();
        Ok(protocol::McpTools { tools, servers })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_never_show_credentials_in_a_url() {
        assert_eq!(
            without_credentials("https://me:secret@mcp.example.com/x?key=k#f"),
            "https://mcp.example.com/x"
        );
        assert_eq!(
            without_credentials("http://127.0.0.1:9/mcp"),
            "http://127.0.0.1:9/mcp"
        );
    }

    #[test]
    fn requests_are_checked_before_the_file_is_touched() {
        let env = BTreeMap::from([("OK_NAME".to_string(), "v".to_string())]);
        assert!(check_request("fs", Some(&env), None, (None, None)).is_ok());
        assert!(check_request("no spaces", None, None, (None, None)).is_err());
        let bad = BTreeMap::from([("A-B".to_string(), "v".to_string())]);
        assert!(check_request("fs", Some(&bad), None, (None, None)).is_err());
        let header = BTreeMap::from([("X-Key".to_string(), "line\nbreak".to_string())]);
        assert!(check_request("fs", None, Some(&header), (None, None)).is_err());
        assert!(check_request("fs", None, None, (Some(0), None)).is_err());
    }
}
