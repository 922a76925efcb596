//! Starting a fleet run: every check first, then the worktrees, then one
//! transaction that stores the run, its workers and their first tasks.

use super::{log_run, log_worker, store, DEFAULT_PARALLEL, MAX_PARALLEL, MAX_WORKERS};
use crate::{
    child::worktree::{self, Repository},
    clock,
    runtime::{error::RuntimeError, ids, tasks::MAX_PROMPT_BYTES, threads, Runtime},
    store::{
        fleet::{FleetRunRow, FleetWorkerRow},
        tasks::{self, TaskRow},
    },
};
use protocol::{fleet_events, CreateFleetRun, CreateTask, FleetIsolation, FleetRunDetail};
use std::path::Path;

impl Runtime {
    pub async fn create_fleet_run(
        &self,
        request: CreateFleetRun,
    ) -> Result<FleetRunDetail, RuntimeError> {
        let count = request.workers.len();
        if !(1..=MAX_WORKERS).contains(&count) {
            return Err(RuntimeError::invalid(format!(
                "a fleet has 1 to {MAX_WORKERS} workers"
            )));
        }
        let max_parallel = match request.max_parallel {
            Some(n) if (1..=u64::from(MAX_PARALLEL)).contains(&n) => n as u32,
            Some(_) => {
                return Err(RuntimeError::invalid(format!(
                    "max_parallel must be between 1 and {MAX_PARALLEL}"
                )))
            }
            None => (count as u32).min(DEFAULT_PARALLEL),
        };
        for worker in &request.workers {
            if worker.prompt.len() > MAX_PROMPT_BYTES {
                return Err(RuntimeError::TooLarge(format!(
                    "a worker's prompt exceeds {MAX_PROMPT_BYTES} bytes"
                )));
            }
        }
        let workspace = threads::canonical_workspace(&request.workspace)?;
        let run_id = ids::new(ids::FLEET_RUN);
        let repository = match request.isolation {
            FleetIsolation::Worktree => Some(
                worktree::inspect(Path::new(&workspace))
                    .await
                    .map_err(RuntimeError::Conflict)?,
            ),
            FleetIsolation::Shared => None,
        };
        let now = clock::now();
        let run = FleetRunRow {
            id: run_id.clone(),
            workspace: workspace.clone(),
            isolation: request.isolation.as_str().into(),
            max_parallel: max_parallel.into(),
            auto_approve: request.auto_approve,
            base_commit: repository.as_ref().map(|r| r.head.clone()),
            repo_top: repository.as_ref().map(|r| r.top.display().to_string()),
            cleaned_up: false,
            created_at: now.clone(),
            stopped_at: None,
            finished_at: None,
        };
        // Every task first: a bad prompt or model refuses the run before
        // any worktree exists.
        let mut rows = Vec::with_capacity(count);
        for spec in &request.workers {
            let mut task = self
                .task_row(CreateTask {
                    prompt: spec.prompt.clone(),
                    model: spec.model.clone(),
                    model_provider: spec.model_provider.clone(),
                    mode: spec.mode,
                    auto_approve: request.auto_approve,
                    ..CreateTask::default()
                })
                .await?;
            task.fleet_run_id = Some(run_id.clone());
            rows.push(task);
        }
        let mut workers = Vec::with_capacity(count);
        for (n, (spec, task)) in request.workers.iter().zip(rows.iter_mut()).enumerate() {
            let index = n as i64 + 1;
            let worker_id = ids::new(ids::FLEET_WORKER);
            task.fleet_worker_id = Some(worker_id.clone());
            let mut worker = FleetWorkerRow {
                id: worker_id,
                run_id: run_id.clone(),
                idx: index,
                prompt: spec.prompt.clone(),
                model: spec.model.clone(),
                model_provider: spec.model_provider.clone(),
                mode: spec.mode.map(|m| m.as_str().to_string()),
                workspace: workspace.clone(),
                worktree: None,
                git_dir: None,
                branch: None,
                task_id: task.id.clone(),
                thread_id: None,
                attempts: 1,
                settled_task_id: None,
                commit_oid: None,
                diff_stat: None,
            };
            if let Some(repository) = &repository {
                let made = self
                    .add_worktree(&run_id, index, repository, &mut worker)
                    .await;
                if let Err(error) = made {
                    self.remove_worktrees(repository, &workers).await;
                    return Err(error);
                }
            }
            task.workspace = Some(worker.workspace.clone());
            workers.push(worker);
        }
        let stored = self.store_run(&run, &rows, &workers).await;
        if let Err(error) = stored {
            if let Some(repository) = &repository {
                self.remove_worktrees(repository, &workers).await;
            }
            return Err(error);
        }
        self.fleet.queued.notify_one();
        self.fleet_run(&run_id).await
    }

    /// Makes worker `index`'s worktree and branch, and points the worker
    /// at it (at the workspace's own subdirectory inside it).
    async fn add_worktree(
        &self,
        run_id: &str,
        index: i64,
        repository: &Repository,
        worker: &mut FleetWorkerRow,
    ) -> Result<(), RuntimeError> {
        let path = self.fleet.worktrees.join(run_id).join(index.to_string());
        let branch = format!("codewhale/{run_id}/{index}");
        let (made, inside) = worktree::add_for_workspace(repository, &path, &branch)
            .await
            .map_err(RuntimeError::Conflict)?;
        worker.workspace = inside.display().to_string();
        worker.worktree = Some(made.path.display().to_string());
        worker.git_dir = Some(made.git_dir.display().to_string());
        worker.branch = Some(branch);
        Ok(())
    }

    async fn store_run(
        &self,
        run: &FleetRunRow,
        tasks_rows: &[TaskRow],
        workers: &[FleetWorkerRow],
    ) -> Result<(), RuntimeError> {
        let mut tx = self.begin_fleet().await?;
        store::insert_run(&mut tx, run).await?;
        for task in tasks_rows {
            tasks::insert(&mut *tx, task).await?;
        }
        for worker in workers {
            store::insert_worker(&mut tx, worker).await?;
        }
        let mut seq = log_run(&mut tx, &run.id, fleet_events::RUN_CREATED).await?;
        for worker in workers {
            seq = log_worker(&mut tx, &worker.id, fleet_events::WORKER_QUEUED).await?;
        }
        self.commit_fleet(tx, seq).await
    }

    /// Best effort: the worktrees and branches of a run that could not start.
    async fn remove_worktrees(&self, repository: &Repository, workers: &[FleetWorkerRow]) {
        for worker in workers {
            if let (Some(path), Some(branch)) = (&worker.worktree, &worker.branch) {
                worktree::discard(&repository.top, Path::new(path), branch).await;
            }
        }
    }
}
