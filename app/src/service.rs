//! The runtime's service layer as the Leptos app sees it. The server
//! implements this over the same functions its `/v1` handlers call and
//! provides it as context, so server functions hold no rules of their own.

use crate::protocol::{
    AnswerUserInput, CreateThread, PatchThread, ProviderModels, StartTurn, SteerTurn, ThreadDetail,
    ThreadRecord, ThreadSummary, TurnRecord, TurnStarted, UsageReport,
};
use std::{future::Future, pin::Pin, sync::Arc};

pub use crate::error::ServiceError;

pub type Reply<'a, T> = Pin<Box<dyn Future<Output = Result<T, ServiceError>> + Send + 'a>>;

/// Which threads a list shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadFilter {
    pub archived: bool,
    pub search: Option<String>,
}

pub trait RuntimeService: Send + Sync {
    fn threads(&self, filter: ThreadFilter) -> Reply<'_, Vec<ThreadSummary>>;
    fn thread(&self, id: String) -> Reply<'_, ThreadDetail>;
    fn create_thread(&self, request: CreateThread) -> Reply<'_, ThreadRecord>;
    fn patch_thread(&self, id: String, patch: PatchThread) -> Reply<'_, ThreadRecord>;
    fn fork_thread(&self, id: String) -> Reply<'_, ThreadRecord>;
    fn start_turn(&self, id: String, request: StartTurn) -> Reply<'_, TurnStarted>;
    fn steer_turn(&self, id: String, turn: String, request: SteerTurn) -> Reply<'_, TurnRecord>;
    fn interrupt_turn(&self, id: String, turn: String) -> Reply<'_, TurnRecord>;
    fn decide_approval(&self, id: String, allow: bool, remember: bool) -> Reply<'_, ()>;
    fn answer_user_input(
        &self,
        thread: String,
        input: String,
        answers: AnswerUserInput,
    ) -> Reply<'_, ()>;
    fn usage(
        &self,
        since: Option<String>,
        until: Option<String>,
        group_by: String,
    ) -> Reply<'_, UsageReport>;
    fn providers(&self) -> Vec<ProviderModels>;
}

/// The service, from the context the server provides.
pub fn service() -> Result<Arc<dyn RuntimeService>, ServiceError> {
    leptos::prelude::use_context::<Arc<dyn RuntimeService>>()
        .ok_or_else(|| ServiceError::new(500, "the runtime service is not configured"))
}
