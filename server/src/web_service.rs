//! The service layer handed to the Leptos app (`app::service`): each call
//! is the same function a `/v1` handler calls, with the same errors.

use crate::{
    error::ApiError,
    runtime::{approvals::DecideApproval, threads, usage},
    state::AppState,
};
use app::service::{Reply, RuntimeService, ServiceError, ThreadFilter};
use protocol::{
    AnswerUserInput, CreateThread, PatchThread, ProviderModels, StartTurn, SteerTurn, ThreadDetail,
    ThreadRecord, ThreadSummary, TurnRecord, TurnStarted, UsageReport,
};

pub struct WebService(pub AppState);

impl From<ApiError> for ServiceError {
    fn from(error: ApiError) -> Self {
        if let ApiError::Internal(inner) = &error {
            tracing::error!(error = %inner, "a server function failed");
        }
        ServiceError::new(error.status().as_u16(), error.to_string())
    }
}

fn reply<'a, T: Send + 'a>(
    work: impl std::future::Future<Output = Result<T, ApiError>> + Send + 'a,
) -> Reply<'a, T> {
    Box::pin(async move { work.await.map_err(ServiceError::from) })
}

impl RuntimeService for WebService {
    fn threads(&self, filter: ThreadFilter) -> Reply<'_, Vec<ThreadSummary>> {
        let query = threads::ListQuery {
            limit: Some(200),
            search: filter.search.filter(|s| !s.trim().is_empty()),
            include_archived: false,
            archived_only: filter.archived,
        };
        reply(async move { threads::summaries(&self.0.store, &self.0.git, &query).await })
    }

    fn thread(&self, id: String) -> Reply<'_, ThreadDetail> {
        reply(async move { self.0.turns.detail(&id).await })
    }

    fn create_thread(&self, request: CreateThread) -> Reply<'_, ThreadRecord> {
        let home = self.0.runtime.default_workspace.clone();
        reply(async move { threads::create(&self.0.store, &home, request).await })
    }

    fn patch_thread(&self, id: String, patch: PatchThread) -> Reply<'_, ThreadRecord> {
        reply(async move { threads::patch(&self.0.store, &id, patch).await })
    }

    fn fork_thread(&self, id: String) -> Reply<'_, ThreadRecord> {
        reply(async move { threads::fork(&self.0.store, &id).await })
    }

    fn start_turn(&self, id: String, request: StartTurn) -> Reply<'_, TurnStarted> {
        reply(async move { self.0.turns.start(&id, request).await })
    }

    fn steer_turn(&self, id: String, turn: String, request: SteerTurn) -> Reply<'_, TurnRecord> {
        reply(async move { self.0.turns.steer(&id, &turn, request).await })
    }

    fn interrupt_turn(&self, id: String, turn: String) -> Reply<'_, TurnRecord> {
        reply(async move { self.0.turns.interrupt(&id, &turn).await })
    }

    fn decide_approval(&self, id: String, allow: bool, remember: bool) -> Reply<'_, ()> {
        let body = DecideApproval {
            decision: if allow { "allow" } else { "deny" }.into(),
            remember,
        };
        reply(async move { self.0.turns.approvals().decide(&id, body).await.map(|_| ()) })
    }

    fn answer_user_input(
        &self,
        thread: String,
        input: String,
        answers: AnswerUserInput,
    ) -> Reply<'_, ()> {
        let inputs = self.0.turns.user_inputs();
        reply(async move { inputs.answer(&thread, &input, answers).await.map(|_| ()) })
    }

    fn usage(
        &self,
        since: Option<String>,
        until: Option<String>,
        group_by: String,
    ) -> Reply<'_, UsageReport> {
        let query = usage::UsageQuery {
            since,
            until,
            group_by: Some(group_by),
        };
        reply(async move { usage::report(&self.0.store, &self.0.runtime.pricing, query).await })
    }

    fn providers(&self) -> Vec<ProviderModels> {
        self.0.turns.providers()
    }
}
