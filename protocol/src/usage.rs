use serde::{Deserialize, Serialize};

/// `GET /v1/usage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UsageReport {
    pub since: Option<String>,
    pub until: Option<String>,
    pub group_by: String,
    pub totals: UsageTotals,
    /// Ascending by key.
    pub buckets: Vec<UsageBucket>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageTotals {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_tokens: u64,
    pub reasoning_tokens: u64,
    pub cost_usd: f64,
    pub turns: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UsageBucket {
    pub key: String,
    #[serde(flatten)]
    pub totals: UsageTotals,
}
