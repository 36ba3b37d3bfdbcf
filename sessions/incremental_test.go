package sessions

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Small builders of Claude Code lines, shaped as the real files are.
func cAssistant(sid, msgID, req, toolID, tool string, out int) string {
	return mustJSON(map[string]any{
		"type": "assistant", "sessionId": sid, "cwd": "/home/u/proj", "timestamp": "2026-01-01T00:00:01.000Z", "requestId": req,
		"message": map[string]any{"id": msgID, "model": "claude-sonnet-4-5", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": toolID, "name": tool, "input": map[string]any{}}},
			"usage":   map[string]any{"input_tokens": 10, "output_tokens": out, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5}},
	})
}

func cResult(sid, toolID string, content any) string {
	return mustJSON(map[string]any{
		"type": "user", "sessionId": sid, "timestamp": "2026-01-01T00:00:02.000Z",
		"message": map[string]any{"role": "user", "content": []any{
			map[string]any{"tool_use_id": toolID, "type": "tool_result", "content": content}}},
	})
}

func cProgressCopy(sid, toolID string) string {
	return mustJSON(map[string]any{
		"type": "progress", "sessionId": sid,
		"data": map[string]any{"message": map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"tool_use_id": toolID, "type": "tool_result", "content": "copy"}}}}},
	})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func pngBase64(t testing.TB) string {
	t.Helper()
	// A 1x1 PNG.
	const b64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	if _, err := base64.StdEncoding.DecodeString(b64); err != nil {
		t.Fatal(err)
	}
	return b64
}

func TestIncremental(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "projects", "-home-u-proj", "s1.jsonl")
	d := openTemp(t)

	writeFile(t, path, cAssistant("s1", "msg_1", "req_1", "toolu_1", "Bash", 3)+
		cAssistant("s1", "msg_1", "req_1", "toolu_1", "Bash", 7)+
		cResult("s1", "toolu_1", "hello")+
		cProgressCopy("s1", "toolu_1"))
	first := index(t, d, root)
	if first.ToolResults != 1 || first.Sessions != 1 || first.ChangedFiles != 1 || first.Diagnostics != 0 {
		t.Fatalf("first pass %+v", first)
	}
	if u := usageTotals(t, d); u.Output != 7 || u.Input != 10 {
		t.Fatalf("usage after first pass %+v: want the last of the split lines only", u)
	}

	t.Run("unchanged", func(t *testing.T) {
		s := index(t, d, root)
		if s.ChangedFiles != 0 || s.ToolResults != 1 {
			t.Errorf("unchanged pass %+v", s)
		}
	})
	t.Run("append resumes after the last complete line", func(t *testing.T) {
		// The call is in the appended part; its result arrives in a later one.
		appendFile(t, path, cAssistant("s1", "msg_1", "req_1", "toolu_2", "Read", 9)+
			cAssistant("s1", "msg_2", "req_2", "toolu_3", "Grep", 4))
		index(t, d, root)
		appendFile(t, path, cResult("s1", "toolu_2", "two")+cResult("s1", "toolu_3", "three"))
		s := index(t, d, root)
		if s.ToolResults != 3 || s.ChangedFiles != 1 {
			t.Fatalf("after append %+v", s)
		}
		rows, _ := d.Results(t.Context(), ResultFilter{})
		names := map[string]string{}
		for _, r := range rows {
			names[r.CallID] = r.ToolName
		}
		if names["toolu_2"] != "Read" || names["toolu_3"] != "Grep" {
			t.Errorf("tool names across passes: %v", names)
		}
		if u := usageTotals(t, d); u.Output != 9+4 {
			t.Errorf("usage output %d, want 13 (msg_1 last line 9 + msg_2 4)", u.Output)
		}
	})
	t.Run("partial last line waits for the writer", func(t *testing.T) {
		line := cResult("s1", "toolu_4", "four")
		appendFile(t, path, line[:len(line)/2])
		s := index(t, d, root)
		if s.ToolResults != 3 || s.Diagnostics != 0 {
			t.Fatalf("with a partial line %+v", s)
		}
		appendFile(t, path, line[len(line)/2:])
		s = index(t, d, root)
		if s.ToolResults != 4 || s.Diagnostics != 0 {
			t.Fatalf("after the line completed %+v", s)
		}
	})
	t.Run("rewrite re-reads", func(t *testing.T) {
		writeFile(t, path, cAssistant("s1", "msg_9", "req_9", "toolu_9", "Bash", 1)+cResult("s1", "toolu_9", "x"))
		s := index(t, d, root)
		if s.ToolResults != 1 || s.ChangedFiles != 1 {
			t.Fatalf("after rewrite %+v", s)
		}
		if u := usageTotals(t, d); u.Output != 1 {
			t.Errorf("usage after rewrite %+v", u)
		}
	})
	t.Run("same size rewrite re-reads", func(t *testing.T) {
		old, _ := os.ReadFile(path)
		changed := strings.Replace(string(old), `"content":"x"`, `"content":"y"`, 1)
		writeFile(t, path, changed)
		future := mustStat(t, path).ModTime().Add(2e9)
		os.Chtimes(path, future, future)
		s := index(t, d, root)
		if s.ChangedFiles != 1 || s.ToolResults != 1 {
			t.Fatalf("after same-size rewrite %+v", s)
		}
	})
	t.Run("deleted file leaves the index", func(t *testing.T) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		s := index(t, d, root)
		if s.Files != 0 || s.Sessions != 0 || s.ToolResults != 0 || s.ChangedFiles != 1 {
			t.Fatalf("after delete %+v", s)
		}
	})
}

