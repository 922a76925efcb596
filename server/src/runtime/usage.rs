//! `GET /v1/usage`: tokens and cost of finished turns, grouped by day,
//! model, provider or thread.

use crate::{
    pricing::Pricing,
    runtime::error::RuntimeError,
    store::{self, Store, StoreError},
};
use protocol::{Usage, UsageBucket, UsageQuery, UsageReport, UsageTotals};
use std::collections::BTreeMap;

/// What a report is grouped by; the first is the default.
pub const GROUPS: [&str; 4] = ["day", "model", "provider", "thread"];

pub async fn report(
    store: &Store,
    pricing: &Pricing,
    query: UsageQuery,
) -> Result<UsageReport, RuntimeError> {
    let group_by = query.group_by.clone().unwrap_or_else(|| GROUPS[0].into());
    if !GROUPS.contains(&group_by.as_str()) {
        return Err(RuntimeError::invalid(format!(
            "group_by must be day, model, provider or thread (got {group_by:?})"
        )));
    }
    let since = query
        .since
        .as_deref()
        .map(|s| bound(s, "since"))
        .transpose()?;
    let until = query
        .until
        .as_deref()
        .map(|s| bound(s, "until"))
        .transpose()?;
    // A range that ends before it starts holds no turns: an empty report,
    // not a refusal (each bound alone is well formed).
    let empty = matches!((&since, &until), (Some(since), Some(until)) if since > until);
    let rows = if empty {
        Vec::new()
    } else {
        store::usage::finished_turns(store.pool(), since.as_deref(), until.as_deref()).await?
    };
    let mut totals = UsageTotals::default();
    let mut buckets: BTreeMap<String, UsageTotals> = BTreeMap::new();
    for row in rows {
        let usage: Usage = serde_json::from_str(&row.usage)
            .map_err(|e| StoreError::Corrupt(format!("turns.usage: {e}")))?;
        let cost = pricing.cost(row.effective_model.as_deref(), &usage, &row.created_at);
        let key = match group_by.as_str() {
            "day" => row.created_at.get(..10).unwrap_or_default().to_string(),
            "model" => row.effective_model.unwrap_or_else(|| "unknown".into()),
            "provider" => row.effective_provider.unwrap_or_else(|| "unknown".into()),
            _ => row.thread_id,
        };
        add(&mut totals, &usage, cost);
        add(buckets.entry(key).or_default(), &usage, cost);
    }
    Ok(UsageReport {
        since: query.since,
        until: query.until,
        group_by,
        totals,
        buckets: buckets
            .into_iter()
            .map(|(key, totals)| UsageBucket { key, totals })
            .collect(),
    })
}

/// An RFC 3339 bound, normalized to the stored form (UTC, milliseconds).
fn bound(value: &str, name: &str) -> Result<String, RuntimeError> {
    chrono::DateTime::parse_from_rfc3339(value)
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        })
        .map_err(|_| {
            RuntimeError::invalid(format!(
                "{name} must be an RFC 3339 timestamp like 2026-04-01T00:00:00Z"
            ))
        })
}

fn add(into: &mut UsageTotals, usage: &Usage, cost: f64) {
    into.input_tokens += usage.input_tokens;
    into.output_tokens += usage.output_tokens;
    into.cached_tokens += usage.cached_tokens;
    into.reasoning_tokens += usage.reasoning_tokens;
    into.cost_usd += cost;
    into.turns += 1;
}
