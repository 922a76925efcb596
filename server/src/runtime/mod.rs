//! The runtime: every operation on threads, turns and events, and every rule
//! about them. `Runtime` is the one face every transport calls (`/v1`
//! handlers, server functions, `exec`, tests, the benchmark); the modules
//! below are its parts.

pub mod agent_runs;
pub mod approvals;
pub mod automations;
pub mod client_tools;
pub mod devices;
mod diagnostics;
pub mod engine;
pub mod error;
pub mod fleet;
pub mod followed;
pub mod git;
pub mod hosted_tools;
pub mod ids;
pub mod instructions;
pub mod mcp;
pub mod pending;
mod review;
mod rewind;
pub mod sessions;
pub mod skills;
pub mod snapshots;
pub mod stream;
pub mod tasks;
pub mod threads;
pub mod turn_writer;
pub mod turns;
pub mod usage;
pub mod usage_overview;
pub mod user_input;
pub mod workspace;

use crate::{
    pricing::Pricing,
    store::{process_lock::ProcessLock, Store, StoreError},
};
use engine::Engine;
use error::RuntimeError;
use git::GitCache;
use protocol::{
    AnswerUserInput, ApprovalDecided, CompactThread, CreateThread, DecideApproval,
    DynamicToolResult, ListThreads, PatchThread, ProviderModels, StartTurn, SteerTurn,
    ThreadDetail, ThreadRecord, ThreadSummary, ToolResultAccepted, TurnItemRecord, TurnRecord,
    TurnStarted, UsageOverview, UsageQuery, UsageReport, UserInputAnswered,
};
use std::{path::PathBuf, sync::Arc, time::Duration};
use stream::{Cursor, Frame};
use tokio::sync::{mpsc, watch};
use turns::TurnManager;

/// What a runtime is built from. `commands::runtime_options` fills it from
/// config.toml; tests fill it by hand (a scripted engine, short waits).
pub struct RuntimeOptions {
    /// `$CODEWHALE_HOME`: the store lives here.
    pub home: PathBuf,
    pub engine: Arc<dyn Engine>,
    /// Token prices for usage reports.
    pub pricing: Pricing,
    /// Workspace of threads created without one.
    pub default_workspace: PathBuf,
    /// How long approvals, user input and client tool calls wait for their
    /// client (zero: nobody will answer, as in `codewhale exec`).
    pub wait_timeout: Duration,
    /// What schedules and pairing expiry read; tests move it forward.
    pub clock: crate::clock::Clock,
    /// How deep and how many sub-agents (`spawn_agent`) may go.
    pub sub_agents: agent_runs::SubAgentLimits,
}

pub struct Runtime {
    store: Arc<Store>,
    turns: Arc<TurnManager>,
    snapshots: Arc<snapshots::Snapshots>,
    git: GitCache,
    pricing: Pricing,
    default_workspace: PathBuf,
    /// Flipped by `stop_streams`; every open event stream ends.
    shutdown: watch::Sender<bool>,
    /// Never read: its clones see the flip even when they are made after
    /// it (a fresh `subscribe()` would count it as already seen, and a
    /// stream opened during shutdown would never end).
    stopped: watch::Receiver<bool>,
    /// Turns an earlier process left running, interrupted by `open`.
    recovered: usize,
    devices: devices::Devices,
    /// Wakes this process's task runner (`tasks.rs`).
    tasks: tasks::TaskQueue,
    /// Wakes this process's automation scheduler (`automations/`).
    scheduler: automations::Scheduler,
    /// Fleet runs' worktrees, runner and stream wake-ups (`fleet/`).
    fleet: fleet::Fleet,
    clock: crate::clock::Clock,
    /// `$CODEWHALE_HOME`: the user's skills and their toggles, the web
    /// edge's site root.
    home: std::path::PathBuf,
    /// Held while this runtime lives: other processes see it in use.
    lock: ProcessLock,
    /// MCP servers from `config.toml` (`mcp/`), shared with the turns.
    mcp: Arc<mcp::McpServersHost>,
}

