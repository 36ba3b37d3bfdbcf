-- The context timeline (issue 14) places each tool result at the model call
-- that first carried it, so a call's line is where its response began:
-- Codex CLI's first output item (its token_count follows the outputs of the
-- tools the response called) and OpenCode's step-start part (its
-- step-finish follows them too). dsh's compaction summaries and prunes are
-- compactions now. The files of those harnesses are read once more on the
-- next pass; ids survive through the natural keys.
UPDATE files SET cursor = '', mtime_ns = -1 WHERE harness IN ('codex', 'opencode', 'dsh');
