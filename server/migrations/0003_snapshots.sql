-- Workspace snapshots (commits in codewhale's side repository, one per
-- workspace, under $CODEWHALE_HOME/snapshots) and undone turns.

-- Set when undo, retry or edit took the turn back: the model no longer
-- sees its items; the transcript still shows them, marked.
ALTER TABLE turns ADD COLUMN undone_at TEXT;

CREATE TABLE snapshots (
    id TEXT PRIMARY KEY NOT NULL,
    workspace TEXT NOT NULL,
    thread_id TEXT,
    turn_id TEXT,
    -- pre_turn | post_turn | pre_restore | restore
    kind TEXT NOT NULL,
    label TEXT NOT NULL,
    -- The side repository's tree and commit for this state.
    tree TEXT NOT NULL,
    git_commit TEXT NOT NULL,
    -- For a restore: the snapshot restored.
    restored_from TEXT,
    created_at TEXT NOT NULL
) STRICT;

CREATE INDEX snapshots_by_workspace ON snapshots (workspace);
CREATE INDEX snapshots_by_thread ON snapshots (thread_id);
