//! Fleet rows as the API shows them.

use crate::store::fleet::{FleetRunRow, WorkerView};
use protocol::{
    DiffStat, FleetCounts, FleetIsolation, FleetRun, FleetRunStatus, FleetWorker, Mode, TaskStatus,
};

pub fn is_final(status: &str) -> bool {
    TaskStatus::parse(status).is_none_or(TaskStatus::is_final)
}

pub fn worker(view: WorkerView) -> FleetWorker {
    let w = view.worker;
    FleetWorker {
        status: TaskStatus::parse(&view.status).unwrap_or(TaskStatus::Failed),
        mode: w.mode.as_deref().and_then(|m| Mode::parse(m).ok()),
        diff_stat: w
            .diff_stat
            .as_deref()
            .and_then(|s| serde_json::from_str::<DiffStat>(s).ok()),
        worker_id: w.id,
        run_id: w.run_id,
        index: w.idx as u32,
        prompt: w.prompt,
        model: w.model,
        model_provider: w.model_provider,
        task_id: w.task_id,
        attempts: w.attempts as u32,
        workspace: w.workspace,
        branch: w.branch,
        thread_id: view.task_thread_id.or(w.thread_id),
        turn_id: view.turn_id,
        answer: view.answer,
        error: view.error,
        commit: w.commit_oid,
        started_at: view.started_at,
        finished_at: view.finished_at,
    }
}

pub fn run(row: FleetRunRow, workers: &[WorkerView]) -> FleetRun {
    let mut counts = FleetCounts::default();
    for view in workers {
        let slot = match TaskStatus::parse(&view.status) {
            Some(TaskStatus::Queued) => &mut counts.queued,
            Some(TaskStatus::Running) => &mut counts.running,
            Some(TaskStatus::Completed) => &mut counts.completed,
            Some(TaskStatus::Cancelled) => &mut counts.cancelled,
            Some(TaskStatus::Interrupted) => &mut counts.interrupted,
            Some(TaskStatus::Failed) | None => &mut counts.failed,
        };
        *slot += 1;
    }
    let worker_count = workers.len() as u32;
    let status = if counts.queued + counts.running > 0 {
        FleetRunStatus::Running
    } else if row.stopped_at.is_some() {
        FleetRunStatus::Stopped
    } else if counts.completed == worker_count {
        FleetRunStatus::Completed
    } else {
        FleetRunStatus::Failed
    };
    FleetRun {
        status,
        isolation: FleetIsolation::parse(&row.isolation).unwrap_or_default(),
        id: row.id,
        workspace: row.workspace,
        max_parallel: row.max_parallel as u32,
        auto_approve: row.auto_approve,
        base_commit: row.base_commit,
        worker_count,
        counts,
        cleaned_up: row.cleaned_up,
        created_at: row.created_at,
        stopped_at: row.stopped_at,
        finished_at: row.finished_at,
    }
}
