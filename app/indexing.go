package app

import (
	"context"

	"spillscope/sessions"
)

// runIndex runs an indexing pass: the structure phase first (the window is
// usable once it is done), then token estimates and the full-text index, which the window shows as they land.
func runIndex(ctx context.Context, db *sessions.DB, roots []string, progress func(sessions.Progress), change func(sessions.FileChange)) error {
	if _, err := db.Index(ctx, roots, sessions.IndexOptions{Progress: progress, OnChange: change}); err != nil {
		return err
	}
	return db.Enrich(ctx, sessions.EnrichOptions{Progress: progress})
}
