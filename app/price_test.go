package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spillscope/retention"
)

// writeImageSession writes a Claude Code log with one tool result of text
// and n images of varied sizes, as the hostile corpus's 200-image result.
func writeImageSession(t *testing.T, root string, n int) {
	t.Helper()
	var content []any
	content = append(content, map[string]any{"type": "text", "text": strings.Repeat("screenshot log line\n", 300)})
	for i := 0; i < n; i++ {
		content = append(content, map[string]any{"type": "image", "source": map[string]any{
			"type": "base64", "media_type": "image/png", "data": pngBase64(t, 40+i%17*9, 30+i%11*13)}})
	}
	line := func(v any) string {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(data) + "\n"
	}
	log := line(map[string]any{
		"type": "assistant", "sessionId": "img-session", "cwd": "/home/u/proj", "timestamp": "2026-01-01T00:00:01.000Z", "requestId": "q1",
		"message": map[string]any{"id": "m1", "model": "claude-sonnet-4-5", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_imgs", "name": "Screenshot", "input": map[string]any{}}}},
	}) + line(map[string]any{
		"type": "user", "sessionId": "img-session", "timestamp": "2026-01-01T00:00:02.000Z",
		"message": map[string]any{"role": "user", "content": []any{
			map[string]any{"tool_use_id": "toolu_imgs", "type": "tool_result", "content": content}}},
	})
	dir := filepath.Join(root, "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "img-session.jsonl"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
}

func indexRoot(t *testing.T, root, dataDir string) (*Sessions, *Retention) {
	t.Helper()
	store := NewStore(Config{DataDir: dataDir, Roots: []string{root}, Home: t.TempDir()}, nil)
	t.Cleanup(func() { store.Close() })
	s := NewSessions(store)
	if _, err := s.Index(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		st, err := s.Status()
		if err != nil {
			t.Fatal(err)
		}
		if !st.Running {
			if st.Error != "" {
				t.Fatal(st.Error)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("index did not finish")
		}
	}
	return s, NewRetention(store)
}

// One price per result (trust issue rule 5): the list row, the result view's
// original, a re-run at that very budget and the single-result sweep all
// say the same for a result with 200 images (the CLI too:
// TestCLIRetainPricesAsTheList), and no figure depends on where Spillscope
// keeps its data.
func TestOnePricePerResult(t *testing.T) {
	root := t.TempDir()
	writeImageSession(t, root, 200)
	var totals []int64
	for _, dataDir := range []string{filepath.Join(t.TempDir(), "data"), filepath.Join(t.TempDir(), "a", "much", "longer", "data", "folder", "path")} {
		s, r := indexRoot(t, root, dataDir)
		page, err := s.Largest(PageQuery{Limit: 10})
		rows := page.Rows
		if err != nil || len(rows) != 1 {
			t.Fatalf("rows %v, %v", rows, err)
		}
		row := rows[0]
		if !row.TokensExact || row.Images != 200 {
			t.Fatalf("row %+v: want an exact count of a 200-image result", row)
		}
		totals = append(totals, row.Tokens)
		detail, err := s.Result(ResultQuery{ID: row.ID})
		if err != nil {
			t.Fatal(err)
		}
		whole, err := r.Retain(RetainRequest{ResultID: row.ID})
		if err != nil {
			t.Fatal(err)
		}
		if int64(whole.OriginalTokens) != row.Tokens || !whole.OriginalTokensExact || whole.Estimator != detail.Estimator {
			t.Fatalf("re-run original %d (%s), list %d (%s)", whole.OriginalTokens, whole.Estimator, row.Tokens, detail.Estimator)
		}
		at, err := r.Retain(RetainRequest{ResultID: row.ID, Budget: &row.Tokens})
		if err != nil {
			t.Fatal(err)
		}
		if at.Status != retention.StatusWithinBudget || int64(at.Tokens.Total) != row.Tokens || at.OmittedImages != 0 {
			t.Fatalf("at the displayed total %d: %s, %d tokens, %d images cut", row.Tokens, at.Status, at.Tokens.Total, at.OmittedImages)
		}
		below := row.Tokens - 1
		cut, err := r.Retain(RetainRequest{ResultID: row.ID, Budget: &below})
		if err != nil {
			t.Fatal(err)
		}
		if cut.Status == retention.StatusWithinBudget {
			t.Fatalf("one token under the total is still within budget")
		}
		sw, err := r.Sweep(SweepRequest{ResultID: row.ID, Budgets: []int64{row.Tokens, below}})
		if err != nil {
			t.Fatal(err)
		}
		if sw[0].InlineTokens != row.Tokens || sw[0].Replaced != 0 || sw[1].InlineTokens != int64(cut.Tokens.Total) {
			t.Fatalf("sweep %+v, re-runs %d and %d", sw, at.Tokens.Total, cut.Tokens.Total)
		}
	}
	if totals[0] != totals[1] {
		t.Fatalf("the figure depends on the data folder: %d vs %d", totals[0], totals[1])
	}
}

// The window's cache of Analyses under concurrent re-runs of one result at
// different budgets and policies: every answer is what a fresh service
// gives. Run under -race.
func TestRetainConcurrentCache(t *testing.T) {
	root := t.TempDir()
	writeImageSession(t, root, 12)
	s, r := indexRoot(t, root, filepath.Join(t.TempDir(), "data"))
	page, err := s.Largest(PageQuery{Limit: 1})
	rows := page.Rows
	if err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
	id := rows[0].ID
	reqs := []RetainRequest{
		{ResultID: id, Budget: budget(300)}, {ResultID: id, Budget: budget(2000), Estimator: "dsh-meter"},
		{ResultID: id, Policy: "dsh-pruner", Budget: budget(1000), Params: map[string]string{"headChars": "200", "tailChars": "100"}}, {ResultID: id},
	}
	fresh := NewRetention(r.store)
	want := make([]Projection, len(reqs))
	for i, q := range reqs {
		if want[i], err = fresh.Retain(q); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan string, 24)
	for g := 0; g < 24; g++ {
		go func(i int) {
			got, err := r.Retain(reqs[i])
			switch {
			case err != nil:
				done <- err.Error()
			case got.Status != want[i].Status || got.Tokens != want[i].Tokens || got.OmittedBytes != want[i].OmittedBytes:
				done <- "a cached re-run differs from a fresh one"
			default:
				done <- ""
			}
		}(g % len(reqs))
	}
	for g := 0; g < 24; g++ {
		if msg := <-done; msg != "" {
			t.Fatal(msg)
		}
	}
}
