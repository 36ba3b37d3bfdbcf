-- Source files: one row per file read. The fingerprint and parsed_offset
-- decide whether a changed file was appended to (resume) or rewritten (re-read).
CREATE TABLE files (
    id            INTEGER PRIMARY KEY,
    path          TEXT    NOT NULL UNIQUE,
    root          TEXT    NOT NULL,
    harness       TEXT    NOT NULL,
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    fingerprint   TEXT    NOT NULL,
    parsed_offset INTEGER NOT NULL,
    parsed_line   INTEGER NOT NULL,
    indexed_at    TEXT    NOT NULL
);
CREATE INDEX files_root ON files(root);

CREATE TABLE sessions (
    id                 INTEGER PRIMARY KEY,
    file_id            INTEGER NOT NULL UNIQUE REFERENCES files(id) ON DELETE CASCADE,
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
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_session_id ON sessions(session_id);

-- Tool calls seen, so a result read in a later pass still gets its tool name.
CREATE TABLE tool_calls (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    call_id    TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    PRIMARY KEY (session_id, call_id)
) WITHOUT ROWID;

-- Provider usage, one row per dedupe key (Claude: message id + request id;
-- Codex: the running total; Gemini: message id). Upserts keep the last.
CREATE TABLE usage (
    session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    key         TEXT    NOT NULL,
    input       INTEGER NOT NULL,
    cache_read  INTEGER NOT NULL,
    cache_write INTEGER NOT NULL,
    output      INTEGER NOT NULL,
    reasoning   INTEGER NOT NULL,
    PRIMARY KEY (session_id, key)
) WITHOUT ROWID;

-- Tool results: metadata and where to read the content back; never the text.
CREATE TABLE tool_results (
    id               INTEGER PRIMARY KEY,
    session_id       INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    file_id          INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    call_id          TEXT    NOT NULL,
    tool_name        TEXT    NOT NULL,
    at               TEXT    NOT NULL,
    is_error         INTEGER NOT NULL,
    text_bytes       INTEGER NOT NULL,
    image_count      INTEGER NOT NULL,
    block_count      INTEGER NOT NULL,
    est_tokens       INTEGER,
    est_text_tokens  INTEGER,
    est_image_tokens INTEGER,
    est_route        TEXT,
    spill_kind       TEXT,
    spill_path       TEXT,
    spill_resolved   TEXT,
    spill_exists     INTEGER,
    src_offset       INTEGER NOT NULL,
    src_length       INTEGER NOT NULL,
    src_line         INTEGER NOT NULL,
    src_index        INTEGER NOT NULL,
    fts_done         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tool_results_session ON tool_results(session_id);
CREATE INDEX tool_results_file ON tool_results(file_id);
CREATE INDEX tool_results_tokens_todo ON tool_results(id) WHERE est_tokens IS NULL;
CREATE INDEX tool_results_fts_todo ON tool_results(id) WHERE fts_done = 0;

-- Content-addressed image store: bytes live in <data>/attachments/<sha256>.<ext>.
CREATE TABLE attachments (
    sha256     TEXT    PRIMARY KEY,
    media_type TEXT    NOT NULL,
    ext        TEXT    NOT NULL,
    width      INTEGER NOT NULL,
    height     INTEGER NOT NULL,
    bytes      INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE result_attachments (
    result_id   INTEGER NOT NULL REFERENCES tool_results(id) ON DELETE CASCADE,
    block_index INTEGER NOT NULL,
    sha256      TEXT    NOT NULL REFERENCES attachments(sha256),
    PRIMARY KEY (result_id, block_index)
) WITHOUT ROWID;

-- How links in a result are shown. Never the URI when it was withheld, never
-- a credential value: only the reason code and the parameter name.
CREATE TABLE links (
    id          INTEGER PRIMARY KEY,
    result_id   INTEGER NOT NULL REFERENCES tool_results(id) ON DELETE CASCADE,
    block_index INTEGER NOT NULL,
    shown       TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    parameter   TEXT    NOT NULL
);
CREATE INDEX links_result ON links(result_id);

CREATE TABLE diagnostics (
    id      INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line    INTEGER NOT NULL,
    message TEXT    NOT NULL
);
CREATE INDEX diagnostics_file ON diagnostics(file_id);

-- Full-text search over redacted result text. Contentless: the text itself is
-- read back from the source file, never stored here.
CREATE VIRTUAL TABLE result_fts USING fts5(body, content='', contentless_delete=1);

CREATE TRIGGER tool_results_fts_delete AFTER DELETE ON tool_results BEGIN
    DELETE FROM result_fts WHERE rowid = old.id;
END;
