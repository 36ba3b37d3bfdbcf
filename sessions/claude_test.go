package sessions

import (
	"path/filepath"
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/retention/links"
)

// Small Claude Code lines of the shapes FORMATS.md section 1 names, each
// built as the real files write them.

func cLine(v map[string]any) string {
	if _, ok := v["sessionId"]; !ok {
		v["sessionId"] = "s"
	}
	return mustJSON(v)
}

// cSplit is one API response written over len(outs) lines, one content
// block each, repeating its ids and usage with output growing.
func cSplit(msgID, req, model, ts string, in int, outs ...int) string {
	var b strings.Builder
	for i, out := range outs {
		b.WriteString(cLine(map[string]any{"type": "assistant", "timestamp": ts, "requestId": req, "uuid": msgID + string(rune('a'+i)),
			"message": map[string]any{"id": msgID, "model": model, "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "x"}},
				"usage": map[string]any{"input_tokens": in, "output_tokens": out, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 20}}}))
	}
	return b.String()
}

func onlySession(t *testing.T, d *DB) SessionSummary {
	t.Helper()
	ss, err := d.BrowseSessions(t.Context(), SessionFilter{})
	if err != nil || len(ss) != 1 {
		t.Fatalf("sessions %+v %v", ss, err)
	}
	return ss[0]
}