impl Runtime {
    /// Opens the store and finishes what an earlier process left running
    /// (its turns are marked interrupted, their waits get receipts).
    pub async fn open(options: RuntimeOptions) -> Result<Runtime, StoreError> {
        let mut lock = ProcessLock::acquire(&options.home)?;
        let (store, mut conn) = Store::open_holding(&options.home).await?;
        let store = Arc::new(store);
        let snapshots = Arc::new(snapshots::Snapshots::new(store.clone(), &options.home));
        let agents = Arc::new(agent_runs::SubAgents::new(
            store.clone(),
            options.sub_agents,
            &options.home,
        ));
        // A stdio server with no `cwd` runs in the home, never in a
        // workspace: `npx`, `uvx` and `python -m` read a cloned repository's
        // own `.npmrc`, `uv.toml` or modules from their directory.
        let mcp = Arc::new(mcp::McpServersHost::new(
            &options.home,
            options.home.clone(),
        ));
        let turns = Arc::new(
            TurnManager::new(
                store.clone(),
                options.engine,
                snapshots.clone(),
                agents.clone(),
                &options.home,
            )
            .with_wait_timeout(options.wait_timeout)
            .with_mcp(mcp.clone()),
        );
        // Another process on this store may be running its turns: only a
        // process that has the store to itself recovers (process_lock.rs).
        let recovered = if lock.alone() {
            let recovered = turns.recover(&mut conn).await?;
            tasks::recover(&mut conn).await?;
            // Listed now, before this process spawns anything; the git
            // work runs beside the server.
            let left = agents.left_pending();
            if !left.is_empty() {
                tokio::spawn(async move { agents.discard_unrecorded(left).await });
            }
            recovered
        } else {
            tracing::info!("another codewhale process uses this store; its turns are left to it");
            0
        };
        drop(conn);
        lock.share()?;
        // Decisions taken by another process sharing this store.
        turns.approvals().settle_forwarded();
        let (shutdown, stopped) = watch::channel(false);
        if recovered > 0 {
            tracing::warn!(
                recovered,
                "turns left unfinished by an earlier process were marked interrupted"
            );
        }
        Ok(Runtime {
            devices: devices::Devices::new(store.clone(), options.clock.clone()),
            store,
            turns,
            snapshots,
            git: GitCache::default(),
            pricing: options.pricing,
            default_workspace: options.default_workspace,
            shutdown,
            stopped,
            recovered,
            tasks: Default::default(),
            scheduler: Default::default(),
            fleet: fleet::Fleet::new(&options.home),
            clock: options.clock,
            home: options.home.clone(),
            lock,
            mcp,
        })
    }

    /// How many turns `open` found unfinished and marked interrupted.
    pub fn recovered_turns(&self) -> usize {
        self.recovered
    }

    /// The store, for what is not an operation (tests' fixtures, benches).
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    pub fn default_workspace(&self) -> &std::path::Path {
        &self.default_workspace
    }

    /// `$CODEWHALE_HOME`.
    pub fn home(&self) -> &std::path::Path {
        &self.home
    }

    /// Paired devices and pairing capabilities.
    pub fn devices(&self) -> &devices::Devices {
        &self.devices
    }

    /// Ends every open event stream, and any opened later (server shutdown).
    pub fn stop_streams(&self) {
        self.shutdown.send_replace(true);
    }

    /// Interrupts every turn this process runs and waits until they have
    /// ended (at most the grace an engine gets, then a little): what a
    /// transport does before it exits. Returns how many it interrupted.
    pub async fn interrupt_all(&self) -> usize {
        let running = self.turns.running_turns();
        for (thread_id, turn_id) in &running {
            // A turn that ended meanwhile refuses (409): nothing to do.
            let _ = self.interrupt_turn(thread_id, turn_id).await;
        }
        let deadline =
            tokio::time::Instant::now() + turns::INTERRUPT_GRACE + Duration::from_secs(1);
        while !self.turns.running_threads().is_empty() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        running.len()
    }

    /// Closes the store once callers are done with it, and stops the MCP
    /// servers this process started.
    pub async fn close(&self) {
        self.mcp.stop_all();
        self.store.close().await;
    }

    // Threads.

    pub async fn list_threads(
        &self,
        query: &ListThreads,
    ) -> Result<Vec<ThreadRecord>, RuntimeError> {
        threads::list(&self.store, query).await
    }

    pub async fn thread_summaries(
        &self,
        query: &ListThreads,
    ) -> Result<Vec<ThreadSummary>, RuntimeError> {
        threads::summaries(&self.store, &self.git, query).await
    }

    pub async fn create_thread(&self, request: CreateThread) -> Result<ThreadRecord, RuntimeError> {
        threads::create(&self.store, &self.default_workspace, request).await
    }

    /// The snapshot: records, items and what is waiting on a client.
    pub async fn thread(&self, thread_id: &str) -> Result<ThreadDetail, RuntimeError> {
        self.turns.detail(thread_id).await
    }

