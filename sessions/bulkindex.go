package sessions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// A structure pass over an empty index (a user's first, which reads every
// session folder) inserts its rows with the secondary indexes no step of
// the pass reads dropped, and builds them once at its end: each of those
// inserts lands at a random place of its index (by token rank, by link
// host), where building from the finished table is one sort. A pass over
// an index that holds files keeps every index as it is.
//
// A pass that dies before building them leaves an index without them,
// which still answers every query (more slowly): Open builds whichever is
// missing, so the next start of the app or the CLI restores the schema
// the migrations made.

// deferredIndexes are the indexes a pass over an empty index builds at its
// end: the largest-results rank and the links audit's host filter.
var deferredIndexes = []string{"tool_results_rank", "links_host"}

// indexSQL is the statement the migrations create an index with, as
// SQLite keeps it in sqlite_master: one owner for its definition.
func indexSQL(name string) (string, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	head := "CREATE INDEX " + name + " ON "
	def := ""
	for _, n := range names {
		body, err := migrations.ReadFile(n)
		if err != nil {
			return "", err
		}
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, head) {
				// The last migration to create it has the definition.
				def = strings.TrimSuffix(strings.TrimSpace(line), ";")
			}
		}
	}
	if def == "" {
		return "", fmt.Errorf("sessions: no migration creates index %s", name)
	}
	return def, nil
}

// deferIndexes drops the deferred indexes when the index holds no file yet,
// and returns the function that builds them again (nil when nothing was
// dropped).
func (d *DB) deferIndexes(ctx context.Context, prev map[string]fileRow) (func() error, error) {
	if len(prev) > 0 {
		return nil, nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// Checked again under the write lock: another process's pass may have
	// written files since this one listed them.
	var files int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM files`).Scan(&files); err != nil {
		return nil, err
	}
	if files > 0 {
		return nil, nil
	}
	for _, name := range deferredIndexes {
		if _, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS `+name); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return func() error { return d.buildIndexes(context.WithoutCancel(ctx)) }, nil
}

// buildIndexes creates whichever deferred index is missing, with the
// migrations' own statement. When none is, it only reads the schema (Open
// calls it at every start).
func (d *DB) buildIndexes(ctx context.Context) error {
	var errs []error
	for _, name := range deferredIndexes {
		var n int
		if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = ?`, name).Scan(&n); err != nil {
			errs = append(errs, fmt.Errorf("sessions: index %s: %w", name, err))
			continue
		}
		if n > 0 {
			continue
		}
		def, err := indexSQL(name)
		if err == nil {
			// IF NOT EXISTS: another process may build it meanwhile.
			_, err = d.db.ExecContext(ctx, strings.Replace(def, "CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sessions: build index %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
