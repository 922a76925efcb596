//! Runs fleet workers: claims their queued attempts (at most each run's
//! `max_parallel` at once, outside the general task limit) and records how
//! each attempt ended — its changes committed on the worker's branch, the
//! diff stat against the base, the events.

use super::{log_run, log_worker, recorded, records, store};
use crate::{
    child::worktree::{self, Worktree},
    clock,
    runtime::{error::RuntimeError, Runtime},
    store::tasks,
};
use protocol::fleet_events;
use std::{path::PathBuf, sync::Arc, time::Duration};

/// How often an idle runner looks for workers another process queued.
const POLL: Duration = Duration::from_secs(1);

impl Runtime {
    /// Runs queued fleet workers until the runtime stops. Ends first left
    /// unrecorded by an earlier process are recorded now.
    pub(in crate::runtime) fn run_fleet(self: &Arc<Self>) {
        let runtime = Arc::clone(self);
        // Beside the runner, so a worktree git cannot read does not hold
        // up the queue. Only with the store to ourselves: another process's
        // ends are its own to record.
        if self.lock.alone() {
            let catching_up = runtime.clone();
            tokio::spawn(async move { catching_up.catch_up_fleet().await });
        }
        let inbox = self
            .fleet
            .settle_inbox
            .lock()
            .ok()
            .and_then(|mut i| i.take());
        if let Some(mut inbox) = inbox {
            let settler = runtime.clone();
            tokio::spawn(async move {
                while let Some(worker_id) = inbox.recv().await {
                    settler.settle_worker(&worker_id).await;
                }
            });
        }
        tokio::spawn(async move {
            let mut stopped = runtime.stopped.clone();
            loop {
                match tasks::claim_fleet(runtime.store.pool(), &clock::now()).await {
                    Ok(Some(row)) => {
                        let runtime = runtime.clone();
                        tokio::spawn(async move { runtime.run_task(row).await });
                        continue;
                    }
                    Ok(None) => {}
                    Err(error) => tracing::warn!(%error, "reading the fleet queue failed"),
                }
                tokio::select! {
                    () = runtime.fleet.queued.notified() => {}
                    () = tokio::time::sleep(POLL) => {}
                    _ = stopped.wait_for(|stopped| *stopped) => return,
                }
            }
        });
    }

    /// Records the ends an earlier process left unrecorded, and marks the
    /// runs they finished.
    async fn catch_up_fleet(&self) {
        let pool = self.store.pool();
        match store::unsettled(pool).await {
            Ok(ids) => {
                for id in ids {
                    self.settle_worker(&id).await;
                }
            }
            Err(error) => tracing::warn!(%error, "reading unrecorded fleet workers failed"),
        }
        for run_id in store::unfinished_runs(pool).await.unwrap_or_default() {
            self.finish_run_if_done(&run_id).await;
        }
    }

    /// Marks the run finished and says so, when its last worker's end is
    /// recorded.
    async fn finish_run_if_done(&self, run_id: &str) {
        let finished = async {
            let mut tx = self.begin_fleet().await?;
            if store::finish_if_done(&mut *tx, run_id, &clock::now()).await? {
                let seq = log_run(&mut tx, run_id, fleet_events::RUN_FINISHED).await?;
                self.commit_fleet(tx, seq).await?;
            }
            Ok::<_, RuntimeError>(())
        };
        if let Err(error) = finished.await {
            tracing::error!(%error, run = run_id, "recording a fleet run's end failed");
        }
    }

    /// A worker's attempt has its thread and turn.
    pub(in crate::runtime) async fn fleet_worker_started(&self, worker_id: &str) {
        let started = async {
            let mut tx = self.begin_fleet().await?;
            let Some(view) = store::worker(&mut *tx, worker_id).await? else {
                return Ok(());
            };
            if let Some(thread) = &view.task_thread_id {
                store::set_thread(&mut *tx, worker_id, thread).await?;
            }
            let seq = log_worker(&mut tx, worker_id, fleet_events::WORKER_STARTED).await?;
            self.commit_fleet(tx, seq).await
        };
        if let Err(error) = started.await {
            tracing::warn!(%error, worker = worker_id, "recording a fleet worker's start failed");
        }
    }

    /// `settle_worker` by the runner, in the background: for requests
    /// that end a worker, which answer at once. An end left unrecorded by
    /// a process that stops first is recorded by the next one's catch-up.
    pub(in crate::runtime) fn settle_worker_later(&self, worker_id: &str) {
        if self.fleet.to_settle.send(worker_id.to_string()).is_err() {
            tracing::warn!(
                worker = worker_id,
                "the fleet runner is gone; the worker's end is recorded on restart"
            );
        }
    }