    /// Items `start..end` of a thread's transcript (clamped), in order.
    pub async fn thread_items(
        &self,
        thread_id: &str,
        start: usize,
        end: usize,
    ) -> Result<Vec<TurnItemRecord>, RuntimeError> {
        threads::items_in_range(&self.store, thread_id, start, end).await
    }

    pub async fn patch_thread(
        &self,
        thread_id: &str,
        patch: PatchThread,
    ) -> Result<ThreadRecord, RuntimeError> {
        threads::patch(&self.store, thread_id, patch).await
    }

    pub async fn fork_thread(&self, thread_id: &str) -> Result<ThreadRecord, RuntimeError> {
        Ok(threads::fork(&self.store, thread_id, None).await?.0)
    }

    pub async fn resume_thread(&self, thread_id: &str) -> Result<ThreadRecord, RuntimeError> {
        threads::resume(&self.store, thread_id).await
    }

    /// The thread's events after `cursor`, then live ones, in order, until
    /// the receiver is dropped or the runtime stops its streams.
    pub async fn subscribe(
        &self,
        thread_id: &str,
        cursor: Cursor,
    ) -> Result<mpsc::Receiver<Frame>, RuntimeError> {
        let stopped = self.stopped.clone();
        stream::open(self.store.clone(), thread_id.to_string(), cursor, stopped).await
    }

    // Turns.

    pub async fn start_turn(
        &self,
        thread_id: &str,
        request: StartTurn,
    ) -> Result<TurnStarted, RuntimeError> {
        self.turns.start(thread_id, request).await
    }

    pub async fn steer_turn(
        &self,
        thread_id: &str,
        turn_id: &str,
        request: SteerTurn,
    ) -> Result<TurnRecord, RuntimeError> {
        self.turns.steer(thread_id, turn_id, request).await
    }

    pub async fn interrupt_turn(
        &self,
        thread_id: &str,
        turn_id: &str,
    ) -> Result<TurnRecord, RuntimeError> {
        self.turns.interrupt(thread_id, turn_id).await
    }

    /// Starts a compaction turn; follow it on the event stream.
    pub async fn compact_thread(
        &self,
        thread_id: &str,
        request: CompactThread,
    ) -> Result<TurnStarted, RuntimeError> {
        self.turns.compact(thread_id, request).await
    }

    /// `start_turn`, with tools the client runs itself for this turn
    /// (`hosted_tools`: an editor's buffers and terminals, MCP tools).
    pub async fn start_turn_hosted(
        &self,
        thread_id: &str,
        request: StartTurn,
        hosted: hosted_tools::Hosted,
    ) -> Result<TurnStarted, RuntimeError> {
        self.turns.start_hosted(thread_id, request, hosted).await
    }

    // What turns wait on.

    pub async fn decide_approval(
        &self,
        approval_id: &str,
        decision: DecideApproval,
    ) -> Result<ApprovalDecided, RuntimeError> {
        self.turns.approvals().decide(approval_id, decision).await
    }

    pub async fn answer_user_input(
        &self,
        thread_id: &str,
        input_id: &str,
        answers: AnswerUserInput,
    ) -> Result<UserInputAnswered, RuntimeError> {
        self.turns
            .user_inputs()
            .answer(thread_id, input_id, answers)
            .await
    }

    /// The user declined the agent's questions; the turn goes on without.
    pub async fn decline_user_input(
        &self,
        thread_id: &str,
        input_id: &str,
    ) -> Result<(), RuntimeError> {
        self.turns.user_inputs().decline(thread_id, input_id).await
    }

    pub async fn submit_tool_result(
        &self,
        thread_id: &str,
        turn_id: &str,
        call_id: &str,
        result: DynamicToolResult,
    ) -> Result<ToolResultAccepted, RuntimeError> {
        self.turns
            .client_tools()
            .submit(thread_id, turn_id, call_id, result)
            .await
    }

    // Usage and providers.

    pub async fn usage(&self, query: UsageQuery) -> Result<UsageReport, RuntimeError> {
        usage::report(&self.store, &self.pricing, query).await
    }

    /// The last `days` UTC days up to now, as the workbench's usage page
    /// shows them (every day present, breakdowns heaviest first).
    pub async fn usage_overview(&self, days: u32) -> Result<UsageOverview, RuntimeError> {
        usage_overview::overview(self, days).await
    }

    /// The providers and models turns can use.
    pub fn providers(&self) -> Vec<ProviderModels> {
        self.turns.providers()
    }
}
