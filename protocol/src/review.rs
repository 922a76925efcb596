//! Review mode: findings the agent submits (durable `review_finding`
//! items), applying them as a normal turn (a `review_action` item opens
//! it), and reverting that turn's files with a compare-and-swap.

use super::{Restored, TurnItemRecord, TurnStarted};
use serde::{Deserialize, Serialize};

/// At most this many findings in one apply.
pub const MAX_FINDINGS_PER_APPLY: usize = 20;

/// How much a finding matters: p0 (must fix) to p3 (nit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReviewPriority {
    P0,
    P1,
    P2,
    P3,
}

impl ReviewPriority {
    pub const ALL: [ReviewPriority; 4] = [Self::P0, Self::P1, Self::P2, Self::P3];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::P0 => "p0",
            Self::P1 => "p1",
            Self::P2 => "p2",
            Self::P3 => "p3",
        }
    }

    /// `p0`…`p3`, any case.
    pub fn parse(value: &str) -> Option<Self> {
        let value = value.trim().to_ascii_lowercase();
        Self::ALL.into_iter().find(|p| p.as_str() == value)
    }
}

/// One finding, as the agent submitted it (`metadata.finding` of a
/// `review_finding` item).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReviewFinding {
    /// Workspace-relative, `/`-separated.
    pub path: String,
    /// 1-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    pub priority: ReviewPriority,
    pub title: String,
    pub body: String,
    /// The exact text to put in place of those lines, when the agent gave one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub replacement: Option<String>,
    /// The lines as they were when the finding was submitted.
    pub original: String,
}

/// What a `review_action` item records (`metadata.action`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReviewAction {
    pub finding_ids: Vec<String>,
    /// The turn that applies them.
    pub turn_id: String,
    /// Set once its files were put back.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub reverted: Option<ReviewReversal>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReviewReversal {
    pub at: String,
    /// The snapshot after the revert (null when nothing needed to change).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub snapshot_id: Option<String>,
}

impl TurnItemRecord {
    /// The finding of a completed `review_finding` item.
    pub fn review_finding(&self) -> Option<ReviewFinding> {
        (self.kind == super::ItemKind::ReviewFinding)
            .then(|| serde_json::from_value(self.metadata.get("finding")?.clone()).ok())
            .flatten()
    }

    /// The action of a `review_action` item.
    pub fn review_action(&self) -> Option<ReviewAction> {
        (self.kind == super::ItemKind::ReviewAction)
            .then(|| serde_json::from_value(self.metadata.get("action")?.clone()).ok())
            .flatten()
    }
}

/// `POST /v1/threads/{id}/review/apply`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ApplyReview {
    /// 1–20 ids of `review_finding` items of this thread.
    pub finding_ids: Vec<String>,
}

/// The turn applying the findings and the `review_action` item opening it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReviewApplied {
    pub action: TurnItemRecord,
    pub started: TurnStarted,
}

/// `POST /v1/threads/{id}/review/revert`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RevertReview {
    /// The `review_action` item's id.
    pub action_id: String,
}

/// The action (now marked reverted) and the restore that put files back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReviewReverted {
    pub action: TurnItemRecord,
    pub restored: Restored,
}
