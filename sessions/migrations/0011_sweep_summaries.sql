-- Sweep summaries (issue 13, target 5): what a sweep needs of each result,
-- without its text (lengths, code-point widths, line breaks, exact prefix and
-- suffix counts on the session's route; see retention.Summary), so a sweep
-- decides every result at any budget without reopening its source. A row
-- stands for its result while content_sig, route and version match; data is
-- NULL for a result too large to summarise, which sweeps read back instead.
CREATE TABLE result_summaries (
    result_id   INTEGER PRIMARY KEY REFERENCES tool_results(id) ON DELETE CASCADE,
    content_sig TEXT    NOT NULL,
    route       TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    total       INTEGER NOT NULL,
    data        BLOB
);
