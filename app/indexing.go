package app

import (
	"context"
	"runtime/debug"

	"spillscope/sessions"
)

// runIndex runs an indexing pass: the structure phase first (the window is
// usable once it is done), then token estimates and the full-text index, which the window shows as they land.
// The phases hold at most one huge result at a time and nothing after the
// pass; the memory the pass used is handed back to the system at its end, so
// the window returns to its idle size rather than keeping its peak.
func runIndex(ctx context.Context, db *sessions.DB, roots []string, progress func(sessions.Progress), change func(sessions.FileChange)) error {
	defer debug.FreeOSMemory()
	if _, err := db.Index(ctx, roots, sessions.IndexOptions{Progress: progress, OnChange: change}); err != nil {
		return err
	}
	return db.Enrich(ctx, sessions.EnrichOptions{Progress: progress})
}
