-- Tasks: turns queued to run with no client attached. `seq` is the queue
-- order; every change is a single statement (store/tasks.rs).

CREATE TABLE tasks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    prompt TEXT NOT NULL,
    workspace TEXT,
    model TEXT,
    model_provider TEXT,
    mode TEXT,
    auto_approve INTEGER NOT NULL DEFAULT 0,
    requeue_on_restart INTEGER NOT NULL DEFAULT 0,
    thread_id TEXT,
    turn_id TEXT,
    answer TEXT,
    error TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
) STRICT;

CREATE INDEX tasks_status ON tasks (status, seq);
