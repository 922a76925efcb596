//! The model-backed engine: turns a thread's history into a chat, streams
//! the provider's reasoning and answer into items, folds steers in before
//! the next model call, and stops the stream on interrupt.
//!
//! Writes and commands are asked for through approvals; questions for the
//! user and client-executed tools wait on the client (`client_calls`).
//!
//! This file holds `Agent` (construction, the `Engine` impl). The turn
//! itself is `turn_loop` (model calls and tool calls until an answer),
//! `model_call` (one streamed call and what it produced), `dispatch` (a
//! tool call run as an item, or handed to the client) and `compaction`
//! (summarizing the chat, and the compaction turn).

mod client_calls;
pub mod compaction;
mod conversation;
mod dispatch;
mod model_call;
mod skills_tool;
pub mod subagents;
pub mod tools;
mod turn_loop;

use crate::{
    provider::{ChatClient, Providers, ResolvedProvider},
    runtime::engine::{Engine, Outcome, Route, TurnContext, TurnSettings},
    runtime::error::RuntimeError,
};
use futures::future::BoxFuture;
use model_call::Model;
use protocol::{ThreadRecord, Usage};
use turn_loop::run_turn;

pub struct Agent {
    providers: Providers,
    client: ChatClient,
    /// Automatic compaction at this fraction of the context window (0: off).
    compaction_fraction: f64,
}

impl Agent {
    pub fn new(providers: Providers) -> Self {
        // Each configured key variable is kept from every child process,
        // whatever its name.
        crate::child::env::add_secret_names(providers.key_variables());
        Self {
            providers,
            client: ChatClient::default(),
            compaction_fraction: compaction::DEFAULT_FRACTION,
        }
    }

    /// Providers and compaction settings from config.toml.
    pub fn from_config(config: &crate::config::Config) -> Self {
        let mut agent = Self::new(Providers::from_config(config));
        if let Some(fraction) = config.compaction.auto_fraction {
            agent.compaction_fraction = fraction;
        }
        agent
    }

    /// The turn's provider: its own override, else the thread's.
    fn resolve(&self, settings: &TurnSettings) -> Result<ResolvedProvider, RuntimeError> {
        self.providers.resolve(
            settings.model_provider.as_deref(),
            settings.model.as_deref(),
        )
    }
}

impl Engine for Agent {
    fn check_ready(
        &self,
        _thread: &ThreadRecord,
        settings: &TurnSettings,
    ) -> Result<Route, RuntimeError> {
        let provider = self.resolve(settings)?;
        Ok(Route {
            provider: Some(provider.id),
            model: Some(provider.model),
        })
    }

    fn providers(&self) -> Vec<protocol::ProviderModels> {
        self.providers.catalog()
    }

    fn run(&self, turn: TurnContext) -> BoxFuture<'static, Outcome> {
        let provider = self.resolve(&turn.settings);
        let client = self.client.clone();
        let fraction = self.compaction_fraction;
        Box::pin(async move {
            match provider {
                Ok(provider) => {
                    let policy = compaction::Policy {
                        window: provider
                            .context_window
                            .unwrap_or_else(|| compaction::default_window(&provider.model)),
                        fraction,
                    };
                    let model = Model {
                        client,
                        provider,
                        policy,
                    };
                    run_turn(model, turn).await
                }
                Err(error) => Outcome::Failed {
                    error: error.to_string(),
                    usage: Usage::default(),
                },
            }
        })
    }
}
