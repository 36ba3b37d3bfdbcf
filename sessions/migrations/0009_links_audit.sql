-- The links audit (issue 15). Every URL found in a text block is a row now,
-- safe ones with an empty reason, so the audit counts what was shown as
-- plain text beside what was redacted and stubbed. Each row keeps its host
-- (lower-case, never the userinfo: links.URIHost) for the host filter, and
-- its place among its block's links, so a filtered page still finds each
-- link again in the source. Neither is a URI or a credential value.
-- Every file is read once more on the next pass (mtime -1, no cursor), so
-- every result's links are recorded this way; ids survive that pass.
ALTER TABLE links ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE links ADD COLUMN ordinal INTEGER NOT NULL DEFAULT 0;
CREATE INDEX links_host ON links(host);
UPDATE files SET cursor = '', mtime_ns = -1;
