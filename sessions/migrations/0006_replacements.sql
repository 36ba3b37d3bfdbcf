-- What took a result's place on the model's surface after it was recorded
-- (dsh's compaction pruner replaces a result's text; a compaction summary
-- shadows it): all NULL while the model still sees the result as recorded.
-- replaced_seq and replaced_line are the replacing surface event's,
-- replaced_event_seq the compaction/prune or compaction/summary event behind
-- it, replaced_ref the compaction's id. last_key is the harness's locator
-- key of the content the model saw last, when the replacement carried
-- content ('' otherwise).
ALTER TABLE tool_results ADD COLUMN replaced_kind TEXT;
ALTER TABLE tool_results ADD COLUMN replaced_seq INTEGER;
ALTER TABLE tool_results ADD COLUMN replaced_event_seq INTEGER;
ALTER TABLE tool_results ADD COLUMN replaced_line INTEGER;
ALTER TABLE tool_results ADD COLUMN replaced_ref TEXT;
ALTER TABLE tool_results ADD COLUMN last_key TEXT NOT NULL DEFAULT '';
