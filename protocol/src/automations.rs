//! Automations: a prompt run on a schedule (a 5-field cron expression in a
//! time zone, or a fixed interval). Each run is a task.

use crate::{Mode, TaskRecord};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AutomationState {
    Active,
    Paused,
}

/// An automation and when it runs next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AutomationRecord {
    pub id: String,
    pub name: String,
    pub prompt: String,
    /// A 5-field cron expression (minute hour day-of-month month
    /// day-of-week), read in `timezone`; null for an interval.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub schedule: Option<String>,
    /// Seconds between runs; null for a cron schedule.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub interval_seconds: Option<u64>,
    /// An IANA time zone name ("Europe/Paris").
    pub timezone: String,
    /// The schedule in words ("At 09:00 on Monday through Friday").
    pub description: String,
    /// Where each run's new thread works.
    pub workspace: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model_provider: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub mode: Option<Mode>,
    /// Runs' writes and commands go ahead without asking.
    pub auto_approve: bool,
    pub state: AutomationState,
    /// The next scheduled run (UTC); null while paused.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_run_at: Option<String>,
    /// The same time in `timezone`'s offset ("2026-12-07T09:00:00+01:00").
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_run_local: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub last_run_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// `POST /v1/automations`: exactly one of `schedule` and
/// `interval_seconds`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateAutomation {
    pub name: String,
    pub prompt: String,
    /// A 5-field cron expression ("0 9 * * 1-5").
    #[serde(default)]
    pub schedule: Option<String>,
    /// Seconds between runs (at least 60).
    #[serde(default, deserialize_with = "crate::devices::whole_number")]
    pub interval_seconds: Option<u64>,
    /// An IANA time zone name (default: this machine's).
    #[serde(default)]
    pub timezone: Option<String>,
    /// Default: the directory codewhale was started in.
    #[serde(default)]
    pub workspace: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
    #[serde(default)]
    pub mode: Option<Mode>,
    #[serde(default)]
    pub auto_approve: bool,
    /// Created paused (default: active).
    #[serde(default)]
    pub paused: bool,
}

/// `PATCH /v1/automations/{id}`: what is given changes. A `schedule`
/// replaces an interval and the other way round; `model`,
/// `model_provider` and `mode` may be null to clear them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PatchAutomation {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub schedule: Option<String>,
    #[serde(default, deserialize_with = "crate::devices::whole_number")]
    pub interval_seconds: Option<u64>,
    #[serde(default)]
    pub timezone: Option<String>,
    #[serde(default)]
    pub workspace: Option<String>,
    /// A model id; null goes back to the provider's default.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub model: Option<Option<String>>,
    /// A provider id; null goes back to the configured default.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub model_provider: Option<Option<String>>,
    /// null goes back to the default mode.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Mode>))]
    pub mode: Option<Option<Mode>>,
    #[serde(default)]
    pub auto_approve: Option<bool>,
}

/// A field that is there, even as null (`Some(None)`); a missing one is
/// `None` by `default`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// What started a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunTrigger {
    /// Its time came.
    Schedule,
    /// Missed while codewhale was not running; run once on start.
    CatchUp,
    /// `POST /v1/automations/{id}/run`.
    Manual,
}

/// One run of an automation: its task, or why it was skipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AutomationRun {
    pub id: String,
    pub automation_id: String,
    pub trigger: RunTrigger,
    /// The scheduled time it stands for (null for a manual run).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub scheduled_for: Option<String>,
    pub created_at: String,
    /// Why no task ran (the previous run was still going).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub skipped: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub task_id: Option<String>,
    /// The task, unless skipped or since cleared.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub task: Option<TaskRecord>,
}

/// `GET /v1/automations/{id}/runs` query.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ListAutomationRuns {
    /// Newest first (default 20, at most 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// `GET /v1/automations/preview` query: a schedule to check before saving.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct PreviewSchedule {
    #[serde(default)]
    pub schedule: Option<String>,
    #[serde(default)]
    pub interval_seconds: Option<u64>,
    #[serde(default)]
    pub timezone: Option<String>,
}

/// A schedule in words and its next runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SchedulePreview {
    pub description: String,
    pub timezone: String,
    /// The next five runs, in the time zone's offset.
    pub next_runs: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::{CreateAutomation, PatchAutomation};

    #[test]
    fn an_interval_is_a_whole_number_however_it_is_written() {
        let create: CreateAutomation =
            serde_json::from_str(r#"{"name":"n","prompt":"p","interval_seconds":3600.0}"#).unwrap();
        assert_eq!(create.interval_seconds, Some(3600));
        let patch: PatchAutomation = serde_json::from_str(r#"{"interval_seconds":60.0}"#).unwrap();
        assert_eq!(patch.interval_seconds, Some(60));
        assert!(serde_json::from_str::<PatchAutomation>(r#"{"interval_seconds":60.5}"#).is_err());
    }

    #[test]
    fn a_patch_tells_null_from_missing() {
        let patch: PatchAutomation = serde_json::from_str(r#"{"model":null}"#).unwrap();
        assert_eq!(patch.model, Some(None));
        assert_eq!(patch.model_provider, None);
        let patch: PatchAutomation = serde_json::from_str(r#"{"mode":"plan"}"#).unwrap();
        assert_eq!(patch.mode, Some(Some(crate::Mode::Plan)));
    }
}
