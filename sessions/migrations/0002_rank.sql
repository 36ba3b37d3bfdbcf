-- Ranking by tokens before and after the token phase. approx_tokens is
-- written by the structure pass (text bytes over a measured bytes-per-token
-- ratio, images priced exactly from their stored dimensions); est_tokens is
-- the exact count the token phase writes. rank_tokens is the exact count
-- once known and the approximation until then, so every "most tokens" list
-- reorders itself as the token phase finishes results.
ALTER TABLE tool_results ADD COLUMN approx_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tool_results ADD COLUMN rank_tokens INTEGER GENERATED ALWAYS AS (COALESCE(est_tokens, approx_tokens)) VIRTUAL;

-- Rows indexed before this migration: text only (their images are priced
-- exactly by the token phase, which has usually run already). 2/7 is one
-- token per 3.5 bytes, the same ratio approxTokens uses.
UPDATE tool_results SET approx_tokens = (text_bytes * 2 + 6) / 7;

CREATE INDEX tool_results_rank ON tool_results(rank_tokens DESC, id);
