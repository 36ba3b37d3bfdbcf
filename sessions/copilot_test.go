package sessions

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spillscope/sessions/copilot"
)

// cpEvent is one Copilot CLI event line.
// cpTime is every test event's time, as the index writes it.
const cpTime = "2026-04-23T17:08:08.893Z"

func cpEvent(typ string, data map[string]any) string {
	return mustJSON(map[string]any{"type": typ, "data": data, "id": "e", "timestamp": cpTime, "parentId": nil}) + "\n"
}

func cpStart(sid string) string {
	return cpEvent("session.start", map[string]any{"sessionId": sid, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.34",
		"startTime": "2026-04-23T17:08:08.893Z", "context": map[string]any{"cwd": "/w/api", "gitRoot": "/w/api"}})
}

func cpCall(id, tool string) string {
	return cpEvent("tool.execution_start", map[string]any{"toolCallId": id, "toolName": tool, "arguments": map[string]any{"command": "make " + id}})
}

func cpDone(id, content string) string {
	return cpEvent("tool.execution_complete", map[string]any{"toolCallId": id, "model": "claude-sonnet-4.6", "success": true,
		"result": map[string]any{"content": content, "detailedContent": content}})
}

// TestCopilotShapes: every event shape FORMATS.md section 4 names, and the
// ones the CLI's schema adds, read into the index.
func TestCopilotShapes(t *testing.T) {
	base := t.TempDir()
	tmp := filepath.Join(base, "tmp")
	spill := filepath.Join(tmp, "1776964088893-copilot-tool-output-a1b2c3.txt")
	writeFile(t, spill, strings.Repeat("x", 40_000))
	root := filepath.Join(base, ".copilot", "session-state")
	path := filepath.Join(root, "u1", "events.jsonl")
	img := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	writeFile(t, path, cpStart("u1")+
		cpEvent("session.model_change", map[string]any{"newModel": "claude-sonnet-4.6"})+
		cpEvent("assistant.message", map[string]any{"messageId": "m1", "content": "", "outputTokens": 120,
			"toolRequests": []any{map[string]any{"toolCallId": "c_req", "name": "view", "arguments": map[string]any{"path": "/w/a.png"}}}})+
		cpCall("c_big", "bash")+
		cpDone("c_big", "Output too large to read at once (39.1 KB). Saved to: "+spill+"\nConsider using tools like grep.\n\nPreview (first 500 chars):\nxxx")+
		cpCall("c_forged", "bash")+
		cpDone("c_forged", "Output too large to read at once (1 KB). Saved to: /etc/shadow\n")+
		cpEvent("tool.execution_complete", map[string]any{"toolCallId": "c_req", "success": true,
			"result": map[string]any{"content": "Viewed.", "binaryResultsForLlm": []any{map[string]any{"type": "image", "data": img, "mimeType": "image/png"}}}})+
		cpCall("c_fail", "web_fetch")+
		cpEvent("tool.execution_complete", map[string]any{"toolCallId": "c_fail", "success": false, "error": map[string]any{"code": "failure", "message": "503 Service Unavailable"}})+
		cpDone("c_orphan", "never started")+
		"not json at all\n"+
		`{"data":{}}`+"\n"+
		strings.Repeat(cpEvent("future.event", map[string]any{}), 3)+
		cpEvent("session.compaction_start", map[string]any{})+
		cpEvent("session.compaction_complete", map[string]any{"success": true, "preCompactionTokens": 90000, "postCompactionTokens": 8000})+
		cpEvent("session.truncation", map[string]any{"tokenLimit": 128000, "preTruncationTokensInMessages": 130000, "postTruncationTokensInMessages": 100000})+
		cpEvent("session.shutdown", map[string]any{"modelMetrics": map[string]any{"claude-sonnet-4.6": map[string]any{
			"requests": map[string]any{"count": 2}, "usage": map[string]any{"inputTokens": 5000, "outputTokens": 120, "cacheReadTokens": 3000, "cacheWriteTokens": 500, "reasoningTokens": 64}}}}))
	d := openTemp(t)
	d.SetEnv(testEnv(map[string]string{"HOME": base, "TMPDIR": tmp}))
	s := index(t, d, root)
	if s.Files != 1 || s.Sessions != 1 || s.ToolResults != 5 || s.ToolResultImages != 1 || s.SpillNotices != 2 {
		t.Fatalf("%+v", s)
	}
	rows := rowsOf(t, d, HarnessCopilot)
	tests := []struct {
		call, tool string
		isError    bool
		text       string
		state      string
	}{
		{"c_big", "bash", false, "", FileExists},
		{"c_forged", "bash", false, "", FileOutside},
		{"c_req", "view", false, "Viewed.", ""},
		{"c_fail", "web_fetch", true, "503 Service Unavailable", ""},
		{"c_orphan", "", false, "never started", ""},
	}
	for _, tt := range tests {
		t.Run(tt.call, func(t *testing.T) {
			r := rows[tt.call]
			if r.ToolName != tt.tool || r.IsError != tt.isError || r.SpillState != tt.state {
				t.Errorf("%+v", r)
			}
			if tt.text != "" && textOf(t, d, r.ID) != tt.text {
				t.Errorf("read back %q", textOf(t, d, r.ID))
			}
			if tt.state != "" && r.Spill.Kind != copilot.NoticeLargeOutput {
				t.Errorf("notice %+v", r.Spill)
			}
		})
	}
	sf, err := d.OpenSpill(t.Context(), rows["c_big"].ID, []string{root})
	if err != nil || sf.File == nil {
		t.Fatalf("the CLI's own spill file did not open: %+v %v", sf, err)
	}
	sf.File.Close()
	if sf, _ := d.OpenSpill(t.Context(), rows["c_forged"].ID, []string{root}); sf.File != nil || sf.State != FileOutside {
		t.Errorf("a forged notice's file was opened: %+v", sf)
	}
	ss := sessionsOf(t, d, HarnessCopilot)["u1"]
	// Output is the messages' own; input, cache and reasoning are the
	// shutdown's, input without its cache reads and writes.
	if ss.Input != 1500 || ss.CacheRead != 3000 || ss.CacheWrite != 500 || ss.Output != 120 || ss.Reasoning != 64 || ss.Model != "claude-sonnet-4.6" || ss.Project != "/w/api" ||
		ss.ModelCalls != 1 {
		t.Errorf("session %+v", ss)
	}
	// The start and the complete event after it are one compaction, with
	// the complete event's counts.
	wantC := []Compaction{{Session: "u1", Key: "line:31", Kind: CompactionCopilot, At: cpTime, Line: 31, EndLine: 33, TokensBefore: 90000, TokensAfter: 8000},
		{Session: "u1", Key: "line:35", Kind: CompactionCopilotTruncation, At: cpTime, Line: 35, TokensBefore: 130000, TokensAfter: 100000}}
	if cs := compactionsOf(t, d, ss); !reflect.DeepEqual(cs, wantC) {
		t.Errorf("compactions %+v", cs)
	}
	got := diagCodes(t, d)
	want := map[string]int{DiagOrphanResult: 1, DiagNotJSON: 1, DiagNoType: 1, DiagUnknownType: 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("diagnostics %v, want %v", got, want)
			break
		}
	}
}

