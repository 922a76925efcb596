-- Thread search (ids, titles, previews, models) through an FTS5 trigram
-- index: case-insensitive substring matching without scanning every
-- thread. Triggers keep it in the same transaction as each write; it
-- follows the threads table by rowid (threads are never deleted and the
-- store is never vacuumed, so rowids stay put).
CREATE VIRTUAL TABLE threads_search USING fts5(
    id, title, preview, model,
    content = 'threads', content_rowid = 'rowid', tokenize = 'trigram'
);

CREATE TRIGGER threads_search_insert AFTER INSERT ON threads BEGIN
    INSERT INTO threads_search (rowid, id, title, preview, model)
    VALUES (new.rowid, new.id, new.title, new.preview, new.model);
END;

CREATE TRIGGER threads_search_update AFTER UPDATE ON threads
WHEN old.id IS NOT new.id OR old.title IS NOT new.title
    OR old.preview IS NOT new.preview OR old.model IS NOT new.model
BEGIN
    INSERT INTO threads_search (threads_search, rowid, id, title, preview, model)
    VALUES ('delete', old.rowid, old.id, old.title, old.preview, old.model);
    INSERT INTO threads_search (rowid, id, title, preview, model)
    VALUES (new.rowid, new.id, new.title, new.preview, new.model);
END;

CREATE TRIGGER threads_search_delete AFTER DELETE ON threads BEGIN
    INSERT INTO threads_search (threads_search, rowid, id, title, preview, model)
    VALUES ('delete', old.rowid, old.id, old.title, old.preview, old.model);
END;

INSERT INTO threads_search (threads_search) VALUES ('rebuild');
