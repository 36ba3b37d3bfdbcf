package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSessionRowsAndDiagnostics: the sessions list hands the window what it
// needs to nest a subagent under its parent, and the diagnostics rows,
// one per file and kind, count every diagnostic the index holds.
func TestSessionRowsAndDiagnostics(t *testing.T) {
	s, _, _, man, _ := newIndexedApp(t)
	rows, err := listAll(s, SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]SessionRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	subagents := 0
	for _, r := range rows {
		if r.AgentID == "" {
			if r.Kind != "" || r.ParentID != 0 {
				t.Errorf("session %d: kind %q parent %d", r.ID, r.Kind, r.ParentID)
			}
			continue
		}
		subagents++
		p, ok := byID[r.ParentID]
		if r.Kind == "" || !ok || p.SessionID != r.SessionID || p.AgentID != "" {
			t.Errorf("subagent %d (%s): kind %q parent %d %+v", r.ID, r.AgentID, r.Kind, r.ParentID, p)
		}
		if r.ModelCalls == 0 {
			t.Errorf("subagent %d has no model calls", r.ID)
		}
	}
	want := 0
	for _, c := range man.PerHarness {
		want += c.Subagents
	}
	if subagents == 0 || subagents != want {
		t.Errorf("%d subagent rows, the sample writes %d", subagents, want)
	}
	st, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	diags, err := s.Diagnostics(1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range diags {
		if d.Count < 1 {
			t.Errorf("diagnostic row %+v counts nothing", d)
		}
		n += d.Count
	}
	if n != st.Diagnostics || n == 0 {
		t.Errorf("diagnostic rows count %d, the index holds %d", n, st.Diagnostics)
	}
}

// TestResultRowsSayCodexCut: a result Codex truncated itself reaches the
// window as cut by Codex CLI with the original size it recorded.
func TestResultRowsSayCodexCut(t *testing.T) {
	root := t.TempDir()
	corpus := filepath.Join(root, "corpus")
	line := func(typ string, payload map[string]any) string {
		b, _ := json.Marshal(map[string]any{"timestamp": "2026-07-06T09:00:00Z", "type": typ, "payload": payload})
		return string(b) + "\n"
	}
	out := "Chunk ID: 1\nWall time: 2 seconds\nProcess exited with code 0\nOriginal token count: 202197\nOutput:\n" +
		"Warning: truncated output (original token count: 202197)\nTotal output lines: 6743\n\nhead…192197 tokens truncated…tail"
	path := filepath.Join(corpus, "sessions", "2026", "07", "06", "rollout-2026-07-06T09-00-00-x.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	body := line("session_meta", map[string]any{"id": "x", "cwd": "/w"}) + line("turn_context", map[string]any{"model": "gpt-5.5"}) +
		line("response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": "{}"}) +
		line("response_item", map[string]any{"type": "function_call_output", "call_id": "c1", "output": out})
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	store := NewStore(Config{DataDir: filepath.Join(root, "data"), Roots: []string{corpus}, Home: root}, nil)
	t.Cleanup(func() { store.Close() })
	s := indexAll(t, store, time.Minute)
	rows, err := listAll(s, SessionQuery{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%+v %v", rows, err)
	}
	res, err := resultsAll(s, rows[0].ID)
	if err != nil || len(res) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if r := res[0]; r.CutBy != "Codex CLI" || r.CutOriginalTokens != 202197 || r.HasOriginal {
		t.Errorf("row %+v", r)
	}
}
