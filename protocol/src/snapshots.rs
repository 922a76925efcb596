//! Workspace snapshots, restores and undo: what `/v1/snapshots`,
//! `/v1/threads/{id}/snapshots[/restore]`, `/undo`, `/retry`,
//! `/edit-last-turn` and `/fork-at-user-message` take and answer.

use super::{ThreadRecord, TurnRecord, TurnStarted};
use serde::{Deserialize, Serialize};

/// Why a snapshot was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SnapshotKind {
    /// Before a turn's first write or command.
    PreTurn,
    /// When a turn that changed something ended.
    PostTurn,
    /// Before a restore, when the files had changed since the last snapshot.
    PreRestore,
    /// After a restore (restoring the snapshot before it undoes it).
    Restore,
    /// The workspace as it was where a thread was forked.
    ForkPoint,
}

impl SnapshotKind {
    pub const ALL: [SnapshotKind; 5] = [
        Self::PreTurn,
        Self::PostTurn,
        Self::PreRestore,
        Self::Restore,
        Self::ForkPoint,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreTurn => "pre_turn",
            Self::PostTurn => "post_turn",
            Self::PreRestore => "pre_restore",
            Self::Restore => "restore",
            Self::ForkPoint => "fork_point",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == value)
    }
}

/// A recorded state of a workspace's files (what `.gitignore` leaves in).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SnapshotRecord {
    pub id: String,
    /// `pre-turn:<turn id>`, `post-turn:<turn id>`, `restore:<snapshot id>`…
    pub label: String,
    /// Unix seconds.
    pub timestamp: i64,
    pub created_at: String,
    pub kind: SnapshotKind,
    pub workspace: String,
    pub thread_id: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub turn_id: Option<String>,
    /// For a restore: the snapshot it put back.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub restored_from: Option<String>,
}

/// `POST /v1/threads/{id}/snapshots/restore`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RestoreSnapshot {
    pub snapshot_id: String,
}

/// What a restore did to one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FileChange {
    Created,
    Modified,
    Deleted,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RestoredFile {
    /// Relative to the workspace.
    pub path: String,
    pub change: FileChange,
}

/// Why files were restored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RestoreReason {
    Restore,
    Undo,
    Retry,
    Edit,
    /// A review action's files put back (`review_action_id` says which).
    ReviewRevert,
}

/// A restore that happened: what it put back and how to take it back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Restored {
    pub reason: RestoreReason,
    /// The snapshot put back.
    pub restored_from: String,
    /// The files as they were just before (restore it to undo this).
    /// Null when nothing needed to change.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub before: Option<String>,
    /// The files after (null when nothing needed to change).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub snapshot: Option<SnapshotRecord>,
    pub files: Vec<RestoredFile>,
    /// The `review_action` item reverted, when that is why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_action_id: Option<String>,
}

/// `POST /v1/threads/{id}/undo`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Undone {
    /// The turn taken back (its `undone_at` set).
    pub turn: TurnRecord,
    /// Its files put back (null when the turn changed none).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub restored: Option<Restored>,
}

/// `POST /v1/threads/{id}/retry`: the last prompt again, optionally on
/// another model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RetryTurn {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
}

/// `POST /v1/threads/{id}/edit-last-turn`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct EditLastTurn {
    pub prompt: String,
}

/// What retry and edit answer: the turn taken back and the new one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Rerun {
    pub undone: Undone,
    pub started: TurnStarted,
}

/// `POST /v1/threads/{id}/fork-at-user-message`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ForkAtUserMessage {
    pub item_id: String,
}

/// The new thread, and the workspace as it was at that message (restore
/// it on the new thread to go back there too).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ForkedAt {
    pub thread: ThreadRecord,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub snapshot: Option<SnapshotRecord>,
}

/// `snapshot.created`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SnapshotCreatedPayload {
    pub snapshot: SnapshotRecord,
}

/// `workspace.restored`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorkspaceRestoredPayload {
    pub restored: Restored,
}