func TestClaudeShapes(t *testing.T) {
	png := pngBase64(t)
	damaged := png[:len(png)-12] + "REDACTED===="
	tests := []struct {
		name  string
		lines string
		check func(t *testing.T, d *DB, s SessionSummary)
	}{
		{"custom title wins over the generated one", cLine(map[string]any{"type": "ai-title", "aiTitle": "Generated"}) +
			cLine(map[string]any{"type": "custom-title", "customTitle": "Mine"}) + cLine(map[string]any{"type": "ai-title", "aiTitle": "Later generated"}) +
			cSplit("msg_1", "req_1", "claude-opus-4-7", "2026-04-01T00:00:00Z", 5, 9),
			func(t *testing.T, d *DB, s SessionSummary) {
				if s.Title != "Mine" {
					t.Errorf("title %q", s.Title)
				}
			}},
		{"generated title alone", cLine(map[string]any{"type": "ai-title", "aiTitle": "Generated"}) + cSplit("msg_1", "req_1", "m", "t", 1, 1),
			func(t *testing.T, d *DB, s SessionSummary) {
				if s.Title != "Generated" {
					t.Errorf("title %q", s.Title)
				}
			}},
		{"newer line types are known", cLine(map[string]any{"type": "permission-mode", "permissionMode": "plan"}) +
			cLine(map[string]any{"type": "last-prompt", "lastPrompt": "go"}) + cLine(map[string]any{"type": "agent-name", "agentName": "a"}) +
			cLine(map[string]any{"type": "pr-link", "prUrl": "https://example.com/pr/1", "prNumber": 1}) +
			cLine(map[string]any{"type": "agent-setting"}) + cLine(map[string]any{"type": "bridge-session", "bridgeSessionId": "b"}) +
			cLine(map[string]any{"type": "worktree-state"}) +
			cLine(map[string]any{"type": "attachment", "uuid": "u", "attachment": map[string]any{"type": "hook_success", "hookName": "h", "content": "ok"}}) +
			cSplit("msg_1", "req_1", "m", "t", 1, 1),
			func(t *testing.T, d *DB, s SessionSummary) {
				if n := diagCodes(t, d); len(n) != 0 {
					t.Errorf("diagnostics %v", n)
				}
			}},
		{"one response over three lines is one call with the last usage and the first place", cLine(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "hi"}}) +
			cSplit("msg_1", "req_1", "claude-opus-4-7", "2026-04-01T00:00:01Z", 7, 25, 90, 173) + cSplit("msg_2", "req_2", "claude-opus-4-7", "2026-04-01T00:00:05Z", 3, 4),
			func(t *testing.T, d *DB, s SessionSummary) {
				mc, _ := d.ModelCalls(t.Context(), s.ID)
				want := []ModelCall{
					{Session: "s", Key: "msg_1|req_1", At: "2026-04-01T00:00:01Z", Line: 2, Input: 7, CacheRead: 1000, CacheWrite: 20, Output: 173, Model: "claude-opus-4-7"},
					{Session: "s", Key: "msg_2|req_2", At: "2026-04-01T00:00:05Z", Line: 5, Input: 3, CacheRead: 1000, CacheWrite: 20, Output: 4, Model: "claude-opus-4-7"},
				}
				if len(mc) != 2 || mc[0] != want[0] || mc[1] != want[1] {
					t.Errorf("calls %+v", mc)
				}
				if s.Input != 10 || s.Output != 177 || s.CacheRead != 2000 || s.CacheWrite != 40 || s.ModelCalls != 2 {
					t.Errorf("totals %+v", s)
				}
			}},
		{"a <synthetic> line is no call and no model", cSplit("msg_1", "req_1", "claude-opus-4-6", "t", 5, 5) +
			cLine(map[string]any{"type": "system", "subtype": "api_error", "level": "error", "uuid": "e1", "timestamp": "t2",
				"error": map[string]any{"status": 529, "error": map[string]any{"type": "overloaded_error"}}, "retryInMs": 600, "retryAttempt": 1, "maxRetries": 10}) +
			cLine(map[string]any{"type": "system", "subtype": "api_error", "level": "error", "uuid": "e2", "error": map[string]any{"status": 529}}) +
			cLine(map[string]any{"type": "assistant", "uuid": "x", "isApiErrorMessage": true, "error": "unknown",
				"message": map[string]any{"id": "fb8a", "model": "<synthetic>", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "API Error"}},
					"usage": map[string]any{"input_tokens": 0, "output_tokens": 0}}}),
			func(t *testing.T, d *DB, s SessionSummary) {
				if s.Model != "claude-opus-4-6" || s.Route == "" || s.ModelCalls != 1 || s.APIErrors != 2 {
					t.Errorf("model %q route %q calls %d api errors %d", s.Model, s.Route, s.ModelCalls, s.APIErrors)
				}
				evs, _ := d.SessionEvents(t.Context(), s.ID)
				if len(evs) != 2 || evs[0] != (SessionEvent{Session: "s", Kind: EventAPIError, At: "t2", Line: 2, Detail: "529"}) {
					t.Errorf("events %+v", evs)
				}
				if n := diagCodes(t, d); len(n) != 0 {
					t.Errorf("API errors are facts, not diagnostics: %v", n)
				}
			}},
		{"compact boundary and its summary are one compaction", cSplit("msg_1", "req_1", "m", "t", 1, 1) +
			cLine(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": "b", "timestamp": "2026-04-01T01:00:00Z", "content": "Conversation compacted",
				"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 167731}}) +
			cLine(map[string]any{"type": "user", "uuid": "c", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
				"message": map[string]any{"role": "user", "content": "This session is being continued..."}}) +
			cLine(map[string]any{"type": "user", "uuid": "d", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "a summary alone"}}),
			func(t *testing.T, d *DB, s SessionSummary) {
				cs, _ := d.Compactions(t.Context(), s.ID)
				want := []Compaction{{Session: "s", Key: "line:2", Kind: CompactionClaude, At: "2026-04-01T01:00:00Z", Line: 2, EndLine: 3, Trigger: "auto",
					TokensBefore: 167731}, {Session: "s", Key: "line:4", Kind: CompactionClaude, Line: 4, EndLine: 4}}
				if len(cs) != 2 || cs[0] != want[0] || cs[1] != want[1] {
					t.Errorf("compactions %+v", cs)
				}
			}},
		{"tool_reference blocks are a kind of their own, shown as a line", cSplit("msg_1", "req_1", "m", "t", 1, 1) +
			cResult("s", "toolu_1", []any{map[string]any{"type": "tool_reference", "tool_name": "mcp__github__create_issue"},
				map[string]any{"type": "text", "text": "found 1 tool"}}),
			func(t *testing.T, d *DB, s SessionSummary) {
				rows, _ := d.Results(t.Context(), ResultFilter{})
				if len(rows) != 1 || rows[0].Images != 0 || rows[0].TextBytes != int64(len("found 1 tool")) {
					t.Fatalf("rows %+v", rows)
				}
				_, res, err := d.LoadResult(t.Context(), rows[0].ID)
				if err != nil || len(res.Content) != 2 || res.Content[0].Type != retention.TypeToolReference || res.Content[0].Name != "mcp__github__create_issue" {
					t.Fatalf("read back %+v %v", res, err)
				}
				v := links.Classify(res.Content)[0]
				if v.Kind != links.KindItself || v.Line != "[tool reference: mcp__github__create_issue]" {
					t.Errorf("view %+v", v)
				}
				// The meter prices it by its structural rule (its JSON);
				// the text alone would be less.
				est, err := retention.LookupEstimator(retention.EstimatorMeter)
				if err != nil {
					t.Fatal(err)
				}
				a, err := retention.Analyse(res, est, "", retention.AnalyseOptions{})
				if err != nil {
					t.Fatal(err)
				}
				whole, exact := a.Original()
				textOnly, _ := retention.Analyse(retention.Result{Content: res.Content[1:]}, est, "", retention.AnalyseOptions{})
				text, _ := textOnly.Original()
				if ref, ok := est.Structural(res.Content[0].Raw); !exact || !ok || whole.Text != text.Text+ref || ref <= 0 {
					t.Errorf("priced %+v (exact %v), text alone %+v, the reference's JSON %d", whole, exact, text, ref)
				}
				if n := diagCodes(t, d); len(n) != 0 {
					t.Errorf("diagnostics %v", n)
				}
			}},
		{"an unknown block type is counted once per file", cSplit("msg_1", "req_1", "m", "t", 1, 1) +
			cResult("s", "toolu_1", []any{map[string]any{"type": "hologram", "x": 1}}) + cResult("s", "toolu_2", []any{map[string]any{"type": "hologram"}}),
			func(t *testing.T, d *DB, s SessionSummary) {
				diags, _ := d.BrowseDiagnostics(t.Context(), 10)
				if len(diags) != 1 || diags[0].Code != DiagUnknownField || diags[0].Params["count"] != "2" || diags[0].Params["value"] != "hologram" || diags[0].Line != 2 {
					t.Errorf("diagnostics %+v", diags)
				}
			}},
		{"an image whose bytes are damaged is a diagnostic naming the call, never an attachment", cSplit("msg_1", "req_1", "m", "t", 1, 1) +
			cResult("s", "toolu_img", []any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": damaged}},
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": png}}}),
			func(t *testing.T, d *DB, s SessionSummary) {
				diags, _ := d.BrowseDiagnostics(t.Context(), 10)
				if len(diags) != 1 || diags[0].Code != DiagBadImage || diags[0].Params["callId"] != "toolu_img" || diags[0].Params["block"] != "0" {
					t.Errorf("diagnostics %+v", diags)
				}
				if s.Images != 1 {
					t.Errorf("%d images stored, want the one whole image", s.Images)
				}
				rows, _ := d.Results(t.Context(), ResultFilter{})
				if _, res, err := d.LoadResult(t.Context(), rows[0].ID); err != nil || res.Content[0].Type != "invalid:image" || res.Content[1].Path == "" {
					t.Errorf("read back %+v %v", res, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "projects", "-w", "0b8f1c52-0000-4000-8000-000000000001.jsonl"), tt.lines)
			d := openTemp(t)
			index(t, d, root)
			tt.check(t, d, onlySession(t, d))
		})
	}
}

