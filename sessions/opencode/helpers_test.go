package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"spillscope/sessions/samplegen"
)

type collected struct {
	sessions    []Session
	results     []Result
	usage       []Usage
	compactions []Compaction
	diags       []Diagnostic
}

func (c *collected) handler() Handler {
	return Handler{
		Session:    func(s Session) error { c.sessions = append(c.sessions, s); return nil },
		Result:     func(r Result) error { c.results = append(c.results, r); return nil },
		Usage:      func(u Usage) error { c.usage = append(c.usage, u); return nil },
		Compaction: func(x Compaction) error { c.compactions = append(c.compactions, x); return nil },
		Diagnostic: func(d Diagnostic) error { c.diags = append(c.diags, d); return nil },
	}
}

func (c *collected) codes() []string {
	var out []string
	for _, d := range c.diags {
		out = append(out, d.Code)
	}
	return out
}

func (c *collected) calls() []string {
	var out []string
	for _, r := range c.results {
		out = append(out, r.CallID)
	}
	return out
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// toolPart is a tool part as OpenCode stores it, without the ids a
// database row keeps in columns.
func toolPart(callID, tool, status, output string, extra map[string]any) map[string]any {
	state := map[string]any{"status": status, "input": map[string]any{"filePath": "/w/a.go"}, "title": "a.go",
		"metadata": map[string]any{}, "time": map[string]any{"start": 1773867655218, "end": 1773867655223}}
	if status == "error" {
		state["error"] = output
	} else {
		state["output"] = output
	}
	for k, v := range extra {
		state[k] = v
	}
	return map[string]any{"type": "tool", "callID": callID, "tool": tool, "state": state}
}

func stepFinish(in, out, read, write int64) map[string]any {
	return map[string]any{"type": "step-finish", "reason": "tool-calls", "cost": 0.01,
		"tokens": map[string]any{"total": in + out + read + write, "input": in, "output": out, "reasoning": 0, "cache": map[string]any{"read": read, "write": write}}}
}

func assistantInfo(id string, created int64) map[string]any {
	return map[string]any{"id": id, "sessionID": "ses_1", "role": "assistant", "time": map[string]any{"created": created},
		"parentID": "msg_u", "modelID": "claude-opus-4-6", "providerID": "anthropic", "mode": "build", "agent": "build",
		"path": map[string]any{"cwd": "/w", "root": "/w"}, "cost": 0,
		"tokens": map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}}
}

// schema is OpenCode's database as its drizzle definitions create it, the
// schema the sample generator writes.
const schema = samplegen.OpenCodeSchema

// openWriter opens a database the way OpenCode does (WAL, foreign keys).
func openWriter(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_foreign_keys=1")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func exec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func readDB(t testing.TB, path string, from DBCursor) (*collected, DBCursor) {
	t.Helper()
	var c collected
	cur, err := ReadDB(context.Background(), path, from, c.handler())
	if err != nil {
		t.Fatalf("ReadDB: %v", err)
	}
	return &c, cur
}
