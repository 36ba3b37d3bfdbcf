package sessions

import (
	"context"
	"fmt"
)

// Compactions lists the compaction events of one indexed session (its
// SessionSummary.ID), in time order: where the harness summarised or cut
// the context, for the view of how the context grew.
func (d *DB) Compactions(ctx context.Context, session int64) ([]Compaction, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT c.key, c.kind, c.at, c.line, c.tokens_before, c.tokens_after, s.session_id
FROM compactions c JOIN sessions s ON s.id = c.session_id WHERE c.session_id = ? ORDER BY c.at, c.line, c.key`, session)
	if err != nil {
		return nil, fmt.Errorf("sessions: compactions of %d: %w", session, err)
	}
	defer rows.Close()
	out := []Compaction{}
	for rows.Next() {
		var c Compaction
		if err := rows.Scan(&c.Key, &c.Kind, &c.Time, &c.Line, &c.Before, &c.After, &c.Session); err != nil {
			return nil, fmt.Errorf("sessions: compactions of %d: %w", session, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