// TestClaudeSubagents: agent-*.jsonl beside a session (under
// <session>/subagents/, and 2.0.x's agent-*.jsonl in the project folder)
// are typed from their meta files, compactions labelled, and nested under
// the session.
func TestClaudeSubagents(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "projects", "-w")
	sid := "0b8f1c52-0000-4000-8000-000000000001"
	sub := filepath.Join(proj, sid, "subagents")
	agent := func(id string) string {
		return cLine(map[string]any{"type": "user", "sessionId": sid, "agentId": id, "isSidechain": true, "uuid": "u" + id,
			"message": map[string]any{"role": "user", "content": "task"}}) + cSplit("msg_"+id, "req_"+id, "claude-haiku-4-5", "t", 2, 3)
	}
	writeFile(t, filepath.Join(proj, sid+".jsonl"), cLine(map[string]any{"type": "user", "sessionId": sid, "uuid": "p", "message": map[string]any{"role": "user", "content": "hi"}}))
	writeFile(t, filepath.Join(sub, "agent-a52886dc180afb356.jsonl"), agent("a52886dc180afb356"))
	writeFile(t, filepath.Join(sub, "agent-a52886dc180afb356.meta.json"), `{"agentType":"general-purpose","worktreePath":"x","description":"Research plan mode"}`+"\n")
	writeFile(t, filepath.Join(sub, "agent-a6aa8ad077d9ea083.jsonl"), agent("a6aa8ad077d9ea083"))
	writeFile(t, filepath.Join(sub, "agent-a6aa8ad077d9ea083.meta.json"), `{"agentType":"Explore","description":"no final newline"}`)
	writeFile(t, filepath.Join(sub, "agent-acompact-f46190.jsonl"), agent("acompact-f46190"))
	writeFile(t, filepath.Join(sub, "agent-abad.jsonl"), agent("abad"))
	writeFile(t, filepath.Join(sub, "agent-abad.meta.json"), `{"agentType":`)
	writeFile(t, filepath.Join(proj, "agent-old20x.jsonl"), agent("old20x"))
	d := openTemp(t)
	s := index(t, d, root)
	if s.Sessions != 1 || s.Files != 6 || s.Diagnostics != 1 {
		t.Fatalf("%+v", s)
	}
	ss, _ := d.BrowseSessions(t.Context(), SessionFilter{})
	var parent int64
	for _, x := range ss {
		if x.AgentID == "" {
			parent = x.ID
		}
	}
	want := map[string][3]string{
		"a52886dc180afb356": {TranscriptSubagent, "general-purpose", "Research plan mode"},
		"a6aa8ad077d9ea083": {TranscriptSubagent, "Explore", "no final newline"},
		"acompact-f46190":   {TranscriptCompaction, "", ""},
		"abad":              {TranscriptSubagent, "", ""},
		"old20x":            {TranscriptSubagent, "", ""},
	}
	for _, x := range ss {
		if x.AgentID == "" {
			continue
		}
		w := want[x.AgentID]
		if got := [3]string{x.Kind, x.AgentType, x.AgentDescription}; got != w || x.ParentRowID != parent || x.ModelCalls != 1 {
			t.Errorf("%s: %v parent %d calls %d, want %v parent %d", x.AgentID, got, x.ParentRowID, x.ModelCalls, w, parent)
		}
	}
	diags, _ := d.BrowseDiagnostics(t.Context(), 10)
	if len(diags) != 1 || diags[0].Code != DiagBadShape || diags[0].Params["part"] != "agent-abad.meta.json" {
		t.Errorf("diagnostics %+v", diags)
	}
}

