package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Small Gemini CLI JSONL recordings of the shapes FORMATS.md section 3
// and chatRecordingService.ts write.

func gHeader(sid, kind string) string {
	return mustJSON(map[string]any{"sessionId": sid, "projectHash": "h", "startTime": "2026-04-23T12:52:00Z", "lastUpdated": "2026-04-23T12:52:00Z", "kind": kind})
}

func gSet(v map[string]any) string { return mustJSON(map[string]any{"$set": v}) }

func gUser(id, text string) string {
	return mustJSON(map[string]any{"id": id, "timestamp": "2026-04-23T12:52:01Z", "type": "user", "content": []any{map[string]any{"text": text}}})
}

// gModel is a gemini message; calls are call ids, each with its result.
func gModel(id, ts string, in, cached, out, thoughts int, calls ...string) string {
	m := map[string]any{"id": id, "timestamp": ts, "type": "gemini", "content": "", "model": "gemini-3-flash-preview",
		"tokens": map[string]any{"input": in, "output": out, "cached": cached, "thoughts": thoughts, "tool": 0, "total": in + out + thoughts}}
	if len(calls) > 0 {
		m["toolCalls"] = gCalls(calls...)
	}
	return mustJSON(m)
}

func gCalls(calls ...string) []any {
	var tc []any
	for _, c := range calls {
		tc = append(tc, map[string]any{"id": c, "name": "run_shell_command", "args": map[string]any{}, "status": "success", "timestamp": "t",
			"result":        []any{map[string]any{"functionResponse": map[string]any{"id": c, "name": "run_shell_command", "response": map[string]any{"output": "output of " + c}}}},
			"resultDisplay": "x", "displayName": "Shell"})
	}
	return tc
}

func geminiPath(root string) string {
	return filepath.Join(root, "tmp", "h", "chats", "session-2026-04-23T12-52-0ab84937.jsonl")
}

