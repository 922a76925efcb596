-- Automations: prompts run on a schedule. `next_run_at` is stored so the
-- schedule survives restarts; a run is claimed by moving it forward in one
-- statement (store/automations.rs), so two processes never both fire it.
-- `version` goes up with every write: a change made from a stale read
-- (a patch racing a pause or the scheduler) is refused and redone.

CREATE TABLE automations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    prompt TEXT NOT NULL,
    schedule TEXT,
    interval_seconds INTEGER,
    timezone TEXT NOT NULL,
    workspace TEXT NOT NULL,
    model TEXT,
    model_provider TEXT,
    mode TEXT,
    auto_approve INTEGER NOT NULL DEFAULT 0,
    paused INTEGER NOT NULL DEFAULT 0,
    next_run_at TEXT,
    last_run_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    CHECK ((schedule IS NULL) <> (interval_seconds IS NULL))
) STRICT;

-- One row per run: the task it queued, or why it was skipped.
CREATE TABLE automation_runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    automation_id TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
    trigger TEXT NOT NULL,
    scheduled_for TEXT,
    skipped TEXT,
    task_id TEXT,
    created_at TEXT NOT NULL
) STRICT;

CREATE INDEX automation_runs_by_automation ON automation_runs (automation_id, seq);
