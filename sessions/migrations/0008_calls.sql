-- Per-call records (issue 14): every model call with its place in the log
-- and the provider's counts, compactions, and session events (API-error
-- retries, aborted turns). Session usage totals are sums of model_calls
-- (and of usage, for readers without per-call records).

CREATE TABLE model_calls (
    session_id     INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    key            TEXT    NOT NULL,
    line           INTEGER NOT NULL,
    at             TEXT    NOT NULL DEFAULT '',
    input          INTEGER NOT NULL,
    cache_read     INTEGER NOT NULL,
    cache_write    INTEGER NOT NULL,
    output         INTEGER NOT NULL,
    reasoning      INTEGER NOT NULL,
    model          TEXT    NOT NULL DEFAULT '',
    context_window INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, key)
) WITHOUT ROWID;
CREATE INDEX model_calls_line ON model_calls(session_id, line);

-- The compactions table 0005 made (keyed by session and the harness's
-- key) carries the line logs' compactions too: the line of the second
-- record (0: none yet, or a database row) and the trigger. Their key is
-- "line:<n>" of the first record; the databases' keep their record ids.
ALTER TABLE compactions ADD COLUMN end_line INTEGER NOT NULL DEFAULT 0;
ALTER TABLE compactions ADD COLUMN trigger TEXT NOT NULL DEFAULT '';
CREATE INDEX compactions_line ON compactions(session_id, line);

CREATE TABLE session_events (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    line       INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    at         TEXT    NOT NULL DEFAULT '',
    detail     TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, line, kind)
) WITHOUT ROWID;

-- What a transcript is and how it is named, and its facts' counts.
ALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN transcript_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN agent_type TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN agent_description TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN model_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN compactions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN api_errors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN aborted_turns INTEGER NOT NULL DEFAULT 0;

-- A truncation the harness made itself (Codex), and where the log keeps
-- the complete output it cut (a locator in the harness's terms).
ALTER TABLE tool_results ADD COLUMN cut_by TEXT;
ALTER TABLE tool_results ADD COLUMN cut_tokens INTEGER;
ALTER TABLE tool_results ADD COLUMN cut_lines INTEGER;
ALTER TABLE tool_results ADD COLUMN orig_offset INTEGER;
ALTER TABLE tool_results ADD COLUMN orig_length INTEGER;
ALTER TABLE tool_results ADD COLUMN orig_line INTEGER;
ALTER TABLE tool_results ADD COLUMN orig_key TEXT;

-- Older indexes rebuild: every file is read once more on the next pass (ids
-- survive through the natural keys, and unchanged results keep their
-- counts), so the calls, compactions and facts of what is already indexed
-- are found.
UPDATE files SET cursor = '', mtime_ns = -1;