func mustStat(t testing.TB, p string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestBadInput(t *testing.T) {
	root := t.TempDir()
	img := pngBase64(t)
	good := cAssistant("s2", "m1", "r1", "toolu_a", "mcp__pw__shot", 2) +
		cResult("s2", "toolu_a", []any{map[string]any{"type": "text", "text": "shot"},
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": img}}})
	lines := []string{
		"// Source: a comment line\n", // 1
		good,                          // 2, 3
		`{"type":"user","message":{"content":[{"tool_use_id":"t` + "\n", // 4 truncated
		`{"type":"brand-new-kind","sessionId":"s2"}` + "\n",             // 5 unknown type
		cResult("s2", "toolu_b", []any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "!!!not base64!!!"}}}), // 6
		"\xff\xfe garbage\n", // 7
		"\n",                 // 8 blank: fine
		cResult("s2", "toolu_c", "after the junk"), // 9
	}
	path := filepath.Join(root, "p", "s2.jsonl")
	writeFile(t, path, strings.Join(lines, ""))
	d := openTemp(t)
	s := index(t, d, root)
	if s.ToolResults != 3 {
		t.Errorf("tool results %d, want 3 (bad lines skipped, the rest read)", s.ToolResults)
	}
	if s.ToolResultImages != 1 {
		t.Errorf("images %d, want 1 (the invalid one is a diagnostic)", s.ToolResultImages)
	}
	// The session's own count agrees with the totals.
	if list, err := d.BrowseSessions(t.Context(), SessionFilter{}); err != nil || len(list) != 1 || list[0].Images != s.ToolResultImages {
		t.Errorf("session images %v (%v), totals %d", list, err, s.ToolResultImages)
	}
	diags, err := d.BrowseDiagnostics(t.Context(), 100)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := map[int64]string{1: "not a JSON object", 4: "not a JSON object", 5: "unknown line type", 6: "invalid base64", 7: "not a JSON object"}
	got := map[int64]string{}
	for _, g := range diags {
		if g.File != path {
			t.Errorf("diagnostic names %s, want %s", g.File, path)
		}
		got[g.Line] = g.Message
	}
	for line, frag := range wantLines {
		if !strings.Contains(got[line], frag) {
			t.Errorf("line %d: diagnostic %q, want one mentioning %q", line, got[line], frag)
		}
	}
	if len(diags) != len(wantLines) {
		t.Errorf("%d diagnostics, want %d: %+v", len(diags), len(wantLines), diags)
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions do not stop reads")
	}
	root := t.TempDir()
	path := filepath.Join(root, "p", "s3.jsonl")
	writeFile(t, path, cResult("s3", "t", "x"))
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	d := openTemp(t)
	s := index(t, d, root)
	if s.Diagnostics != 1 || s.Files != 1 {
		t.Errorf("unreadable file: %+v", s)
	}
}

func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB line")
	}
	root := t.TempDir()
	path := filepath.Join(root, "p", "big.jsonl")
	big := strings.Repeat("0123456789abcdef", 100<<20/16)
	writeFile(t, path, cAssistant("s4", "m", "r", "toolu_big", "Bash", 1)+cResult("s4", "toolu_big", big)+cResult("s4", "toolu_small", "after"))
	d := openTemp(t)
	s := index(t, d, root)
	if s.ToolResults != 2 || s.Diagnostics != 0 {
		t.Fatalf("%+v", s)
	}
	rows, _ := d.Results(t.Context(), ResultFilter{})
	if rows[0].TextBytes != int64(len(big)) || rows[0].Line != 2 || rows[1].Line != 3 {
		t.Errorf("big result %d bytes line %d, next line %d", rows[0].TextBytes, rows[0].Line, rows[1].Line)
	}
}

