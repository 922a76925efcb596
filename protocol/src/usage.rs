use serde::{Deserialize, Serialize};

/// `GET /v1/usage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UsageReport {
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub since: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub until: Option<String>,
    pub group_by: String,
    pub totals: UsageTotals,
    /// Ascending by key.
    pub buckets: Vec<UsageBucket>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UsageTotals {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_tokens: u64,
    pub reasoning_tokens: u64,
    pub cost_usd: f64,
    pub turns: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UsageBucket {
    pub key: String,
    #[serde(flatten)]
    pub totals: UsageTotals,
}

/// The longest range, in days, a usage overview covers.
pub const MAX_USAGE_DAYS: u32 = 366;

/// The workbench's usage page for one range of whole UTC days ending today.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UsageOverview {
    /// Length of the range in days, today included.
    pub days: u32,
    pub totals: UsageTotals,
    /// One bucket per day, oldest first, keyed `YYYY-MM-DD` (UTC); days
    /// without turns are zero so the chart has no gaps.
    pub daily: Vec<UsageBucket>,
    /// Most tokens first.
    pub by_model: Vec<UsageBucket>,
    /// Most tokens first.
    pub by_thread: Vec<ThreadUsage>,
}

/// One thread's share of the range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThreadUsage {
    pub id: String,
    /// Title, else the preview of its first prompt; `None` if the thread is
    /// unnamed or no longer listed.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub label: Option<String>,
    pub totals: UsageTotals,
}

impl UsageTotals {
    /// Input plus output tokens: what the chart stacks and what the
    /// breakdowns sort by.
    pub fn tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}