// TestCopilotIncremental: a log the CLI appends to is read on from the
// last complete line, a call started in one pass completes in the next
// with its tool name, ids stay; a rewritten log is read whole.
func TestCopilotIncremental(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "session-state", "u2", "events.jsonl")
	writeFile(t, path, cpStart("u2")+cpCall("c1", "bash")+cpDone("c1", "one")+cpCall("c2", "grep"))
	d := openTemp(t)
	if s := index(t, d, root); s.ToolResults != 1 {
		t.Fatalf("%+v", s)
	}
	first := rowsOf(t, d, HarnessCopilot)
	// A line still being written waits for the next pass.
	done := cpDone("c2", "two")
	appendFile(t, path, done[:20])
	if s := index(t, d, root); s.ToolResults != 1 {
		t.Fatalf("a partial line was read: %+v", s)
	}
	appendFile(t, path, done[20:]+cpCall("c3", "view")+cpDone("c3", "three"))
	if s := index(t, d, root); s.ToolResults != 3 || s.ChangedFiles != 1 {
		t.Fatalf("%+v", s)
	}
	rows := rowsOf(t, d, HarnessCopilot)
	if rows["c1"].ID != first["c1"].ID || rows["c2"].ToolName != "grep" || textOf(t, d, rows["c2"].ID) != "two" {
		t.Errorf("%+v", rows)
	}
	// The log replaced by another (a resumed session rewritten): read whole.
	writeFile(t, path, cpStart("u2")+cpCall("c1", "bash")+cpDone("c1", "one, again at more length"))
	bump(t, path)
	if s := index(t, d, root); s.ToolResults != 1 {
		t.Fatalf("%+v", s)
	}
	if again := rowsOf(t, d, HarnessCopilot); again["c1"].ID != first["c1"].ID || textOf(t, d, again["c1"].ID) != "one, again at more length" {
		t.Errorf("%+v", again)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if s := index(t, d, root); s.Sessions != 0 || s.ToolResults != 0 {
		t.Errorf("a deleted log is still indexed: %+v", s)
	}
}