func TestSpillFilesLinked(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "claude", "projects", "-w")
	// Named at an absolute path elsewhere, as in a copied session folder.
	persisted := "<persisted-output>\nOutput too large (141KB). Full output saved to: /home/other/.claude/projects/-w/s5/tool-results/toolu_p.txt\n\nPreview (first 2KB):\nabc\n...\n</persisted-output>"
	writeFile(t, filepath.Join(proj, "s5.jsonl"), cAssistant("s5", "m", "r", "toolu_p", "Bash", 1)+cResult("s5", "toolu_p", persisted)+
		cResult("s5", "toolu_q", strings.Replace(persisted, "toolu_p", "toolu_q", 1)))
	writeFile(t, filepath.Join(proj, "s5", "tool-results", "toolu_p.txt"), "complete output")
	gem := filepath.Join(root, "gemini", "tmp", "abc")
	spillPath := filepath.Join(gem, "tool-outputs", "session-g1", "shell_c1.txt")
	writeFile(t, spillPath, "full")
	doc := map[string]any{"sessionId": "g1", "projectHash": "abc", "messages": []any{
		map[string]any{"id": "m1", "type": "gemini", "model": "gemini-2.5-pro", "toolCalls": []any{
			map[string]any{"id": "c1", "name": "shell", "status": "success", "result": []any{map[string]any{"functionResponse": map[string]any{
				"id": "c1", "name": "shell", "response": map[string]any{"output": "Output too large. Showing first 10 and last 10 characters. For full output see: " + spillPath + "\nhead\n\n... [5 characters omitted] ...\n\ntail"}}}}},
		}}}}
	writeFile(t, filepath.Join(gem, "chats", "session-1.json"), mustJSON(doc))
	d := openTemp(t)
	s := index(t, d, root)
	if s.SpillNotices != 3 {
		t.Fatalf("spill notices %d, want 3: %+v", s.SpillNotices, s)
	}
	rows, _ := d.Results(t.Context(), ResultFilter{})
	want := map[string]struct {
		kind   string
		exists bool
	}{
		"toolu_p": {NoticeClaudePersisted, true},
		"toolu_q": {NoticeClaudePersisted, false},
		"c1":      {NoticeGemini, true},
	}
	for _, r := range rows {
		w, ok := want[r.CallID]
		if !ok || r.Spill == nil {
			t.Errorf("unexpected result %+v", r)
			continue
		}
		if r.Spill.Kind != w.kind || r.SpillExists != w.exists {
			t.Errorf("%s: kind %s exists %v, want %s %v", r.CallID, r.Spill.Kind, r.SpillExists, w.kind, w.exists)
		}
		if r.SpillExists && !strings.HasPrefix(r.SpillResolved, root) {
			t.Errorf("%s resolved outside the root: %s", r.CallID, r.SpillResolved)
		}
	}
}

