package readkit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrRange reports a byte range that cannot be read back from a file.
var ErrRange = errors.New("readkit: byte range not in the file")

// maxRange caps what a locator can ask to be read back in one piece.
const maxRange = 1 << 30

// ReadRange reads length bytes at offset of the file at path: the bytes of
// a record a locator addresses. A range that is negative, too long, or
// past the end is ErrRange.
func ReadRange(path string, offset, length int64) ([]byte, error) {
	if offset < 0 || length < 0 || length > maxRange {
		return nil, fmt.Errorf("%w: %s [%d, +%d)", ErrRange, path, offset, length)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, length)
	if _, err := f.ReadAt(b, offset); err != nil {
		return nil, fmt.Errorf("%w: %s [%d, +%d): %v", ErrRange, path, offset, length, err)
	}
	return b, nil
}

// Querier is what Columns needs of a database or a transaction.
type Querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// Columns lists each table's columns (an absent table has none), so a
// reader selects only what the schema version at hand has.
func Columns(ctx context.Context, q Querier, tables ...string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, t := range tables {
		rows, err := q.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", t)
		if err != nil {
			return nil, err
		}
		cols := map[string]bool{}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
			cols[n] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		out[t] = cols
	}
	return out, nil
}

// Clone copies raw JSON out of a buffer that will be reused; empty is nil.
func Clone(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

// Uncached is the part of an input count not read from or written to the
// provider's cache, for harnesses whose input count includes both (Copilot
// CLI, goose); never negative.
func Uncached(in, read, write int64) int64 {
	if n := in - read - write; n > 0 {
		return n
	}
	return 0
}

// HomeDir is $HOME from getenv, else the user's home folder.
func HomeDir(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// AbsEnv is the variable's value when it is an absolute path, else "": a
// relative folder in the environment would mean whatever folder the app
// happened to start in.
func AbsEnv(getenv func(string) string, name string) string {
	if v := getenv(name); v != "" && filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return ""
}
