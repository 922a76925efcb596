//! The configured MCP servers this process runs: started on first use (a
//! turn, a tools listing, a reload), never at start-up; one start at a
//! time per server, shared by everyone waiting on it. A server that stopped
//! (its process exited, its endpoint closed) is reported and started again
//! on the next use; one that failed to start is tried again after a
//! back-off, so a broken server does not hold up every turn.

use super::config::ServerEntry;
use crate::{
    clock,
    mcp_client::{
        connect::{ServerSpec, Transport},
        Policy, Server,
    },
};
use futures::{
    future::{BoxFuture, Shared},
    FutureExt,
};
use protocol::McpServerStatus;
use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

/// The first wait before a server that failed to start is tried again; it
/// doubles with each failure in a row, up to `MAX_BACKOFF`.
const FIRST_BACKOFF: Duration = Duration::from_secs(5);
const MAX_BACKOFF: Duration = Duration::from_secs(300);

type Starting = Shared<BoxFuture<'static, Result<Arc<Server>, String>>>;

#[derive(Default)]
enum State {
    #[default]
    Idle,
    Starting(Starting),
    Ready {
        server: Arc<Server>,
        since: String,
    },
    Failed {
        retry_at: Instant,
    },
    /// It ran and stopped (crashed, or closed its connection): started
    /// again on the next use, with no back-off.
    Stopped,
}

#[derive(Default)]
struct Slot {
    /// The configuration the current connection or attempt came from: a
    /// changed one starts afresh.
    entry: Option<ServerEntry>,
    state: State,
    last_error: Option<(String, String)>,
    starts: u64,
    failures_in_row: u32,
    /// Which start a late report (a start's end, a failed call) is about.
    generation: u64,
}

/// Where a server stands, for its record.
pub struct Standing {
    pub status: McpServerStatus,
    pub last_error: Option<(String, String)>,
    pub started_at: Option<String>,
    pub tool_count: Option<u64>,
    pub starts: u64,
}

/// What using a server gives now.
pub enum Use {
    Ready(Arc<Server>),
    Starting(Starting),
    /// It failed to start and its back-off has not passed (the record
    /// says why).
    Failed,
}

type Slots = Arc<Mutex<HashMap<String, Slot>>>;

