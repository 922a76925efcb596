//! The workbench's usage page: a range of whole UTC days ending now, as
//! one report per grouping with the gaps filled and the breakdowns sorted.
//! The page only draws it; the rules (what a day is, which days exist, what
//! order) live here.

use super::{error::RuntimeError, Runtime};
use protocol::{
    ListThreads, ThreadUsage, UsageBucket, UsageOverview, UsageQuery, UsageTotals, MAX_USAGE_DAYS,
};
use std::collections::{BTreeMap, HashMap};

pub async fn overview(runtime: &Runtime, days: u32) -> Result<UsageOverview, RuntimeError> {
    if !(1..=MAX_USAGE_DAYS).contains(&days) {
        return Err(RuntimeError::invalid(format!(
            "days must be between 1 and {MAX_USAGE_DAYS}"
        )));
    }
    let range = Range::ending_now(days);
    let report = |group_by: &str| {
        runtime.usage(UsageQuery {
            since: Some(range.since.clone()),
            until: Some(range.until.clone()),
            group_by: Some(group_by.to_string()),
        })
    };
    let daily = report("day").await?;
    let by_model = report("model").await?;
    let by_thread = report("thread").await?;
    let labels = thread_labels(runtime).await;
    Ok(UsageOverview {
        days,
        totals: daily.totals.clone(),
        daily: every_day(&range, daily.buckets),
        by_model: most_tokens_first(by_model.buckets),
        by_thread: most_tokens_first(by_thread.buckets)
            .into_iter()
            .map(|bucket| ThreadUsage {
                label: labels.get(&bucket.key).cloned(),
                id: bucket.key,
                totals: bucket.totals,
            })
            .collect(),
    })
}

const MILLIS_PER_DAY: i64 = 86_400_000;

/// A range of whole UTC days ending now, as the RFC 3339 bounds the
/// usage report takes and the day keys it produces. `until` keeps the
/// milliseconds turns are stored with: a whole-second bound would leave
/// out the turns of the current second.
struct Range {
    since: String,
    until: String,
    /// Days since 1970-01-01 of the first and the last (today) day.
    first_day: i64,
    last_day: i64,
}

impl Range {
    fn ending_now(days: u32) -> Range {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or_default();
        Range::ending_at(now, days)
    }

    fn ending_at(unix_millis: i64, days: u32) -> Range {
        let last_day = unix_millis.div_euclid(MILLIS_PER_DAY);
        let first_day = last_day - i64::from(days.max(1)) + 1;
        let time = clock(unix_millis.rem_euclid(MILLIS_PER_DAY));
        Range {
            since: format!("{}T00:00:00.000Z", day_key(first_day)),
            until: format!("{}T{time}Z", day_key(last_day)),
            first_day,
            last_day,
        }
    }
}

/// The report's day buckets with the missing days filled in as zero.
fn every_day(range: &Range, buckets: Vec<UsageBucket>) -> Vec<UsageBucket> {
    let mut found: BTreeMap<String, UsageTotals> =
        buckets.into_iter().map(|b| (b.key, b.totals)).collect();
    (range.first_day..=range.last_day)
        .map(day_key)
        .map(|key| UsageBucket {
            totals: found.remove(&key).unwrap_or_default(),
            key,
        })
        .collect()
}

fn most_tokens_first(mut buckets: Vec<UsageBucket>) -> Vec<UsageBucket> {
    buckets.sort_by(|a, b| {
        b.totals
            .tokens()
            .cmp(&a.totals.tokens())
            .then_with(|| a.key.cmp(&b.key))
    });
    buckets
}

/// Thread id → a readable name. Best effort: a failed listing only
/// means the page shows ids, so the error is not passed on.
async fn thread_labels(runtime: &Runtime) -> HashMap<String, String> {
    let mut labels = HashMap::new();
    for archived in [false, true] {
        let query = ListThreads {
            limit: Some(200),
            archived_only: archived,
            ..ListThreads::default()
        };
        for thread in runtime.thread_summaries(&query).await.unwrap_or_default() {
            let label = thread.title.or(thread.preview);
            if let Some(label) = label.filter(|l| !l.trim().is_empty()) {
                labels.insert(thread.id, label);
            }
        }
    }
    labels
}

/// `YYYY-MM-DD` of a day counted from 1970-01-01 (proleptic Gregorian,
/// Howard Hinnant's `civil_from_days`), as the report keys its days.
fn day_key(day: i64) -> String {
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day_of_month = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day_of_month:02}")
}

/// `HH:MM:SS.mmm` of a millisecond of the day.
fn clock(millis: i64) -> String {
    let (hour, minute) = (millis / 3_600_000, millis % 3_600_000 / 60_000);
    let (second, milli) = (millis % 60_000 / 1_000, millis % 1_000);
    format!("{hour:02}:{minute:02}:{second:02}.{milli:03}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(key: &str, input_tokens: u64) -> UsageBucket {
        UsageBucket {
            key: key.into(),
            totals: UsageTotals {
                input_tokens,
                turns: 1,
                ..Default::default()
            },
        }
    }

    #[test]
    fn day_keys_match_the_calendar() {
        assert_eq!(day_key(0), "1970-01-01");
        assert_eq!(day_key(-1), "1969-12-31");
        assert_eq!(day_key(11_016), "2000-02-29");
        assert_eq!(day_key(20_422), "2025-11-30");
        assert_eq!(day_key(20_513), "2026-03-01");
    }

    #[test]
    fn a_range_is_whole_days_ending_now() {
        // 2026-03-01T13:04:05.067Z
        let now = ((20_513 * 24 + 13) * 3_600 + 4 * 60 + 5) * 1_000 + 67;
        let range = Range::ending_at(now, 2);
        assert_eq!(range.since, "2026-02-28T00:00:00.000Z");
        assert_eq!(range.until, "2026-03-01T13:04:05.067Z");
        let one = Range::ending_at(20_513 * MILLIS_PER_DAY, 0);
        assert_eq!(one.since, "2026-03-01T00:00:00.000Z");
    }

    #[test]
    fn missing_days_are_zero_and_in_order() {
        let range = Range::ending_at(20_513 * MILLIS_PER_DAY, 3);
        let days = every_day(&range, vec![bucket("2026-02-27", 5)]);
        let keys: Vec<_> = days.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["2026-02-27", "2026-02-28", "2026-03-01"]);
        assert_eq!(days[0].totals.input_tokens, 5);
        assert_eq!(days[2].totals, UsageTotals::default());
    }

    #[test]
    fn breakdowns_put_the_heaviest_first() {
        let sorted = most_tokens_first(vec![bucket("a", 1), bucket("b", 9), bucket("c", 1)]);
        let keys: Vec<_> = sorted.iter().map(|b| b.key.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
    }
}
