-- The instruction files a turn's system prompt added (JSON: path, scope,
-- sha256, bytes, truncated), never their contents. Set when it starts.
ALTER TABLE turns ADD COLUMN instructions TEXT NOT NULL DEFAULT '[]';