func TestDBInsideRootRefused(t *testing.T) {
	root := t.TempDir()
	err := CheckDBPath(filepath.Join(root, "sub", "index.db"), []string{root})
	if err == nil || !strings.Contains(err.Error(), "inside an indexed session folder") {
		t.Errorf("got %v, want ErrDBInsideRoot", err)
	}
	if err := CheckDBPath(filepath.Join(t.TempDir(), "index.db"), []string{root}); err != nil {
		t.Errorf("outside path refused: %v", err)
	}
	d, err := Open(filepath.Join(root, "x", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Index(t.Context(), []string{root}, IndexOptions{}); err == nil {
		t.Error("Index accepted a root holding its database")
	}
}

func TestCodexUsageAndImages(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-x.jsonl")
	line := func(typ string, payload map[string]any) string {
		return mustJSON(map[string]any{"timestamp": "2026-01-01T00:00:00Z", "type": typ, "payload": payload})
	}
	tc := func(in, cached, out int) string {
		return line("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": map[string]any{
			"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out, "reasoning_output_tokens": 1, "total_tokens": in + out}}})
	}
	writeFile(t, path, line("session_meta", map[string]any{"id": "cx1", "cwd": "/w"})+
		line("turn_context", map[string]any{"model": "gpt-5", "cwd": "/w"})+
		line("response_item", map[string]any{"type": "function_call", "name": "view_image", "call_id": "call_1", "arguments": "{}"})+
		line("response_item", map[string]any{"type": "function_call_output", "call_id": "call_1", "output": []any{
			map[string]any{"type": "input_text", "text": "attached"},
			map[string]any{"type": "input_image", "image_url": "data:image/png;base64," + pngBase64(t)}}})+
		tc(100, 40, 10)+tc(100, 40, 10)+line("event_msg", map[string]any{"type": "token_count", "info": nil}))
	d := openTemp(t)
	s := index(t, d, root)
	if s.ToolResults != 1 || s.ToolResultImages != 1 || s.Sessions != 1 {
		t.Fatalf("%+v", s)
	}
	appendFile(t, path, tc(250, 100, 30))
	index(t, d, root)
	if u := usageTotals(t, d); u.Input != 150 || u.CacheRead != 100 || u.Output != 30 {
		t.Errorf("usage %+v, want the last running total (150 uncached, 100 cached, 30 out)", u)
	}
	rows, _ := d.Results(t.Context(), ResultFilter{})
	if len(rows) != 1 || rows[0].ToolName != "view_image" || rows[0].Route == "" {
		t.Errorf("rows %+v", rows)
	}
}

func TestRetainedRecord(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "spill")
	img, _ := base64.StdEncoding.DecodeString(pngBase64(t))
	writeFile(t, filepath.Join(dir, "attachments", "a.png"), string(img))
	writeFile(t, filepath.Join(dir, "0123456789abcdef.txt"), "complete")
	rec := map[string]any{"version": 1, "createdAt": "2026-01-01T00:00:00Z", "toolName": "shot", "budget": 100, "route": "openai-tile",
		"input":   map[string]any{"content": []any{map[string]any{"type": "text", "text": "hi"}, map[string]any{"type": "image", "mimeType": "image/png", "path": "attachments/a.png"}}},
		"outcome": map[string]any{"status": "replaced", "spillPath": filepath.Join(dir, "0123456789abcdef.txt")}}
	writeFile(t, filepath.Join(dir, "0123456789abcdef"+RetainedSuffix), mustJSON(rec))
	d := openTemp(t)
	s := index(t, d, root)
	if s.ToolResults != 1 || s.ToolResultImages != 1 || s.SpillNotices != 1 || s.Sessions != 1 {
		t.Fatalf("%+v", s)
	}
	rows, _ := d.Results(t.Context(), ResultFilter{})
	if rows[0].Route != "openai-tile" || !rows[0].SpillExists || rows[0].ToolName != "shot" {
		t.Errorf("%+v", rows[0])
	}
	_, res, err := d.LoadResult(t.Context(), rows[0].ID)
	if err != nil || len(res.Content) != 2 || res.Content[1].Path == "" {
		t.Errorf("load: %v %+v", err, res)
	}
	_ = fmt.Sprint
}

func TestDetectHarness(t *testing.T) {
	dir := t.TempDir()
	codexLine := `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n"
	tests := []struct {
		name, rel, content, want string
	}{
		{"codex by name", "sessions/2026/01/01/rollout-a.jsonl", "", HarnessCodex},
		{"codex by content", "elsewhere/log.jsonl", codexLine, HarnessCodex},
		{"claude by content", "projects/-p/s.jsonl", cResult("s", "t", "x"), HarnessClaude},
		{"claude quoting codex", "projects/-p/q.jsonl", cResult("s", "t", codexLine), HarnessClaude},
		{"claude after junk", "projects/-p/j.jsonl", "// comment\n" + cResult("s", "t", "x"), HarnessClaude},
		{"gemini chat", "tmp/h/chats/session-1.json", "{}", HarnessGemini},
		{"other json", "tmp/h/logs.json", "{}", ""},
		{"claude spill json", "projects/-p/s/tool-results/t.json", "[]", ""},
		{"retained record", "spill/abc.retained.json", "{}", HarnessSpillscope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, filepath.FromSlash(tt.rel))
			writeFile(t, p, tt.content)
			got := detect(&Probe{Path: p})
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A file that vanishes or cannot be opened between the walk and the read
// becomes a diagnostic on that file; the pass goes on.
func TestFileGoneBeforeRead(t *testing.T) {
	root := t.TempDir()
	d := openTemp(t)
	c := candidate{path: filepath.Join(root, "p", "gone.jsonl"), root: root, harness: HarnessClaude, size: 10, mtime: 1}
	if _, _, err := d.indexFile(t.Context(), c, nil, []string{root}, nil); err != nil {
		t.Fatal(err)
	}
	s, err := d.Totals(t.Context(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	diags, _ := d.BrowseDiagnostics(t.Context(), 10)
	if s.Files != 1 || s.Diagnostics != 1 || len(diags) != 1 || !strings.Contains(diags[0].Message, "cannot read file") || strings.Contains(diags[0].Message, root) {
		t.Errorf("summary %+v diagnostics %+v", s, diags)
	}
}

func TestNestedRoots(t *testing.T) {
	root := t.TempDir()
	inner := filepath.Join(root, "projects")
	writeFile(t, filepath.Join(inner, "-p", "s7.jsonl"), cAssistant("s7", "m", "r", "t1", "Bash", 1)+cResult("s7", "t1", "x"))
	d := openTemp(t)
	a := index(t, d, inner)
	b := index(t, d, root)
	c := index(t, d, inner)
	if a.ToolResults != 1 || b.ToolResults != 1 || c.ToolResults != 1 || b.ChangedFiles != 0 || c.ChangedFiles != 0 {
		t.Errorf("inner %+v, outer %+v, inner again %+v", a, b, c)
	}
}
