package readkit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	_ "github.com/mattn/go-sqlite3" // the sqlite3 driver
)

// Sentinel errors of the read-only SQLite open.
var (
	// ErrNotSQLite reports a file that does not start with the SQLite header.
	ErrNotSQLite = errors.New("readkit: not a SQLite database")
	// ErrChangedWhileRead reports a quiescent database that a writer touched
	// during a read, so what was read may be torn; read again.
	ErrChangedWhileRead = errors.New("readkit: database changed while it was read")
)

// OpenReadOnly opens a harness's SQLite database for reading without ever
// creating or changing a file beside it. The choice depends on the journal
// mode recorded in the file header and on whether a writer is there now:
//
//   - rollback journal (header bytes 18-19 = 1): mode=ro. Readers of such a
//     database take shared locks and create nothing.
//   - WAL (= 2) with a -wal file present: a writer has it open (the last
//     connection to close deletes the -wal), so mode=ro reads the committed
//     state through the writer's -wal and -shm, which already exist.
//     immutable=1 would be wrong here: it ignores the -wal and assumes no
//     one writes, and would read a stale or torn database.
//   - WAL with no -wal: no one has it open. mode=ro alone would create a
//     -wal and a -shm beside the user's file (SQLite needs a wal-index) and
//     leave them there, so the file is opened immutable=1, which creates
//     nothing; the Snapshot taken first lets the caller check, with Verify,
//     that no writer started meanwhile.
func OpenReadOnly(path string) (*sql.DB, *Snapshot, error) {
	mode, err := journalMode(path)
	if err != nil {
		return nil, nil, err
	}
	snap := &Snapshot{path: path}
	q := url.Values{}
	q.Set("mode", "ro")
	if mode == 2 {
		if _, err := os.Stat(path + "-wal"); errors.Is(err, os.ErrNotExist) {
			if err := snap.take(); err != nil {
				return nil, nil, err
			}
			snap.immutable = true
			q.Set("immutable", "1")
		}
	}
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite3", u.String())
	if err != nil {
		return nil, nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	// One connection: a pool would open the file several times, and a
	// reader needs no concurrency within one pass.
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	return db, snap, nil
}

// ReadTx runs fn in one read-only transaction on the database at path, so
// every query fn makes sees the same committed state, then checks the
// snapshot (see Verify): a quiescent file a writer opened meanwhile fails
// with ErrChangedWhileRead, and the pass should be run again.
func ReadTx(ctx context.Context, path string, fn func(tx *sql.Tx) error) error {
	db, snap, err := OpenReadOnly(path)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return snap.Verify()
}

// Snapshot records a quiescent database file's size and modification time
// when it was opened immutable, to detect a writer that started meanwhile.
type Snapshot struct {
	path      string
	immutable bool
	size      int64
	mtime     time.Time
}

// Immutable reports whether the database was opened with immutable=1.
func (s *Snapshot) Immutable() bool { return s.immutable }

func (s *Snapshot) take() error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return err
	}
	s.size, s.mtime = fi.Size(), fi.ModTime()
	return nil
}

// Verify reports ErrChangedWhileRead when a database opened immutable has
// since changed or gained a -wal (a writer opened it). A database opened
// without immutable needs no check: SQLite's own locking kept the read
// consistent.
func (s *Snapshot) Verify() error {
	if !s.immutable {
		return nil
	}
	if _, err := os.Stat(s.path + "-wal"); err == nil {
		return fmt.Errorf("%w: %s gained a -wal", ErrChangedWhileRead, s.path)
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return err
	}
	if fi.Size() != s.size || !fi.ModTime().Equal(s.mtime) {
		return fmt.Errorf("%w: %s", ErrChangedWhileRead, s.path)
	}
	return nil
}

// IsSQLite reports whether the file starts with the SQLite format header.
func IsSQLite(path string) bool {
	_, err := journalMode(path)
	return err == nil
}

// journalMode reads the file format write version from the header: 1 for
// a rollback journal, 2 for WAL.
func journalMode(path string) (byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var h [20]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return 0, fmt.Errorf("%w: %s", ErrNotSQLite, path)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return 0, fmt.Errorf("%w: %s", ErrNotSQLite, path)
	}
	return h[18], nil
}
