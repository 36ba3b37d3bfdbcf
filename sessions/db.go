package sessions

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	_ "github.com/mattn/go-sqlite3" // the sqlite3 driver, built with -tags sqlite_fts5
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the session index: a SQLite database plus the content-addressed
// attachment store beside it.
type DB struct {
	db       *sql.DB
	path     string
	attaches string
	// env is what the harnesses read of the machine (temp folder, homes)
	// for spill locations; the process environment unless SetEnv says.
	env Env
	// unclaimed remembers files no harness claimed, by size and mtime, so
	// an unchanged one is not read again on every pass (a folder of logs of
	// a harness this build does not read).
	mu        sync.Mutex
	unclaimed map[string][2]int64
	// passMu keeps structure passes (Index, IndexFiles) one at a time.
	passMu sync.Mutex
	// stmts are the writer's statements, prepared once (prepared).
	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt
}

// SetEnv sets the environment harnesses resolve their folders from (the
// temp folder of spill files, their homes). Call it before indexing.
func (d *DB) SetEnv(env Env) { d.env = env }

// dataDir is the folder that holds the database and the attachment store.
func (d *DB) dataDir() string { return filepath.Dir(d.path) }

// DataDirEnv names the variable that moves the data directory.
const DataDirEnv = "SPILLSCOPE_DATA_DIR"

// ErrDataDir reports a data directory that cannot be resolved.
var ErrDataDir = errors.New("sessions: no usable data directory")

// DataDir is the data directory the window and the CLI share (the index
// database and the attachment store): $SPILLSCOPE_DATA_DIR, else
// $XDG_DATA_HOME/spillscope, else ~/.local/share/spillscope. getenv may be
// nil (os.Getenv).
//
// SPILLSCOPE_DATA_DIR must be absolute, or the answer would depend on the
// folder the app happened to start in; a relative one is an error rather
// than a silent fallback to another index. A relative XDG_DATA_HOME is
// ignored, as the XDG Base Directory spec asks.
func DataDir(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv(DataDirEnv); d != "" {
		if !filepath.IsAbs(d) {
			return "", fmt.Errorf("%w: %s=%q is not an absolute path", ErrDataDir, DataDirEnv, d)
		}
		return filepath.Clean(d), nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "spillscope"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrDataDir, err)
		}
		home = h
	}
	return filepath.Join(home, ".local", "share", "spillscope"), nil
}

// DefaultDBPath is index.db in DataDir.
func DefaultDBPath(getenv func(string) string) (string, error) {
	d, err := DataDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "index.db"), nil
}

// Open opens (creating when needed) the index at path and brings its schema
// up to date. Attachments go to the "attachments" folder beside it.
func Open(path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sessions: database path %q: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("sessions: create database folder: %w", err)
	}
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_foreign_keys", "on")
	q.Set("_busy_timeout", "10000")
	q.Set("_synchronous", "NORMAL")
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite3", "file:"+abs+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sessions: open %s: %w", abs, err)
	}
	d := &DB{db: sqldb, path: abs, attaches: filepath.Join(filepath.Dir(abs), "attachments"), env: SystemEnv()}
	if err := d.migrate(context.Background()); err != nil {
		sqldb.Close()
		return nil, err
	}
	// A first pass that died before building its deferred indexes left
	// them out (bulkindex.go).
	if err := d.buildIndexes(context.Background()); err != nil {
		sqldb.Close()
		return nil, err
	}
	return d, nil
}

// Close closes the database.
func (d *DB) Close() error {
	d.stmtMu.Lock()
	for _, st := range d.stmts {
		st.Close()
	}
	d.stmts = nil
	d.stmtMu.Unlock()
	return d.db.Close()
}

// Path is the database file.
func (d *DB) Path() string { return d.path }

// AttachmentDir is where image bytes are stored, one file per sha256.
func (d *DB) AttachmentDir() string { return d.attaches }

// migrate applies the embedded migrations not yet recorded, in one
// transaction on one connection with foreign keys off, as SQLite's recipe
// for rebuilding a table asks (a dropped parent table would otherwise take
// its children with it); the keys are checked before the commit.
func (d *DB) migrate(ctx context.Context) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sessions: migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return fmt.Errorf("sessions: migrate: %w", err)
	}
	defer conn.ExecContext(context.Background(), `PRAGMA foreign_keys = ON`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sessions: migrate: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("sessions: migrations table: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sessions: list migrations: %w", err)
	}
	sort.Strings(names)
	applied := false
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM migrations WHERE name = ?`, base).Scan(&n); err != nil {
			return fmt.Errorf("sessions: migration %s: %w", base, err)
		}
		if n > 0 {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("sessions: migration %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return fmt.Errorf("sessions: migration %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO migrations (name, applied_at) VALUES (?, ?)`, base, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return fmt.Errorf("sessions: migration %s: %w", base, err)
		}
		applied = true
	}
	// The check reads every table with a foreign key: only a migration can
	// break them here (writes run with the keys on), so an open that applied
	// none, the window's every start, skips it.
	if !applied {
		return tx.Commit()
	}
	rows, err := tx.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("sessions: migrate: %w", err)
	}
	bad := rows.Next()
	rows.Close()
	if bad {
		return fmt.Errorf("sessions: migrate: foreign keys broken after migrating")
	}
	return tx.Commit()
}
