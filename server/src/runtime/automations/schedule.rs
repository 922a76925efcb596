//! When an automation runs: a 5-field cron expression read in an IANA time
//! zone (croner), or a fixed interval. Times in and out are UTC.

use crate::runtime::error::RuntimeError;
use chrono::{DateTime, LocalResult, NaiveDateTime, TimeDelta, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use croner::{
    parser::{CronParser, Seconds, Year},
    Cron,
};

/// Shorter intervals would be a busy loop of turns, not an automation.
pub const MIN_INTERVAL_SECS: u64 = 60;
pub const MAX_INTERVAL_SECS: u64 = 366 * 24 * 3600;
/// Exactly one of the two, as the OpenAPI document states for bodies.
pub const ONE_SCHEDULE: &str =
    "give exactly one of schedule (a cron expression) and interval_seconds";
const MAX_EXPRESSION_BYTES: usize = 200;
/// Matches tried for one next run: enough to step over every time a
/// repeated hour or a gap swallows (`* * * * *` across a fall-back hour).
const MAX_CANDIDATES: usize = 200;
/// The longest clock change there is (Lord Howe's is 30 min; most are 60).
const GAP_SEARCH_MINUTES: usize = 180;

enum Rule {
    Cron(Box<Cron>),
    Every(TimeDelta),
}

pub struct Schedule {
    rule: Rule,
    zone: Tz,
}

impl Schedule {
    /// Exactly one of `cron` and `interval_secs`; the zone defaults to the
    /// machine's.
    pub fn parse(
        cron: Option<&str>,
        interval_secs: Option<u64>,
        timezone: Option<&str>,
    ) -> Result<Self, RuntimeError> {
        let zone = match timezone {
            Some(name) => name.trim().parse::<Tz>().map_err(|_| {
                let mut shown = name.to_string();
                crate::text::clip(&mut shown, 64, "…");
                RuntimeError::Conflict(format!(
                    "unknown time zone {shown:?}: use an IANA name like \"Europe/Paris\""
                ))
            })?,
            None => machine_zone(),
        };
        let rule = match (cron, interval_secs) {
            (Some(expression), None) => Rule::Cron(Box::new(parse_cron(expression)?)),
            (None, Some(secs)) => {
                if !(MIN_INTERVAL_SECS..=MAX_INTERVAL_SECS).contains(&secs) {
                    return Err(RuntimeError::Invalid(format!(
                        "interval_seconds must be between {MIN_INTERVAL_SECS} and {MAX_INTERVAL_SECS}"
                    )));
                }
                Rule::Every(TimeDelta::seconds(secs as i64))
            }
            _ => return Err(RuntimeError::Invalid(ONE_SCHEDULE.into())),
        };
        Ok(Self { rule, zone })
    }

    pub fn timezone(&self) -> &'static str {
        self.zone.name()
    }

    /// The first run strictly after `now`. An interval counts from
    /// `anchor` (the run it follows, or the automation's start) so its
    /// runs keep their rhythm; a missed stretch is skipped, not replayed.
    pub fn next_after(&self, now: DateTime<Utc>, anchor: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match &self.rule {
            Rule::Cron(cron) => self.next_cron(cron, now),
            Rule::Every(step) => {
                if anchor > now {
                    return Some(anchor);
                }
                let elapsed = (now - anchor).num_milliseconds();
                let step_ms = step.num_milliseconds();
                let steps = elapsed / step_ms + 1;
                anchor.checked_add_signed(TimeDelta::milliseconds(steps.checked_mul(step_ms)?))
            }
        }
    }

    /// Cron times are wall-clock times in the zone: matched on the local
    /// calendar, then placed. A time the clocks skip (spring forward) runs
    /// at the first instant after the gap; a time that happens twice (fall
    /// back) runs once, at its first instant. Only times after `now` count.
    fn next_cron(&self, cron: &Cron, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let mut after = now.with_timezone(&self.zone).naive_local();
        // Bounded: each pass moves `after` forward to the next match.
        for _ in 0..MAX_CANDIDATES {
            let candidate = cron.find_next_occurrence(&after, false).ok()?;
            if let Some(at) = self.place(candidate).filter(|at| *at > now) {
                return Some(at);
            }
            after = candidate;
        }
        None
    }

    /// The instant a local wall-clock time stands for (see `next_cron`).
    fn place(&self, local: NaiveDateTime) -> Option<DateTime<Utc>> {
        match self.zone.from_local_datetime(&local) {
            LocalResult::Single(at) => Some(at.with_timezone(&Utc)),
            LocalResult::Ambiguous(first, _) => Some(first.with_timezone(&Utc)),
            LocalResult::None => {
                // In a gap: the first minute that exists after it.
                let mut probe = local;
                for _ in 0..(GAP_SEARCH_MINUTES) {
                    probe += TimeDelta::minutes(1);
                    if let Some(at) = self.zone.from_local_datetime(&probe).earliest() {
                        let start = at - TimeDelta::seconds(i64::from(at.second()));
                        return Some(start.with_timezone(&Utc));
                    }
                }
                None
            }
        }
    }

    /// `at` in the zone's offset, to the second.
    pub fn local(&self, at: DateTime<Utc>) -> String {
        at.with_timezone(&self.zone)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
    }

    /// The next `count` runs after `now`, in the zone's offset.
    pub fn upcoming(&self, now: DateTime<Utc>, count: usize) -> Vec<String> {
        let mut runs = Vec::with_capacity(count);
        let mut after = now;
        let mut anchor = now;
        while runs.len() < count {
            let Some(next) = self.next_after(after, anchor) else {
                break;
            };
            runs.push(self.local(next));
            after = next;
            anchor = next;
        }
        runs
    }

    pub fn describe(&self) -> String {
        match &self.rule {
            Rule::Cron(cron) => format!("{} ({})", cron.describe(), self.zone.name()),
            Rule::Every(step) => describe_interval(step.num_seconds()),
        }
    }
}

