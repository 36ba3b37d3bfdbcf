// Package testkit is what the tests of the readers built on readkit
// (sessions/opencode, sessions/goose, sessions/copilot) share: a collector
// of everything a reader's handler hears, and small JSON and file helpers
// (the sessions package's tests write their files with WriteFile too).
// Only tests import it.
package testkit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"spillscope/sessions/internal/readkit"
)

// Collected is everything one or more passes of a reader reported, in
// order: its sessions S, results R, usage records U and compactions C, and
// its diagnostics. Its On methods are the reader's handler functions.
type Collected[S, R, U, C any] struct {
	Sessions    []S
	Results     []R
	Usage       []U
	Compactions []C
	Diags       []readkit.Diagnostic
}

// OnSession records a session.
func (c *Collected[S, R, U, C]) OnSession(s S) error { c.Sessions = append(c.Sessions, s); return nil }

// OnResult records a result.
func (c *Collected[S, R, U, C]) OnResult(r R) error { c.Results = append(c.Results, r); return nil }

// OnUsage records a usage record.
func (c *Collected[S, R, U, C]) OnUsage(u U) error { c.Usage = append(c.Usage, u); return nil }

// OnCompaction records a compaction.
func (c *Collected[S, R, U, C]) OnCompaction(x C) error {
	c.Compactions = append(c.Compactions, x)
	return nil
}

// OnDiagnostic records a diagnostic.
func (c *Collected[S, R, U, C]) OnDiagnostic(d readkit.Diagnostic) error {
	c.Diags = append(c.Diags, d)
	return nil
}

// Codes lists the diagnostics' codes in order.
func (c *Collected[S, R, U, C]) Codes() []string {
	var out []string
	for _, d := range c.Diags {
		out = append(out, d.Code)
	}
	return out
}

// Calls lists each result's call id (as id reads it) in order.
func (c *Collected[S, R, U, C]) Calls(id func(R) string) []string {
	var out []string
	for _, r := range c.Results {
		out = append(out, id(r))
	}
	return out
}

// MustJSON is v marshalled, failing the test when it does not marshal.
func MustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// WriteFile writes body to path, making its folders.
func WriteFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
