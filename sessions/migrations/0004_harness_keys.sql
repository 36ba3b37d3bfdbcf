-- The harness seam (issue 10): each harness keeps its own resume point, a
-- source may hold many sessions, and results have natural keys so their ids
-- survive a rewritten file.

-- One opaque cursor per source, the harness's own, instead of line-log
-- columns. Every file is read once more on the next pass (mtime -1, no
-- cursor): detection is positive now (files an earlier build took for
-- Claude Code transcripts leave the index), diagnostics get their codes,
-- and spill files are judged by the file rule. Ids survive that pass:
-- results are matched by their natural keys, and keep their token counts
-- and search terms while their content is unchanged.
ALTER TABLE files ADD COLUMN cursor TEXT NOT NULL DEFAULT '';
UPDATE files SET cursor = '', mtime_ns = -1;
ALTER TABLE files DROP COLUMN fingerprint;
ALTER TABLE files DROP COLUMN parsed_offset;
ALTER TABLE files DROP COLUMN parsed_line;

-- Sessions are keyed by (source, harness session id): a database-backed
-- harness is one source with many sessions.
CREATE TABLE sessions_new (
    id                 INTEGER PRIMARY KEY,
    file_id            INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    harness            TEXT    NOT NULL,
    session_id         TEXT    NOT NULL,
    agent_id           TEXT    NOT NULL DEFAULT '',
    project            TEXT    NOT NULL DEFAULT '',
    cwd                TEXT    NOT NULL DEFAULT '',
    model              TEXT    NOT NULL DEFAULT '',
    route              TEXT    NOT NULL DEFAULT '',
    started_at         TEXT    NOT NULL DEFAULT '',
    ended_at           TEXT    NOT NULL DEFAULT '',
    tool_results       INTEGER NOT NULL DEFAULT 0,
    tool_result_images INTEGER NOT NULL DEFAULT 0,
    spill_notices      INTEGER NOT NULL DEFAULT 0,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
    UNIQUE (file_id, session_id)
);
INSERT INTO sessions_new (id, file_id, harness, session_id, agent_id, project, cwd, model, route, started_at, ended_at,
    tool_results, tool_result_images, spill_notices, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens)
SELECT id, file_id, harness, session_id, agent_id, project, cwd, model, route, started_at, ended_at,
    tool_results, tool_result_images, spill_notices, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens
FROM sessions;
DROP TABLE sessions;
ALTER TABLE sessions_new RENAME TO sessions;
CREATE INDEX sessions_session_id ON sessions(session_id);

-- Results: natural key (session, call id, ordinal among the session's
-- results with that call id, in source order), the harness's locator key,
-- a content signature, and the file rule's verdict on the spill file.
ALTER TABLE tool_results ADD COLUMN ordinal INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tool_results ADD COLUMN src_key TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_results ADD COLUMN content_sig TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_results ADD COLUMN spill_state TEXT;
UPDATE tool_results SET spill_state = CASE WHEN spill_exists THEN 'exists' ELSE 'missing' END WHERE spill_kind IS NOT NULL;
ALTER TABLE tool_results DROP COLUMN spill_exists;
WITH o AS (SELECT id, ROW_NUMBER() OVER (PARTITION BY session_id, call_id ORDER BY src_offset, src_index, id) - 1 AS n FROM tool_results)
UPDATE tool_results SET ordinal = o.n FROM o WHERE o.id = tool_results.id;
CREATE UNIQUE INDEX tool_results_key ON tool_results(session_id, call_id, ordinal);

-- A result whose content changed is searched again: its old terms go when
-- it is marked for the search phase.
CREATE TRIGGER tool_results_fts_stale AFTER UPDATE OF fts_done ON tool_results
WHEN new.fts_done = 0 AND old.fts_done <> 0 BEGIN
    DELETE FROM result_fts WHERE rowid = old.id;
END;

-- Diagnostics carry a stable code and params (translated by the window),
-- and a subject for the ones kept as one row per kind and file (unknown
-- line types, with a count).
ALTER TABLE diagnostics ADD COLUMN code TEXT NOT NULL DEFAULT '';
ALTER TABLE diagnostics ADD COLUMN subject TEXT NOT NULL DEFAULT '';
ALTER TABLE diagnostics ADD COLUMN params TEXT NOT NULL DEFAULT '{}';
CREATE INDEX diagnostics_kind ON diagnostics(file_id, code, subject);