/// A cron expression's grammar is more than a schema can state, so an
/// expression this server cannot read is a 409 (as a workspace that is
/// not there is), not a 400 the OpenAPI document would have to predict.
fn parse_cron(expression: &str) -> Result<Cron, RuntimeError> {
    let expression = expression.trim();
    if expression.len() > MAX_EXPRESSION_BYTES {
        return Err(RuntimeError::Conflict("schedule is too long".into()));
    }
    let fields = expression.split_whitespace().count();
    if fields != 5 {
        return Err(RuntimeError::Conflict(format!(
            "schedule must be a 5-field cron expression (minute hour day-of-month month day-of-week), got {fields} fields"
        )));
    }
    let cron = CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
        .parse(expression)
        .map_err(|e| RuntimeError::Conflict(format!("schedule {expression:?}: {e}")))?;
    // A pattern that never matches (30 February) is refused now, not at
    // its first run.
    if cron.find_next_occurrence(&Utc::now(), false).is_err() {
        return Err(RuntimeError::Conflict(format!(
            "schedule {expression:?} never runs"
        )));
    }
    Ok(cron)
}

fn describe_interval(secs: i64) -> String {
    let units = [
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ];
    for (size, name) in units {
        if secs % size == 0 {
            let n = secs / size;
            return if n == 1 {
                format!("Every {name}")
            } else {
                format!("Every {n} {name}s")
            };
        }
    }
    format!("Every {secs} seconds")
}

/// This machine's zone, or UTC when it has none codewhale knows.
pub fn machine_zone() -> Tz {
    iana_time_zone::get_timezone()
        .ok()
        .and_then(|name| name.parse().ok())
        .unwrap_or(Tz::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn cron_runs_in_its_zone() {
        let s = Schedule::parse(Some("0 9 * * 1-5"), None, Some("Europe/Paris")).unwrap();
        // Friday 2026-12-04 10:00 UTC is 11:00 in Paris: next is Monday 09:00 Paris.
        let next = s.next_after(at("2026-12-04T10:00:00Z"), at("2026-12-04T10:00:00Z"));
        assert_eq!(next, Some(at("2026-12-07T08:00:00Z")));
        assert!(s.describe().contains("Europe/Paris"));
    }

    #[test]
    fn intervals_keep_their_rhythm_and_skip_missed_stretches() {
        let s = Schedule::parse(None, Some(3600), Some("UTC")).unwrap();
        let anchor = at("2026-12-01T00:00:00Z");
        assert_eq!(
            s.next_after(at("2026-12-01T05:30:00Z"), anchor),
            Some(at("2026-12-01T06:00:00Z"))
        );
        assert_eq!(s.describe(), "Every hour");
        assert_eq!(describe_interval(5400), "Every 90 minutes");
    }

    #[test]
    fn spring_forward_runs_once_after_the_gap() {
        // 2027-03-14 in New York: 02:00 → 03:00 EDT (07:00 UTC).
        let s = Schedule::parse(Some("0,30 2 13-15 3 *"), None, Some("America/New_York")).unwrap();
        let runs: Vec<String> = s.upcoming(at("2027-03-12T12:00:00Z"), 4);
        assert_eq!(
            runs,
            [
                "2027-03-13T02:00:00-05:00",
                "2027-03-13T02:30:00-05:00",
                "2027-03-14T03:00:00-04:00",
                "2027-03-15T02:00:00-04:00",
            ]
        );
        let every = Schedule::parse(Some("*/15 2 14 3 *"), None, Some("America/New_York")).unwrap();
        assert_eq!(
            every.upcoming(at("2027-03-13T12:00:00Z"), 1),
            ["2027-03-14T03:00:00-04:00"]
        );
    }

    #[test]
    fn fall_back_runs_a_repeated_time_once() {
        // 2027-11-07 in New York: 02:00 EDT → 01:00 EST; 01:xx happens twice.
        let s = Schedule::parse(Some("0,30 1 7 11 *"), None, Some("America/New_York")).unwrap();
        let runs = s.upcoming(at("2027-11-06T12:00:00Z"), 3);
        assert_eq!(
            runs[..2],
            ["2027-11-07T01:00:00-04:00", "2027-11-07T01:30:00-04:00"]
        );
        assert!(runs[2].starts_with("2028-"), "{runs:?}");
        let daily = Schedule::parse(Some("30 1 * * *"), None, Some("America/New_York")).unwrap();
        let runs = daily.upcoming(at("2027-11-06T12:00:00Z"), 2);
        assert_eq!(
            runs,
            ["2027-11-07T01:30:00-04:00", "2027-11-08T01:30:00-05:00"]
        );
    }

    #[test]
    fn bad_schedules_are_refused() {
        for (cron, interval, zone) in [
            (Some("* * * *"), None, None),
            (Some("0 0 0 * * *"), None, None),
            (Some("61 * * * *"), None, None),
            (Some("0 0 30 2 *"), None, None),
            (None, Some(5), None),
            (None, None, None),
            (Some("* * * * *"), Some(60), None),
            (Some("* * * * *"), None, Some("Mars/Olympus")),
        ] {
            assert!(
                Schedule::parse(cron, interval, zone).is_err(),
                "{cron:?} {interval:?} {zone:?}"
            );
        }
    }
}
