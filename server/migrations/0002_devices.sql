-- Paired devices (phones) and their sessions.

CREATE TABLE devices (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    user_agent TEXT,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    last_address TEXT
) STRICT;

-- tower-sessions' SQLite store schema (tower-sessions-sqlx-store). `id` is
-- a SHA-256 of the session secret the phone holds, never the secret.
CREATE TABLE device_sessions (
    id TEXT PRIMARY KEY NOT NULL,
    data BLOB NOT NULL,
    expiry_date INTEGER NOT NULL
);
