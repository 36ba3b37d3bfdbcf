-- The search index is rebuilt: text indexed before credential values were
-- scrubbed in every spelling (links.ScrubValues) may hold some. The search
-- phase re-adds every result's text on the next pass.
INSERT INTO result_fts (result_fts) VALUES ('delete-all');
UPDATE tool_results SET fts_done = 0;
