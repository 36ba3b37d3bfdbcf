-- Compaction events a harness recorded (OpenCode's compaction parts and
-- summaries, Copilot CLI's compaction and truncation events, goose's
-- compaction calls), one row per session and key, for the context-growth
-- view. A source read whole replaces its rows; a resumed pass adds to them.
CREATE TABLE compactions (
    session_id    INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    key           TEXT    NOT NULL,
    kind          TEXT    NOT NULL,
    at            TEXT    NOT NULL,
    line          INTEGER NOT NULL,
    tokens_before INTEGER NOT NULL,
    tokens_after  INTEGER NOT NULL,
    PRIMARY KEY (session_id, key)
) WITHOUT ROWID;

-- The OpenCode and goose notice kinds are now their harnesses' own, finer
-- ones; a relayed notice indexed under the old names keeps its file rule.
UPDATE tool_results SET spill_kind = 'opencode-truncate' WHERE spill_kind = 'opencode';
UPDATE tool_results SET spill_kind = 'goose-large-response' WHERE spill_kind = 'goose';