// TestClaudeCompactionAcrossPasses: a boundary read in one pass and its
// summary appended after are still one compaction.
func TestClaudeCompactionAcrossPasses(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "projects", "-w", "0b8f1c52-0000-4000-8000-000000000001.jsonl")
	writeFile(t, path, cSplit("msg_1", "req_1", "m", "t", 1, 1, 2)+
		cLine(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": "b", "compactMetadata": map[string]any{"trigger": "manual", "preTokens": 50}}))
	d := openTemp(t)
	index(t, d, root)
	// The same response's last line, and the summary, arrive later.
	appendFile(t, path, cSplit("msg_1", "req_1", "m", "t", 1, 9)+
		cLine(map[string]any{"type": "user", "uuid": "c", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "summary"}}))
	index(t, d, root)
	s := onlySession(t, d)
	cs, _ := d.Compactions(t.Context(), s.ID)
	mc, _ := d.ModelCalls(t.Context(), s.ID)
	if len(cs) != 1 || cs[0].Line != 3 || cs[0].EndLine != 5 || cs[0].Trigger != "manual" || cs[0].TokensBefore != 50 || cs[0].Key != "line:3" {
		t.Errorf("compactions %+v", cs)
	}
	if len(mc) != 1 || mc[0].Line != 1 || mc[0].Output != 9 || s.Output != 9 {
		t.Errorf("calls %+v, session output %d", mc, s.Output)
	}
}

// TestTitleMasked: a title can quote what the user typed; a credential in
// it never reaches the index.
func TestTitleMasked(t *testing.T) {
	root := t.TempDir()
	secret := "hunter2-" + strings.Repeat("a1B2", 9)
	writeFile(t, filepath.Join(root, "projects", "-w", "0b8f1c52-0000-4000-8000-000000000001.jsonl"),
		cLine(map[string]any{"type": "custom-title", "customTitle": "Rotate token api_key=" + secret})+cSplit("msg_1", "req_1", "m", "t", 1, 1))
	d := openTemp(t)
	index(t, d, root)
	s := onlySession(t, d)
	if strings.Contains(s.Title, secret) || s.Title != "Rotate token api_key=[redacted]" {
		t.Errorf("title %q", s.Title)
	}
	var stored string
	d.db.QueryRow(`SELECT title FROM sessions`).Scan(&stored)
	if strings.Contains(stored, secret) {
		t.Errorf("stored title %q", stored)
	}
}
