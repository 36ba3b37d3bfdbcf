package app

import (
	"context"

	"spillscope/sessions"
)

// runIndex runs an indexing pass: the structure phase first (the window is
// usable once it is done), then the slower phases.
func runIndex(ctx context.Context, db *sessions.DB, roots []string, progress func(sessions.Progress)) error {
	_, err := db.Index(ctx, roots, sessions.IndexOptions{Progress: progress})
	return err
}
