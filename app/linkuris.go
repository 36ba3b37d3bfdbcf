package app

import (
	"context"

	"spillscope/retention"
	"spillscope/retention/links"
	"spillscope/sessions"
)

// linkURI is where a listed link stands and how the audit shows its URI.
type linkURI struct {
	uri        string
	start, end int
}

// linkURIs computes the redacted URI of each listed link from its source
// file, for the rows being shown only: the index holds no URI (LINKS.md), so
// each result is read back once and its links found again, the k-th link
// of a text block being the k-th URL links.FindURLs finds in it, as the
// indexer recorded them. A result that cannot be read back (its file moved
// since the index pass) leaves its rows without a URI.
func linkURIs(ctx context.Context, db *sessions.DB, rows []sessions.LinkSummary) []linkURI {
	out := make([]linkURI, len(rows))
	type blockKey struct {
		result int64
		block  int
	}
	results := map[int64][]retention.Block{}
	found := map[blockKey][]links.Found{}
	for i, r := range rows {
		out[i] = linkURI{start: -1, end: -1}
		blocks, seen := results[r.ResultID]
		if !seen {
			if _, res, err := db.LoadResult(ctx, r.ResultID); err == nil {
				blocks = res.Content
			}
			results[r.ResultID] = blocks
		}
		if r.Block < 0 || r.Block >= len(blocks) {
			continue
		}
		b := blocks[r.Block]
		if r.Shown != sessions.LinkInText {
			if b.URI != "" {
				out[i].uri = links.RedactURI(b.URI)
			}
			continue
		}
		k := blockKey{r.ResultID, r.Block}
		fs, seen := found[k]
		if !seen {
			fs = links.FindURLs(b.Text)
			found[k] = fs
		}
		if r.Ordinal < 0 || r.Ordinal >= len(fs) {
			continue
		}
		f := fs[r.Ordinal]
		if f.Reason != r.Reason || f.Parameter != r.Parameter {
			continue // the file changed since it was indexed
		}
		out[i] = linkURI{uri: links.RedactURI(links.FoundURI(b.Text, f)), start: f.Start, end: f.End}
	}
	return out
}
