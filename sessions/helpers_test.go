package sessions

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"spillscope/internal/fixtures"
	"spillscope/sessions/internal/testkit"
)

// realRoot finds ../shared/fixtures/real beside the repository or skips
// the test.
var realRoot = fixtures.RealRoot

func openTemp(t testing.TB) *DB {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "data", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func index(t testing.TB, d *DB, roots ...string) Summary {
	t.Helper()
	s, err := d.Index(context.Background(), roots, IndexOptions{})
	if err != nil {
		t.Fatalf("index %v: %v", roots, err)
	}
	return s
}

// usageTotals sums provider usage over every indexed session.
func usageTotals(t testing.TB, d *DB) Usage {
	t.Helper()
	ss, err := d.BrowseSessions(context.Background(), SessionFilter{Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	var u Usage
	for _, s := range ss {
		u.Input += s.Input
		u.CacheRead += s.CacheRead
		u.CacheWrite += s.CacheWrite
		u.Output += s.Output
		u.Reasoning += s.Reasoning
	}
	return u
}

// writeFile writes content to path, making its folders.
var writeFile = testkit.WriteFile

func appendFile(t testing.TB, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
