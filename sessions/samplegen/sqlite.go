package samplegen

import (
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/mattn/go-sqlite3" // the sqlite3 driver
)

// sqlWriter runs statements on a database being written, keeping the
// first error.
type sqlWriter struct {
	db  *sql.DB
	err error
}

func (w *sqlWriter) exec(q string, args ...any) {
	if w.err == nil {
		_, w.err = w.db.Exec(q, args...)
	}
}

// writeDB writes the SQLite database at path as a harness keeps it (WAL,
// foreign keys on, closed cleanly so no -wal is left beside it): the
// schema, then what fill inserts, in one transaction; the file is recorded.
func (g *gen) writeDB(path, schema string, fill func(w *sqlWriter) error) error {
	if err := g.mkdir(path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_foreign_keys=1")
	if err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	w := &sqlWriter{db: db}
	for _, q := range strings.Split(schema, ";") {
		if strings.TrimSpace(q) != "" {
			w.exec(q)
		}
	}
	w.exec("BEGIN")
	if err := fill(w); err != nil {
		return err
	}
	w.exec("COMMIT")
	if w.err != nil {
		return fmt.Errorf("samplegen: %s: %w", path, w.err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("samplegen: %s: %w", path, err)
	}
	return g.recordFile(path)
}
