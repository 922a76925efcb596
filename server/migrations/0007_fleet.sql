-- Fleet runs: several workers, each a task (`tasks.fleet_worker_id`), run
-- at most `max_parallel` at a time per run; `fleet_events` is the run's
-- own event log (its `seq` is separate from the thread events').

ALTER TABLE tasks ADD COLUMN fleet_run_id TEXT;
ALTER TABLE tasks ADD COLUMN fleet_worker_id TEXT;
CREATE INDEX tasks_fleet ON tasks (fleet_run_id, status);

CREATE TABLE fleet_runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    workspace TEXT NOT NULL,
    isolation TEXT NOT NULL,
    max_parallel INTEGER NOT NULL,
    auto_approve INTEGER NOT NULL DEFAULT 0,
    -- The commit the worktrees come from, and the top of the user's
    -- repository, where they are added and removed (worktree isolation).
    base_commit TEXT,
    repo_top TEXT,
    cleaned_up INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    stopped_at TEXT,
    finished_at TEXT
) STRICT;

CREATE TABLE fleet_workers (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES fleet_runs (id),
    idx INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    model TEXT,
    model_provider TEXT,
    mode TEXT,
    -- Where it works: the worktree (plus the workspace's subdirectory), or
    -- the run's workspace.
    workspace TEXT NOT NULL,
    worktree TEXT,
    git_dir TEXT,
    branch TEXT,
    task_id TEXT NOT NULL,
    -- The thread its attempts go on, once the first one started.
    thread_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    -- The attempt whose end was recorded (commit and diff stat).
    settled_task_id TEXT,
    commit_oid TEXT,
    diff_stat TEXT,
    UNIQUE (run_id, idx)
) STRICT;

CREATE TABLE fleet_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    worker_id TEXT,
    event TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    payload TEXT NOT NULL
) STRICT;

CREATE INDEX fleet_events_run ON fleet_events (run_id, seq);
