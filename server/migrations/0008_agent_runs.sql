-- Sub-agent runs: a child thread's turn started by a parent turn's
-- `spawn_agent` call. How the run is going is the child turn's status;
-- `ended_at` is set once, in the transaction that writes `agent.completed`
-- on the parent's stream.

CREATE TABLE agent_runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    parent_thread_id TEXT NOT NULL,
    parent_turn_id TEXT NOT NULL,
    parent_item_id TEXT NOT NULL,
    thread_id TEXT NOT NULL UNIQUE,
    turn_id TEXT NOT NULL,
    depth INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    mode TEXT NOT NULL,
    isolation TEXT NOT NULL,
    wait INTEGER NOT NULL,
    model TEXT,
    model_provider TEXT,
    workspace TEXT NOT NULL,
    -- Worktree isolation: where, on which branch, from which commit; and
    -- when the run ended, the commit of its work and its diff stat (JSON).
    worktree TEXT,
    git_dir TEXT,
    branch TEXT,
    base_commit TEXT,
    commit_oid TEXT,
    diff_stat TEXT,
    created_at TEXT NOT NULL,
    ended_at TEXT
) STRICT;

CREATE INDEX agent_runs_parent ON agent_runs (parent_thread_id, seq);
CREATE INDEX agent_runs_open ON agent_runs (ended_at) WHERE ended_at IS NULL;
-- Spawns per turn are counted under the write lock.
CREATE INDEX agent_runs_by_parent_turn ON agent_runs (parent_turn_id);

-- A receipt reads its child turn's items (and end_in, inside the write lock).
CREATE INDEX items_by_turn ON items (turn_id, position);