    /// Notes, before it is written, that a worker's attempt ends in this
    /// process (see `Fleet::ended_here`).
    pub(in crate::runtime) fn attempt_ends_here(&self, task_id: &str) {
        if let Ok(mut ended) = self.fleet.ended_here.lock() {
            ended.insert(task_id.to_string());
        }
    }

    /// Records the ended attempt `view` shows now, for a request that needs
    /// it recorded, when it ended in this process (the runner records it
    /// too, but later; recording is once per attempt and one at a time).
    /// In a task of its own, so a client that goes away cannot cut it
    /// between the commit and the store. False when it is not ours.
    pub(in crate::runtime) async fn settle_now(self: &Arc<Self>, view: &store::WorkerView) -> bool {
        let ours = self
            .fleet
            .ended_here
            .lock()
            .is_ok_and(|ended| ended.contains(&view.worker.task_id));
        if !ours {
            return false;
        }
        let runtime = Arc::clone(self);
        let worker_id = view.worker.id.clone();
        tokio::spawn(async move { runtime.settle_worker(&worker_id).await })
            .await
            .is_ok()
    }

    /// Records the end of the worker's current attempt, once: commits its
    /// changes on its branch, measures them, and says so; the run's end
    /// when it was the last. A slot may have opened: the runner looks.
    pub(in crate::runtime) async fn settle_worker(&self, worker_id: &str) {
        let _one_at_a_time = self.fleet.settling.lock().await;
        self.fleet.queued.notify_one();
        let Ok(view) = self.worker_view(worker_id).await else {
            return;
        };
        let _recorded = EndedHere(self, &view.worker.task_id);
        let worker = &view.worker;
        if !records::is_final(&view.status) || recorded(&view) {
            return;
        }
        let (commit, stat) = match self.commit_worker(&view).await {
            Ok(done) => done,
            Err(error) => {
                tracing::warn!(%error, worker = worker_id, "recording a fleet worker's changes failed");
                (None, None)
            }
        };
        let stat = stat.and_then(|s| serde_json::to_string(&s).ok());
        let settled = async {
            let mut tx = self.begin_fleet().await?;
            let settled = store::settle(
                &mut *tx,
                worker_id,
                &worker.task_id,
                commit.as_deref(),
                stat.as_deref(),
            )
            .await?;
            if settled {
                let seq = log_worker(&mut tx, worker_id, fleet_events::WORKER_FINISHED).await?;
                self.commit_fleet(tx, seq).await?;
            }
            Ok::<_, RuntimeError>(settled)
        };
        match settled.await {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) => {
                return tracing::error!(%error, worker = worker_id, "recording a fleet worker's end failed")
            }
        }
        self.finish_run_if_done(&worker.run_id).await;
    }

    /// Commits what the attempt changed in the worker's worktree and
    /// measures its branch against the run's base commit.
    async fn commit_worker(
        &self,
        view: &store::WorkerView,
    ) -> Result<(Option<String>, Option<protocol::DiffStat>), String> {
        let worker = &view.worker;
        let (Some(path), Some(git_dir), Some(branch)) =
            (&worker.worktree, &worker.git_dir, &worker.branch)
        else {
            return Ok((None, None)); // shared: nothing of its own to commit
        };
        let run = self
            .run_row(&worker.run_id)
            .await
            .map_err(|e| e.to_string())?;
        let Some(base) = run.base_commit.as_deref() else {
            return Ok((None, None));
        };
        if run.cleaned_up {
            return Ok((None, None));
        }
        let tree = Worktree {
            path: PathBuf::from(path),
            git_dir: PathBuf::from(git_dir),
        };
        let title = crate::runtime::threads::title_from_prompt(&worker.prompt)
            .unwrap_or_else(|| "fleet worker".into());
        let message = format!(
            "{title}\n\ncodewhale fleet run {} worker {} (attempt {}, {})",
            worker.run_id, worker.idx, worker.attempts, view.status
        );
        let commit = worktree::commit_all(&tree, branch, &message).await?;
        let stat = worktree::diff_stat(&tree, base, branch).await?;
        Ok((commit, Some(stat)))
    }
}

/// Forgets an attempt in `Fleet::ended_here` once `settle_worker` is done
/// with it, whichever way it returns.
struct EndedHere<'a>(&'a Runtime, &'a str);

impl Drop for EndedHere<'_> {
    fn drop(&mut self) {
        if let Ok(mut ended) = self.0.fleet.ended_here.lock() {
            ended.remove(self.1);
        }
    }
}