func TestGeminiLineShapes(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		check func(t *testing.T, d *DB, s SessionSummary)
	}{
		{"a message written again with its tool calls: the last record wins, one call", gHeader("g1", "main") +
			mustJSON(map[string]any{"id": "i1", "timestamp": "2026-04-23T12:52:00Z", "type": "info", "content": "Model switched"}) + gSet(map[string]any{"lastUpdated": "2026-04-23T12:53:00Z"}) +
			gUser("u1", "list files") + gModel("m1", "2026-04-23T12:52:05Z", 13906, 0, 185, 306) +
			gSet(map[string]any{"lastUpdated": "2026-04-23T12:53:05Z"}) + gModel("m1", "2026-04-23T12:52:05Z", 13906, 0, 185, 306, "c1", "c2") +
			gModel("m2", "2026-04-23T12:52:09Z", 29082, 8156, 89, 642, "c3") + gSet(map[string]any{"summary": "Listing files"}),
			func(t *testing.T, d *DB, s SessionSummary) {
				got := idsByCall(t, d)
				if len(got) != 3 || got["c1"].Line != 7 || got["c3"].Line != 8 {
					t.Errorf("results %+v", got)
				}
				mc, _ := d.ModelCalls(t.Context(), s.ID)
				if len(mc) != 2 || mc[0].Key != "m1" || mc[0].Line != 5 || mc[0].Input != 13906 || mc[0].Output != 185+306 || mc[0].Reasoning != 306 ||
					mc[1].Input != 29082-8156 || mc[1].CacheRead != 8156 || mc[1].Prompt() != 29082 {
					t.Errorf("calls %+v", mc)
				}
				if s.Title != "Listing files" || s.SessionID != "g1" || s.Ended != "2026-04-23T12:53:05Z" || s.Model != "gemini-3-flash-preview" {
					t.Errorf("session %+v", s)
				}
			}},
		{"a rewind cuts the history from the message it names", gHeader("g1", "main") + gUser("u1", "a") + gModel("m1", "t", 10, 0, 1, 0, "c1") +
			gUser("u2", "b") + gModel("m2", "t", 20, 0, 1, 0, "c2") + mustJSON(map[string]any{"$rewindTo": "u2"}) + gModel("m3", "t", 30, 0, 1, 0, "c3"),
			func(t *testing.T, d *DB, s SessionSummary) {
				got := idsByCall(t, d)
				if len(got) != 2 || got["c1"].ID == 0 || got["c3"].ID == 0 || s.ModelCalls != 2 || s.Input != 40 {
					t.Errorf("results %+v calls %d input %d", got, s.ModelCalls, s.Input)
				}
			}},
		{"a history set anew replaces the messages and is a compaction", gHeader("g1", "main") + gUser("u1", "a") + gModel("m1", "t", 10, 0, 1, 0, "c1") +
			gModel("m2", "t", 20, 0, 1, 0, "c2") +
			gSet(map[string]any{"messages": []any{
				map[string]any{"id": "sum", "timestamp": "t", "type": "user", "content": []any{map[string]any{"text": "summary of the conversation"}}},
				map[string]any{"id": "m2", "timestamp": "t", "type": "gemini", "content": "", "toolCalls": gCalls("c2"),
					"tokens": map[string]any{"input": 20, "output": 1, "cached": 0}}},
				"lastUpdated": "t9"}) + gModel("m3", "t", 5, 0, 1, 0, "c4"),
			func(t *testing.T, d *DB, s SessionSummary) {
				got := idsByCall(t, d)
				if len(got) != 2 || got["c2"].Line != 5 || got["c4"].Line != 6 {
					t.Errorf("results %+v", got)
				}
				mc, _ := d.ModelCalls(t.Context(), s.ID)
				if len(mc) != 2 || mc[0].Key != "m2" || mc[0].Line != 4 || mc[1].Key != "m3" {
					t.Errorf("calls %+v", mc)
				}
				cs, _ := d.Compactions(t.Context(), s.ID)
				if len(cs) != 1 || cs[0].Kind != CompactionGeminiHistory || cs[0].Line != 5 {
					t.Errorf("compactions %+v", cs)
				}
				if _, res, err := d.LoadResult(t.Context(), got["c2"].ID); err != nil || res.Content[0].Text != "output of c2" {
					t.Errorf("a result inside the $set line reads back: %+v %v", res, err)
				}
			}},
		{"unknown records and message types are counted", gHeader("g1", "main") + mustJSON(map[string]any{"$push": map[string]any{}}) +
			mustJSON(map[string]any{"weird": 1}) + mustJSON(map[string]any{"weird": 2}) +
			mustJSON(map[string]any{"id": "x1", "type": "hologram", "content": ""}) + "not json\n",
			func(t *testing.T, d *DB, s SessionSummary) {
				diags, _ := d.BrowseDiagnostics(t.Context(), 10)
				want := map[string]string{"$push": "1", "record without id": "2", "hologram": "1"}
				for _, dg := range diags {
					k := dg.Params["type"] + dg.Params["value"]
					if dg.Code == DiagNotJSON && dg.Line == 6 {
						continue
					}
					if want[k] != dg.Params["count"] {
						t.Errorf("diagnostic %+v", dg)
					}
					delete(want, k)
				}
				if len(want) != 0 || len(diags) != 4 {
					t.Errorf("missing %v in %+v", want, diags)
				}
			}},
		{"both notice forms", gHeader("g1", "main") +
			mustJSON(map[string]any{"id": "m1", "type": "gemini", "timestamp": "t", "toolCalls": []any{
				map[string]any{"id": "c1", "name": "run_shell_command", "status": "success", "result": []any{map[string]any{"functionResponse": map[string]any{"response": map[string]any{
					"output": "Output too large. Showing first 8 and last 8 characters. For full output see: /home/u/.gemini/tmp/h/tool-outputs/session-g1/run_shell_command_c1.txt\nhead\n\n... [900 characters omitted] ...\n\ntail"}}}}},
				map[string]any{"id": "c2", "name": "read_file", "status": "success", "result": []any{map[string]any{"functionResponse": map[string]any{"response": map[string]any{
					"output": "Tool output was too large and has been truncated.\nThe full output has been saved to: /home/u/.gemini/tmp/h/c2.output\nTo read the complete output, use the read_file tool.\nTruncated part of the output:\n..."}}}}},
			}}),
			func(t *testing.T, d *DB, s SessionSummary) {
				got := idsByCall(t, d)
				if got["c1"].Spill == nil || got["c1"].Spill.Kind != NoticeGemini || got["c2"].Spill == nil || got["c2"].Spill.Kind != NoticeGeminiLegacy {
					t.Errorf("notices %+v / %+v", got["c1"].Spill, got["c2"].Spill)
				}
			}},
		{"a damaged inline image is a diagnostic naming the call", gHeader("g1", "main") +
			mustJSON(map[string]any{"id": "m1", "type": "gemini", "timestamp": "t", "toolCalls": []any{
				map[string]any{"id": "c1", "name": "read_file", "status": "success", "result": []any{
					map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": "REDACTED" + pngBase64(t)[8:]}}}}}}),
			func(t *testing.T, d *DB, s SessionSummary) {
				diags, _ := d.BrowseDiagnostics(t.Context(), 10)
				if len(diags) != 1 || diags[0].Code != DiagBadImage || diags[0].Params["callId"] != "c1" || s.Images != 0 {
					t.Errorf("diagnostics %+v images %d", diags, s.Images)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, geminiPath(root), tt.lines)
			d := openTemp(t)
			index(t, d, root)
			tt.check(t, d, onlySession(t, d))
		})
	}
}

// TestGeminiLinesIncremental: a recording that grows (the CLI appends),
// is rewritten (a resumed legacy file migrated, a copy with other spacing)
// or deleted keeps the ids of the results it still holds.
func TestGeminiLinesIncremental(t *testing.T) {
	root := t.TempDir()
	path := geminiPath(root)
	writeFile(t, path, gHeader("g1", "main")+gUser("u1", "a")+gModel("m1", "t", 10, 0, 1, 0)+gModel("m1", "t", 10, 0, 1, 0, "c1", "c2"))
	d := openTemp(t)
	index(t, d, root)
	if err := d.Enrich(t.Context(), EnrichOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	before := idsByCall(t, d)
	t.Run("append", func(t *testing.T) {
		// The next turn: a new message, and m1 written again with a third
		// call (the last record wins).
		appendFile(t, path, gSet(map[string]any{"lastUpdated": "t2"})+gModel("m1", "t", 10, 0, 1, 0, "c1", "c2", "c5")+gModel("m2", "t", 20, 5, 2, 0, "c3"))
		s := index(t, d, root)
		got := idsByCall(t, d)
		if s.ToolResults != 4 || got["c1"].ID != before["c1"].ID || got["c2"].ID != before["c2"].ID || got["c1"].EstTokens == nil || got["c5"].Line != 6 {
			t.Errorf("%+v: %+v", s, got)
		}
		if ss := onlySession(t, d); ss.ModelCalls != 2 || ss.Input != 10+15 || ss.CacheRead != 5 {
			t.Errorf("session %+v", ss)
		}
	})
	t.Run("rewrite", func(t *testing.T) {
		prev := idsByCall(t, d)
		var b strings.Builder
		b.WriteString(gHeader("g1", "main"))
		b.WriteString(strings.ReplaceAll(gUser("u1", "a"), ",", ", "))
		b.WriteString(strings.ReplaceAll(gModel("m1", "t", 10, 0, 1, 0, "c1", "c2", "c5"), ",", ",  "))
		b.WriteString(gModel("m2", "t", 20, 5, 2, 0, "c3"))
		writeFile(t, path, b.String())
		bump(t, path)
		index(t, d, root)
		got := idsByCall(t, d)
		for _, c := range []string{"c1", "c2", "c3", "c5"} {
			if got[c].ID != prev[c].ID || got[c].Offset == prev[c].Offset && c != "c3" {
				t.Errorf("%s: id %d at %d, was %d at %d", c, got[c].ID, got[c].Offset, prev[c].ID, prev[c].Offset)
			}
		}
		if _, res, err := d.LoadResult(t.Context(), got["c5"].ID); err != nil || res.Content[0].Text != "output of c5" {
			t.Errorf("read back at the new place: %+v %v", res, err)
		}
	})
	t.Run("delete", func(t *testing.T) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		s := index(t, d, root)
		if s.Files != 0 || s.ToolResults != 0 || s.Sessions != 0 {
			t.Errorf("%+v", s)
		}
	})
}

// TestGeminiSubagent: a subagent's recording, chats/<parent>/<id>.jsonl, is
// filed under its parent session.
func TestGeminiSubagent(t *testing.T) {
	root := t.TempDir()
	chats := filepath.Join(root, "tmp", "h", "chats")
	writeFile(t, filepath.Join(chats, "session-2026-04-23T12-52-0ab84937.jsonl"), gHeader("0ab84937-aaaa", "main")+gModel("m1", "t", 10, 0, 1, 0, "c1"))
	writeFile(t, filepath.Join(chats, "0ab84937-aaaa", "sub-1.jsonl"), gHeader("sub-1", "subagent")+gModel("m1", "t", 3, 0, 1, 0, "c2"))
	d := openTemp(t)
	if s := index(t, d, root); s.Sessions != 1 || s.Files != 2 || s.ToolResults != 2 {
		t.Fatalf("%+v", s)
	}
	ss, _ := d.BrowseSessions(t.Context(), SessionFilter{})
	for _, s := range ss {
		if s.AgentID == "" {
			continue
		}
		if s.AgentID != "sub-1" || s.SessionID != "0ab84937-aaaa" || s.Kind != TranscriptSubagent || s.ParentRowID == 0 || s.ModelCalls != 1 {
			t.Errorf("subagent %+v", s)
		}
	}
}

// TestGeminiDocCalls: the older JSON document gives the same per-call
// records and title.
func TestGeminiDocCalls(t *testing.T) {
	root := t.TempDir()
	doc := `{"sessionId":"g2","projectHash":"h","startTime":"t0","lastUpdated":"t9","summary":"Doc title","messages":[` +
		`{"id":"m1","timestamp":"t1","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":100,"output":5,"cached":40,"thoughts":7,"tool":3,"total":115},"toolCalls":[]},` +
		`{"timestamp":"t2","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":200,"output":1,"cached":0}}]}`
	writeFile(t, filepath.Join(root, "tmp", "h", "chats", "session-1.json"), doc)
	d := openTemp(t)
	index(t, d, root)
	s := onlySession(t, d)
	mc, _ := d.ModelCalls(t.Context(), s.ID)
	if len(mc) != 2 || mc[0].Input != 63 || mc[0].CacheRead != 40 || mc[0].Output != 12 || mc[0].Reasoning != 7 || mc[1].Key != "message:1" || s.Title != "Doc title" {
		t.Errorf("calls %+v session %+v", mc, s)
	}
}

// TestGeminiNotASession: a file in a recording's place that holds none of
// its records is one diagnostic and no session.
func TestGeminiNotASession(t *testing.T) {
	root := t.TempDir()
	writeFile(t, geminiPath(root), strings.Repeat("not json\n", 30)+`{"weird":1}`+"\n")
	d := openTemp(t)
	s := index(t, d, root)
	diags, _ := d.BrowseDiagnostics(t.Context(), 10)
	if s.Files != 1 || s.Sessions != 0 || len(diags) != 1 || diags[0].Code != DiagNotASession || diags[0].Params["lines"] != "31" || diags[0].Params["harness"] != "Gemini CLI" {
		t.Errorf("%+v %+v", s, diags)
	}
}

// TestMidRewrite: a Gemini CLI file written moments ago that is not yet
// whole (a JSON document that does not parse, a JSONL record without its
// newline) is read again later; an old one is read as it is, with
// diagnostics, and a whole one at once.
func TestMidRewrite(t *testing.T) {
	now, old := time.Now().UnixNano(), time.Now().Add(-2*rewriteGrace).UnixNano()
	tests := []struct {
		name    string
		path    string
		doc     string
		modTime int64
		want    bool
	}{
		{"whole document", "session-1.json", `{"messages":[]}`, now, false},
		{"document cut short", "session-1.json", `{"messages":[`, now, true},
		{"old document cut short", "session-1.json", `{"messages":[`, old, false},
		{"whole records", "session-1.jsonl", "{\"a\":1}\n{\"b\":2}\n", now, false},
		{"record without its newline", "session-1.jsonl", "{\"a\":1}\n{\"b\":", now, true},
		{"old record without its newline", "session-1.jsonl", "{\"a\":1}\n{\"b\":", old, false},
		{"empty recording", "session-1.jsonl", "", now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := Source{Path: filepath.Join("chats", tt.path), ModTime: tt.modTime}
			if got := midRewrite(src, []byte(tt.doc)); got != tt.want {
				t.Errorf("midRewrite = %v, want %v", got, tt.want)
			}
		})
	}
}
