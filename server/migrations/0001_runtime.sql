-- The durable runtime store: threads, turns, items and the global event log.

CREATE TABLE threads (
    id TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    model TEXT,
    model_provider TEXT,
    workspace TEXT,
    mode TEXT NOT NULL DEFAULT 'agent',
    allow_shell INTEGER NOT NULL DEFAULT 0,
    trust_mode INTEGER NOT NULL DEFAULT 0,
    auto_approve INTEGER NOT NULL DEFAULT 0,
    title TEXT,
    system_prompt TEXT,
    task_id TEXT,
    latest_turn_id TEXT,
    latest_response_bookmark TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    dynamic_tools TEXT NOT NULL DEFAULT '[]',
    -- First words of the latest user message, for lists and search.
    preview TEXT
) STRICT;

CREATE INDEX threads_by_recency ON threads (archived, updated_at DESC, id DESC);

CREATE TABLE turns (
    id TEXT PRIMARY KEY NOT NULL,
    thread_id TEXT NOT NULL REFERENCES threads (id),
    status TEXT NOT NULL,
    input_summary TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    duration_ms INTEGER,
    usage TEXT NOT NULL DEFAULT '{}',
    effective_provider TEXT,
    effective_model TEXT,
    effective_billing_surface TEXT,
    error TEXT,
    steer_count INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX turns_by_thread ON turns (thread_id, created_at);

CREATE TABLE items (
    id TEXT PRIMARY KEY NOT NULL,
    turn_id TEXT NOT NULL REFERENCES turns (id),
    thread_id TEXT NOT NULL REFERENCES threads (id),
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    summary TEXT NOT NULL DEFAULT '',
    detail TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    started_at TEXT,
    ended_at TEXT,
    position INTEGER NOT NULL
) STRICT;

CREATE INDEX items_by_thread ON items (thread_id, position);

-- seq is allocated by the store (never by SQLite) so that it is never reused.
CREATE TABLE events (
    seq INTEGER PRIMARY KEY NOT NULL,
    thread_id TEXT NOT NULL,
    turn_id TEXT,
    item_id TEXT,
    event TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    payload TEXT NOT NULL
) STRICT;

CREATE INDEX events_by_thread ON events (thread_id, seq);

-- High-water mark of handed-out sequence numbers. Bumped, and committed on
-- its own, before any number above it is used.
CREATE TABLE seq_reservation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    reserved_through INTEGER NOT NULL
) STRICT;

INSERT INTO seq_reservation (id, reserved_through) VALUES (1, 0);
