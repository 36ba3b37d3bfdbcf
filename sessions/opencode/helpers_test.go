package opencode

import (
	"context"
	"database/sql"
	"testing"

	"spillscope/sessions/internal/testkit"
	"spillscope/sessions/samplegen"
)

type collected struct {
	testkit.Collected[Session, Result, Usage, Compaction]
}

func (c *collected) handler() Handler {
	return Handler{Session: c.OnSession, Result: c.OnResult, Usage: c.OnUsage, Compaction: c.OnCompaction, Diagnostic: c.OnDiagnostic}
}

func (c *collected) calls() []string { return c.Calls(func(r Result) string { return r.CallID }) }

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
