//! The sessions this connection knows, and the session methods: new, load
//! (replay), list, resume, close, modes and config options. A session is a
//! runtime thread; what is kept here is only what ACP adds to it (the
//! running prompt's turn, the MCP servers the client passed, "reject
//! always" choices).

use super::{invalid, mcp_servers, rpc_error, updates::Mapper, wire};
use crate::runtime::Runtime;
use agent_client_protocol::{
    v1::{
        schema::{
            ClientCapabilities, CloseSessionRequest, CloseSessionResponse, ListSessionsRequest,
            ListSessionsResponse, LoadSessionRequest, LoadSessionResponse, NewSessionRequest,
            NewSessionResponse, ResumeSessionRequest, ResumeSessionResponse, SessionNotification,
            SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
            SetSessionModeResponse,
        },
        ConnectionTo,
    },
    Client, Error,
};
use protocol::{CreateThread, ListThreads, Mode, PatchThread, ThreadRecord};
use serde_json::{json, Value};
use std::{
    collections::{HashMap, HashSet},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

/// The modes an ACP client may pick (review mode is the browser's).
const MODES: [(Mode, &str, &str); 3] = [
    (
        Mode::Agent,
        "Agent",
        "Reads freely; asks before writes and commands",
    ),
    (
        Mode::Plan,
        "Plan",
        "Read-only: plans and explains, changes nothing",
    ),
    (
        Mode::Yolo,
        "Yolo",
        "Writes and runs commands without asking",
    ),
];

/// What ACP keeps about one session beyond its thread.
#[derive(Default)]
pub(super) struct Session {
    pub workspace: PathBuf,
    /// The MCP servers the client passed, connecting or connected.
    pub mcp: Option<mcp_servers::Connecting>,
    /// The prompt now running, if any.
    pub prompt: Prompt,
    /// Tools the user rejected "always" in this session.
    pub rejected: HashSet<String>,
}

/// Where a session's prompt is: a cancel that comes before its turn
/// exists is kept and applied once it does.
#[derive(Default)]
pub(super) enum Prompt {
    #[default]
    Idle,
    Starting {
        cancelled: bool,
    },
    Running(String),
}

pub struct Acp {
    pub(super) runtime: Arc<Runtime>,
    workspace: PathBuf,
    pub(super) client: Mutex<ClientCapabilities>,
    sessions: Mutex<HashMap<String, Session>>,
}

impl Acp {
    pub fn new(runtime: Arc<Runtime>, workspace: PathBuf) -> Self {
        Self {
            runtime,
            workspace,
            client: Mutex::default(),
            sessions: Mutex::default(),
        }
    }

    /// Runs `f` on the session's state (never held across an await).
    pub(super) fn with<T>(&self, id: &str, f: impl FnOnce(&mut Session) -> T) -> Option<T> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.get_mut(id).map(f)
    }

    /// The session's state, attaching an existing thread on first use
    /// (a client may prompt a session it listed without loading it).
    pub(super) async fn attach(&self, id: &str) -> Result<ThreadRecord, Error> {
        let thread = self.runtime.thread(id).await.map_err(rpc_error)?.thread;
        let workspace = thread_workspace(&thread, &self.workspace);
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.entry(id.to_string()).or_insert_with(|| Session {
            workspace,
            ..Session::default()
        });
        Ok(thread)
    }

    /// Connects the session's MCP servers (replacing, and so closing, any
    /// it had).
    fn record_mcp(&self, id: &str, servers: &impl serde::Serialize) {
        self.with(id, |session| {
            session.mcp = mcp_servers::start(servers, &session.workspace);
        });
    }

    pub(super) async fn new_session(
        &self,
        request: NewSessionRequest,
    ) -> Result<NewSessionResponse, Error> {
        let cwd = absolute(&request.cwd)?;
        let thread = self
            .runtime
            .create_thread(CreateThread {
                workspace: Some(cwd.display().to_string()),
                ..CreateThread::default()
            })
            .await
            .map_err(rpc_error)?;
        self.attach(&thread.id).await?;
        self.record_mcp(&thread.id, &request.mcp_servers);
        wire(self.session_state(&thread, json!({ "sessionId": thread.id })))
    }

    /// Replays the conversation as updates, in order, then answers.
    pub(super) async fn load_session(
        &self,
        request: LoadSessionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<LoadSessionResponse, Error> {
        let id = request.session_id.0.to_string();
        self.attach(&id).await?;
        self.record_mcp(&id, &request.mcp_servers);
        let detail = self.runtime.thread(&id).await.map_err(rpc_error)?;
        let undone: HashSet<&str> = detail
            .turns
            .iter()
            .filter(|turn| turn.undone_at.is_some())
            .map(|turn| turn.id.as_str())
            .collect();
        let mapper = Mapper::new(&thread_workspace(&detail.thread, &self.workspace));
        for item in detail
            .items
            .iter()
            .filter(|item| !undone.contains(item.turn_id.as_str()))
        {
            for update in mapper.replay(item) {
                notify(cx, &id, update)?;
            }
        }
        wire(self.session_state(&detail.thread, json!({})))
    }

    pub(super) async fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, Error> {
        let query = ListThreads {
            limit: Some(100),
            ..ListThreads::default()
        };
        let threads = self.runtime.list_threads(&query).await.map_err(rpc_error)?;
        let sessions: Vec<Value> = threads
            .iter()
            .map(|thread| (thread, thread_workspace(thread, &self.workspace)))
            .filter(|(_, workspace)| request.cwd.as_ref().is_none_or(|cwd| cwd == workspace))
            .map(|(thread, workspace)| {
                json!({
                    "sessionId": thread.id,
                    "cwd": workspace,
                    "title": thread.title,
                    "updatedAt": thread.updated_at,
                })
            })
            .collect();
        wire(json!({ "sessions": sessions }))
    }

    pub(super) async fn resume_session(
        &self,
        request: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, Error> {
        let id = request.session_id.0.to_string();
        let thread = self.attach(&id).await?;
        self.record_mcp(&id, &request.mcp_servers);
        wire(self.session_state(&thread, json!({})))
    }

    /// Cancels what runs and forgets the session here; the thread stays.
    pub(super) async fn close_session(
        &self,
        request: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, Error> {
        let id = request.session_id.0.to_string();
        self.cancel(&id).await;
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        wire(json!({}))
    }

    pub(super) async fn set_mode(
        &self,
        request: SetSessionModeRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<SetSessionModeResponse, Error> {
        let id = request.session_id.0.to_string();
        self.apply(&id, "mode", &request.mode_id.0, cx).await?;
        wire(json!({}))
    }

    pub(super) async fn set_config_option(
        &self,
        request: SetSessionConfigOptionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<SetSessionConfigOptionResponse, Error> {
        let id = request.session_id.0.to_string();
        let value = serde_json::to_value(&request.value).unwrap_or_default();
        let value = value["value"]
            .as_str()
            .ok_or_else(|| invalid("value must be one of the option's values"))?;
        let thread = self.apply(&id, &request.config_id.0, value, cx).await?;
        wire(json!({ "configOptions": self.config_options(&thread) }))
    }

    /// Sets the mode or the model of a session's thread; a mode change is
    /// announced with `current_mode_update`.
    async fn apply(
        &self,
        id: &str,
        option: &str,
        value: &str,
        cx: &ConnectionTo<Client>,
    ) -> Result<ThreadRecord, Error> {
        let thread = self.attach(id).await?;
        let patch = match option {
            "mode" => {
                let mode = Mode::parse(value).map_err(invalid)?;
                if !MODES.iter().any(|(m, _, _)| *m == mode) {
                    return Err(invalid(format!("mode {value} is not offered over ACP")));
                }
                PatchThread {
                    mode: Some(value.to_string()),
                    ..PatchThread::default()
                }
            }
            "model" => {
                if !self.models(&thread).iter().any(|m| m == value) {
                    return Err(invalid(format!("unknown model {value}")));
                }
                PatchThread {
                    model: Some(value.to_string()),
                    ..PatchThread::default()
                }
            }
            other => return Err(invalid(format!("unknown config option {other}"))),
        };
        let thread = self
            .runtime
            .patch_thread(id, patch)
            .await
            .map_err(rpc_error)?;
        if option == "mode" {
            let update = json!({ "sessionUpdate": "current_mode_update", "currentModeId": thread.mode.as_str() });
            notify(cx, id, update)?;
        }
        Ok(thread)
    }

    /// `modes` and `configOptions` of a session/new, load or resume answer,
    /// merged into `base`.
    fn session_state(&self, thread: &ThreadRecord, mut base: Value) -> Value {
        let modes: Vec<Value> = MODES
            .iter()
            .map(|(mode, name, description)| json!({ "id": mode.as_str(), "name": name, "description": description }))
            .collect();
        base["modes"] = json!({ "currentModeId": thread.mode.as_str(), "availableModes": modes });
        base["configOptions"] = json!(self.config_options(thread));
        base
    }

    /// The mode (as a config option too, for clients past set_mode) and
    /// the model of the thread's provider.
    fn config_options(&self, thread: &ThreadRecord) -> Vec<Value> {
        let modes: Vec<Value> = MODES
            .iter()
            .map(|(mode, name, _)| json!({ "value": mode.as_str(), "name": name }))
            .collect();
        let mut options = vec![json!({
            "id": "mode", "name": "Mode", "category": "mode", "type": "select",
            "currentValue": thread.mode.as_str(), "options": modes,
        })];
        let models = self.models(thread);
        let current = thread
            .model
            .clone()
            .or_else(|| self.provider(thread).and_then(|p| p.default_model))
            .or_else(|| models.first().cloned());
        if let Some(current) = current {
            let choices: Vec<Value> = models
                .iter()
                .map(|m| json!({ "value": m, "name": m }))
                .collect();
            options.push(json!({
                "id": "model", "name": "Model", "category": "model", "type": "select",
                "currentValue": current, "options": choices,
            }));
        }
        options
    }

    fn provider(&self, thread: &ThreadRecord) -> Option<protocol::ProviderModels> {
        let providers = self.runtime.providers();
        let named = thread
            .model_provider
            .as_deref()
            .and_then(|name| providers.iter().find(|p| p.id == name).cloned());
        named
            .or_else(|| {
                let model = thread.model.as_deref()?;
                providers
                    .iter()
                    .find(|p| p.models.iter().any(|m| m == model))
                    .cloned()
            })
            .or_else(|| providers.iter().find(|p| p.ready).cloned())
    }

    /// The models a session may switch to: its provider's.
    fn models(&self, thread: &ThreadRecord) -> Vec<String> {
        self.provider(thread).map(|p| p.models).unwrap_or_default()
    }

    /// Ends the connection: interrupts what its prompts left running.
    pub(super) async fn shutdown(&self) {
        let ids: Vec<String> = self
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect();
        for id in ids {
            self.cancel(&id).await;
            // Closes the session's MCP servers (their groups are killed).
            self.with(&id, |s| s.mcp = None);
        }
    }
}

/// The slash commands a prompt may start with (`prompt.rs` runs them).
pub(super) const COMMANDS: [(&str, &str); 1] = [(
    "compact",
    "Summarize the conversation so far to free the context window",
)];

/// Tells the client which slash commands exist (best effort).
pub(super) fn announce_commands(cx: &ConnectionTo<Client>, id: &str) {
    let commands: Vec<Value> = COMMANDS
        .iter()
        .map(|(name, description)| json!({ "name": name, "description": description }))
        .collect();
    let update =
        json!({ "sessionUpdate": "available_commands_update", "availableCommands": commands });
    if let Err(error) = notify(cx, id, update) {
        tracing::debug!(%error, "acp: available commands were not sent");
    }
}

/// Sends one `session/update`.
pub(super) fn notify(cx: &ConnectionTo<Client>, id: &str, update: Value) -> Result<(), Error> {
    let notification: SessionNotification = wire(json!({ "sessionId": id, "update": update }))?;
    cx.send_notification(notification)
}

fn absolute(cwd: &Path) -> Result<PathBuf, Error> {
    if cwd.is_absolute() {
        Ok(cwd.to_path_buf())
    } else {
        Err(invalid(format!(
            "cwd must be an absolute path (got {})",
            cwd.display()
        )))
    }
}

fn thread_workspace(thread: &ThreadRecord, default: &Path) -> PathBuf {
    thread
        .workspace
        .as_deref()
        .map(PathBuf::from)
        .unwrap_or_else(|| default.to_path_buf())
}
