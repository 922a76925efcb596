//! Tasks: a turn that runs with no client attached, from a durable queue.

use crate::Mode;
use serde::{Deserialize, Serialize};

/// Where a task is: queued → running → completed | failed | cancelled |
/// interrupted (the process stopped while it ran).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Queued,
    Running,
    Completed,
    Failed,
    Cancelled,
    Interrupted,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Interrupted => "interrupted",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::Queued,
            Self::Running,
            Self::Completed,
            Self::Failed,
            Self::Cancelled,
            Self::Interrupted,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    /// Whether the task is over.
    pub fn is_final(self) -> bool {
        !matches!(self, Self::Queued | Self::Running)
    }
}

/// A task and, once it ran, its thread, turn and final answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TaskRecord {
    pub id: String,
    pub status: TaskStatus,
    pub prompt: String,
    /// The workspace of the thread it runs on.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub workspace: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model_provider: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub mode: Option<Mode>,
    /// Writes and commands run without asking.
    pub auto_approve: bool,
    /// Run again after a restart that interrupted it.
    pub requeue_on_restart: bool,
    /// The thread it runs on (given, or made when it starts).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub thread_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub turn_id: Option<String>,
    /// The turn's final agent message.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub answer: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub error: Option<String>,
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub started_at: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub finished_at: Option<String>,
}

/// `POST /v1/tasks`. Model, provider and mode are a new thread's settings,
/// or this turn's on a given thread (which keeps its workspace).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateTask {
    pub prompt: String,
    #[serde(default)]
    pub thread_id: Option<String>,
    #[serde(default)]
    pub workspace: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Writes and commands run without asking (default: they wait for an
    /// approval like any other turn's).
    #[serde(default)]
    pub auto_approve: bool,
    /// Queue it again if a restart interrupts it (default: recorded
    /// interrupted).
    #[serde(default)]
    pub requeue_on_restart: bool,
}

/// `GET /v1/tasks` query.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ListTasks {
    /// Only tasks in this status.
    #[serde(default)]
    pub status: Option<TaskStatus>,
    /// At most this many, newest first (default 100, at most 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// `POST /v1/tasks/clear`: how many finished tasks were removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TasksCleared {
    pub cleared: u64,
}
