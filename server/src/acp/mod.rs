//! The Agent Client Protocol (v1) over stdio, for editors: one more caller
//! of `runtime::Runtime`. An ACP session IS a runtime thread (session id =
//! thread id), so it shows in `/v1` and the browser, and an approval can be
//! settled from either side (`Runtime::decide_approval` is the one owner).
//!
//! `mod.rs` wires the handlers; `session.rs` holds the sessions and the
//! session methods, `prompt.rs` runs a prompt, `updates.rs` maps events to
//! `session/update`, `permissions.rs` asks the client, `diffs.rs` turns
//! recorded diffs into ACP diffs. Nothing but protocol goes to stdout.

mod diffs;
mod editor;
mod mcp_servers;
mod permissions;
mod prompt;
mod questions;
mod session;
mod updates;

use crate::runtime::{error::RuntimeError, Runtime};
use agent_client_protocol::{
    on_receive_notification, on_receive_request,
    v1::schema::{
        AuthenticateRequest, AuthenticateResponse, CancelNotification, ClientCapabilities,
        CloseSessionRequest, InitializeRequest, InitializeResponse, ListSessionsRequest,
        LoadSessionRequest, NewSessionRequest, PromptRequest, ResumeSessionRequest,
        SetSessionConfigOptionRequest, SetSessionModeRequest,
    },
    Agent, ConnectTo, Error, Stdio,
};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::{path::PathBuf, sync::Arc};

pub use session::Acp;

/// Serves ACP on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(runtime: Arc<Runtime>, workspace: PathBuf) -> Result<(), Error> {
    serve(runtime, workspace, Stdio::new()).await
}

/// Serves ACP on `transport` (stdio; a channel in tests) until it closes.
pub async fn serve(
    runtime: Arc<Runtime>,
    workspace: PathBuf,
    transport: impl ConnectTo<Agent> + 'static,
) -> Result<(), Error> {
    let acp = Arc::new(Acp::new(runtime, workspace));
    let (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) = (
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
    );
    Agent
        .v1()
        .name("codewhale")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                responder.respond_with_result(a1.initialize(request))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |_request: AuthenticateRequest, responder, _cx| {
                // No auth methods are advertised: the agent runs as the user.
                responder.respond_with_result(wire::<AuthenticateResponse>(json!({})))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                let result = a2.new_session(request).await;
                let id = result.as_ref().ok().map(|r| r.session_id.0.to_string());
                responder.respond_with_result(result)?;
                // After the answer: a client knows the session only then.
                if let Some(id) = id {
                    session::announce_commands(&cx, &id);
                }
                Ok(())
            },
            on_receive_request!(),
        )
        .on_receive_request(
            // Answered inline: the replayed updates go out before the answer.
            async move |request: LoadSessionRequest, responder, cx| {
                let id = request.session_id.0.to_string();
                let result = a3.load_session(request, &cx).await;
                let loaded = result.is_ok();
                responder.respond_with_result(result)?;
                if loaded {
                    session::announce_commands(&cx, &id);
                }
                Ok(())
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ListSessionsRequest, responder, _cx| {
                responder.respond_with_result(a4.list_sessions(request).await)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ResumeSessionRequest, responder, cx| {
                let id = request.session_id.0.to_string();
                let result = a5.resume_session(request).await;
                let resumed = result.is_ok();
                responder.respond_with_result(result)?;
                if resumed {
                    session::announce_commands(&cx, &id);
                }
                Ok(())
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: CloseSessionRequest, responder, _cx| {
                responder.respond_with_result(a6.close_session(request).await)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, cx| {
                responder.respond_with_result(a7.set_mode(request, &cx).await)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest, responder, cx| {
                responder.respond_with_result(a8.set_config_option(request, &cx).await)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            // A prompt waits on the model and on the client (permissions),
            // so it runs in its own task and the dispatch loop stays free.
            async move |request: PromptRequest, responder, cx| {
                let acp = a9.clone();
                tokio::spawn(async move {
                    let result = acp.prompt(request, cx).await;
                    if let Err(error) = responder.respond_with_result(result) {
                        tracing::debug!(%error, "acp: the prompt's answer was not sent");
                    }
                });
                Ok(())
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                a10.cancel(&notification.session_id.0).await;
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_close(move |_cx| async move {
            a11.shutdown().await;
            Ok(())
        })
        .connect_to(transport)
        .await
}

impl Acp {
    fn initialize(&self, request: InitializeRequest) -> Result<InitializeResponse, Error> {
        self.set_client(request.client_capabilities.clone());
        // We speak v1 only; a client asking for another version gets ours.
        wire(json!({
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": { "image": false, "audio": false, "embeddedContext": true },
                "mcpCapabilities": { "http": true, "sse": false },
                "sessionCapabilities": { "list": {}, "resume": {}, "close": {} },
            },
            "agentInfo": { "name": "codewhale", "title": "codewhale", "version": env!("CARGO_PKG_VERSION") },
            "authMethods": [],
        }))
    }

    fn set_client(&self, capabilities: ClientCapabilities) {
        *self.client.lock().unwrap_or_else(|p| p.into_inner()) = capabilities;
    }
}

/// A typed ACP message from its wire JSON (the spec's own shape).
fn wire<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|error| {
        tracing::warn!(%error, "acp: a reply did not match the schema");
        Error::internal_error()
    })
}

/// A runtime refusal as a JSON-RPC error; internal failures are logged and
/// sent without detail.
fn rpc_error(error: RuntimeError) -> Error {
    match error {
        RuntimeError::Invalid(message) | RuntimeError::TooLarge(message) => {
            Error::invalid_params().data(json!({ "message": message }))
        }
        RuntimeError::NotFound(message) => {
            Error::new(-32002, "Resource not found").data(json!({ "message": message }))
        }
        RuntimeError::Conflict(message)
        | RuntimeError::Forbidden(message)
        | RuntimeError::Conflicts { message, .. } => Error::new(-32603, message),
        internal => {
            tracing::error!(error = %internal, "acp: runtime failure");
            Error::internal_error()
        }
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_params().data(json!({ "message": message.into() }))
}
