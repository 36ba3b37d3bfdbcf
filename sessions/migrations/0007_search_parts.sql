-- A long result's text is indexed in parts (sessions/searchtext.go): part 0
-- keeps the result's id as its rowid, part k > 0 has rowid -(id << 16 | k).
-- Whatever drops a result's terms drops its parts' too.
DROP TRIGGER tool_results_fts_delete;
CREATE TRIGGER tool_results_fts_delete AFTER DELETE ON tool_results BEGIN
    DELETE FROM result_fts WHERE rowid = old.id;
    DELETE FROM result_fts WHERE rowid BETWEEN -((old.id << 16) | 65535) AND -((old.id << 16) | 1);
END;

DROP TRIGGER tool_results_fts_stale;
CREATE TRIGGER tool_results_fts_stale AFTER UPDATE OF fts_done ON tool_results
WHEN new.fts_done = 0 AND old.fts_done <> 0 BEGIN
    DELETE FROM result_fts WHERE rowid = old.id;
    DELETE FROM result_fts WHERE rowid BETWEEN -((old.id << 16) | 65535) AND -((old.id << 16) | 1);
END;
