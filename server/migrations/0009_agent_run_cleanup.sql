-- A worktree run's repository (its worktree is removed through it, on
-- request) and when its worktree was removed (the branch stays).
ALTER TABLE agent_runs ADD COLUMN repo_top TEXT;
ALTER TABLE agent_runs ADD COLUMN cleaned_up_at TEXT;
