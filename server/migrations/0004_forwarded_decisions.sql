-- Two codewhale processes may share this store (`codewhale web` and an
-- editor's `codewhale acp`). An approval lives in the memory of the process
-- running its turn; a decision taken in the other process is left here for
-- the owner to settle (and delete).
CREATE TABLE forwarded_decisions (
    approval_id TEXT PRIMARY KEY NOT NULL,
    decision TEXT NOT NULL,
    remember INTEGER NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

-- The turns still running (a handful), for forwarding decisions.
CREATE INDEX turns_active ON turns (thread_id) WHERE status IN ('queued', 'in_progress');