/// Generations are unique across slots and their removal: a late report
/// about a deleted server can never match a new server of the same name.
static GENERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_generation() -> u64 {
    GENERATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// What "stopped" says when the connection is found closed.
const STOPPED: &str = "stopped: the server exited or closed its connection";

pub struct Pool {
    slots: Slots,
    /// A stdio server's directory when its entry names none.
    default_cwd: PathBuf,
}

impl Pool {
    pub fn new(default_cwd: PathBuf) -> Self {
        Pool {
            slots: Default::default(),
            default_cwd,
        }
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.slots
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The server, started if it is not running (`force`: even within its
    /// back-off, as a reload asks).
    pub fn use_server(&self, name: &str, entry: &ServerEntry, force: bool) -> Use {
        let mut slots = self.slots();
        let slot = slots.entry(name.to_string()).or_default();
        if slot.entry.as_ref() != Some(entry) {
            // A new configuration: what ran under the old one goes.
            *slot = Slot {
                starts: slot.starts,
                last_error: slot.last_error.take(),
                generation: next_generation(),
                ..Slot::default()
            };
            slot.entry = Some(entry.clone());
        }
        match &slot.state {
            State::Ready { server, .. } if !server.is_closed() => {
                return Use::Ready(server.clone());
            }
            State::Ready { .. } => {
                slot.last_error = Some((STOPPED.into(), clock::now()));
            }
            State::Stopped => {}
            State::Starting(starting) => return Use::Starting(starting.clone()),
            State::Failed { retry_at } if !force && Instant::now() < *retry_at => {
                return Use::Failed;
            }
            State::Failed { .. } | State::Idle => {}
        }
        slot.generation = next_generation();
        slot.starts += 1;
        let starting = self.start(name, entry, slot.generation);
        slot.state = State::Starting(starting.clone());
        Use::Starting(starting)
    }

    /// Starts the server in its own task (a waiter that gives up does not
    /// stop it), and records how it went.
    fn start(&self, name: &str, entry: &ServerEntry, generation: u64) -> Starting {
        let spec = self.spec(name, entry);
        let secrets = entry.secrets();
        let timeout = Duration::from_secs(entry.startup_timeout());
        let slots = self.slots.clone();
        let name = name.to_string();
        let task = tokio::spawn(async move {
            let result = Server::start(&spec, timeout)
                .await
                .map(Arc::new)
                .map_err(|error| crate::mcp_client::redact(&error, &secrets));
            let mut slots = slots.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(slot) = slots.get_mut(&name).filter(|s| s.generation == generation) {
                match &result {
                    Ok(server) => {
                        slot.failures_in_row = 0;
                        slot.state = State::Ready {
                            server: server.clone(),
                            since: clock::now(),
                        };
                        tracing::info!(server = %name, tools = server.tools().len(), "MCP server ready");
                    }
                    Err(error) => {
                        slot.failures_in_row += 1;
                        let backoff = FIRST_BACKOFF
                            .saturating_mul(1 << (slot.failures_in_row - 1).min(8))
                            .min(MAX_BACKOFF);
                        slot.state = State::Failed {
                            retry_at: Instant::now() + backoff,
                        };
                        slot.last_error = Some((error.clone(), clock::now()));
                        tracing::warn!(server = %name, %error, "an MCP server did not start");
                    }
                }
            }
            result
        });
        async move {
            task.await
                .unwrap_or_else(|_| Err("starting the server crashed".into()))
        }
        .boxed()
        .shared()
    }

    fn spec(&self, name: &str, entry: &ServerEntry) -> ServerSpec {
        let transport = match (&entry.command, &entry.url) {
            (_, Some(url)) => Transport::Http {
                url: url.clone(),
                headers: entry.headers.clone().into_iter().collect(),
            },
            (command, None) => Transport::Stdio {
                command: command.clone().unwrap_or_default(),
                args: entry.args.clone(),
                env: entry.env.clone().into_iter().collect(),
                cwd: Some(
                    entry
                        .cwd
                        .as_ref()
                        .map(PathBuf::from)
                        .unwrap_or_else(|| self.default_cwd.clone()),
                ),
            },
        };
        ServerSpec {
            name: name.to_string(),
            transport,
        }
    }

    /// How calls to this server's tools go, and who hears of a failed one.
    /// `honour_trust`: false where nobody could have been asked, so even a
    /// trusted server's tools are put to an approval (denied at once).
    pub fn policy(&self, name: &str, entry: &ServerEntry, honour_trust: bool) -> Policy {
        let generation = self.slots().get(name).map_or(0, |s| s.generation);
        let slots = self.slots.clone();
        let server = name.to_string();
        Policy {
            trusted: Some(entry.trusted && honour_trust),
            secrets: entry.secrets().into(),
            call_timeout: Duration::from_secs(entry.tool_timeout()),
            on_failure: Some(Arc::new(move |error: &str, closed: bool| {
                let mut slots = slots.lock().unwrap_or_else(|p| p.into_inner());
                let Some(slot) = slots
                    .get_mut(&server)
                    .filter(|s| s.generation == generation)
                else {
                    return;
                };
                slot.last_error = Some((error.to_string(), clock::now()));
                if closed {
                    // Started again on the next use.
                    slot.state = State::Stopped;
                    tracing::warn!(server = %server, %error, "an MCP server stopped");
                }
            })),
        }
    }

    /// Where the server stands (nothing is started). A connection found
    /// closed is let go here, so its process group is killed while its id
    /// still names it.
    pub fn standing(&self, name: &str, entry: &ServerEntry) -> Standing {
        let mut slots = self.slots();
        if let Some(slot) = slots.get_mut(name) {
            if matches!(&slot.state, State::Ready { server, .. } if server.is_closed()) {
                slot.state = State::Stopped;
                slot.last_error = Some((STOPPED.into(), clock::now()));
            }
        }
        let Some(slot) = slots.get(name) else {
            return Standing {
                status: idle_or_disabled(entry),
                last_error: None,
                started_at: None,
                tool_count: None,
                starts: 0,
            };
        };
        let current = slot.entry.as_ref() == Some(entry);
        let (status, started_at, tool_count) = match &slot.state {
            _ if !entry.enabled => (McpServerStatus::Disabled, None, None),
            _ if !current => (McpServerStatus::Idle, None, None),
            State::Idle => (McpServerStatus::Idle, None, None),
            State::Starting(_) => (McpServerStatus::Starting, None, None),
            State::Ready { server, since } => (
                McpServerStatus::Ready,
                Some(since.clone()),
                Some(server.tools().len() as u64),
            ),
            State::Failed { .. } | State::Stopped => (McpServerStatus::Failed, None, None),
        };
        Standing {
            status,
            last_error: slot.last_error.clone(),
            started_at,
            tool_count,
            starts: slot.starts,
        }
    }

    /// Stops the server (it is gone from the configuration, switched off,
    /// or about to be started afresh). A call under way keeps its
    /// connection until it ends.
    pub fn stop(&self, name: &str) {
        if let Some(slot) = self.slots().get_mut(name) {
            slot.generation = next_generation();
            slot.state = State::Idle;
            slot.entry = None;
        }
    }

    /// Forgets a server removed from the configuration.
    pub fn forget(&self, name: &str) {
        self.slots().remove(name);
    }

    /// Stops every server (the process is ending).
    pub fn stop_all(&self) {
        self.slots().clear();
    }
}

fn idle_or_disabled(entry: &ServerEntry) -> McpServerStatus {
    if entry.enabled {
        McpServerStatus::Idle
    } else {
        McpServerStatus::Disabled
    }
}
