package sessions

import (
	"errors"
	"path/filepath"
	"testing"

	"spillscope/retention"
)

// Small Codex CLI rollout lines of the shapes FORMATS.md section 2 names.

func xLine(typ, ts string, payload map[string]any) string {
	return mustJSON(map[string]any{"timestamp": ts, "type": typ, "payload": payload})
}

func xTokens(ts string, total, last [4]int, window int) string {
	u := func(v [4]int) map[string]any {
		return map[string]any{"input_tokens": v[0], "cached_input_tokens": v[1], "output_tokens": v[2], "reasoning_output_tokens": v[3], "total_tokens": v[0] + v[2]}
	}
	return xLine("event_msg", ts, map[string]any{"type": "token_count", "info": map[string]any{
		"total_token_usage": u(total), "last_token_usage": u(last), "model_context_window": window}, "rate_limits": map[string]any{}})
}

func xStart(model string) string {
	return xLine("session_meta", "2026-07-06T09:00:00Z", map[string]any{"id": "019f-x", "session_id": "019f-x", "cwd": "/w", "cli_version": "0.142.5"}) +
		xLine("turn_context", "2026-07-06T09:00:01Z", map[string]any{"turn_id": "t1", "cwd": "/w", "model": model})
}

func xCall(id, name, output string) string {
	return xLine("response_item", "2026-07-06T09:00:02Z", map[string]any{"type": "function_call", "name": name, "call_id": id, "arguments": "{}"}) +
		xLine("response_item", "2026-07-06T09:00:03Z", map[string]any{"type": "function_call_output", "call_id": id, "output": output})
}

func codexPath(root string) string {
	return filepath.Join(root, "sessions", "2026", "07", "06", "rollout-2026-07-06T09-00-00-019f-x.jsonl")
}

func TestCodexShapes(t *testing.T) {
	png := pngBase64(t)
	tests := []struct {
		name  string
		lines string
		check func(t *testing.T, d *DB, s SessionSummary)
	}{
		{"one call per new running total, its own usage, its model and window", xStart("gpt-5.5") +
			xTokens("2026-07-06T09:00:04Z", [4]int{100, 40, 10, 2}, [4]int{100, 40, 10, 2}, 258400) +
			xTokens("2026-07-06T09:00:04Z", [4]int{100, 40, 10, 2}, [4]int{100, 40, 10, 2}, 258400) +
			xLine("event_msg", "t", map[string]any{"type": "token_count", "info": nil, "rate_limits": map[string]any{}}) +
			xLine("turn_context", "t", map[string]any{"turn_id": "t2", "model": "gpt-5.4"}) +
			xTokens("2026-07-06T09:00:09Z", [4]int{350, 140, 40, 5}, [4]int{250, 100, 30, 3}, 258400),
			func(t *testing.T, d *DB, s SessionSummary) {
				mc, _ := d.ModelCalls(t.Context(), s.ID)
				if len(mc) != 2 || mc[0].Input != 60 || mc[0].CacheRead != 40 || mc[0].Output != 10 || mc[0].Reasoning != 2 || mc[0].Line != 3 ||
					mc[0].Model != "gpt-5.5" || mc[0].ContextWindow != 258400 || mc[0].At != "2026-07-06T09:00:04Z" ||
					mc[1].Input != 150 || mc[1].CacheRead != 100 || mc[1].Model != "gpt-5.4" || mc[1].Prompt() != 250 {
					t.Errorf("calls %+v", mc)
				}
				// The totals are the calls' sums, which end at the last
				// running total.
				if s.Input != 210 || s.CacheRead != 140 || s.Output != 40 || s.Reasoning != 5 {
					t.Errorf("totals %+v", s)
				}
			}},
		{"compacted and context_compacted are one compaction; aborts are facts", xStart("gpt-5.5") +
			xLine("event_msg", "t1", map[string]any{"type": "turn_aborted", "turn_id": "t1", "reason": "interrupted", "duration_ms": 9857}) +
			xLine("compacted", "2026-07-06T11:35:17Z", map[string]any{"message": "", "replacement_history": []any{}, "window_number": 1}) +
			xTokens("t", [4]int{10, 0, 1, 0}, [4]int{10, 0, 1, 0}, 1) +
			xLine("event_msg", "t", map[string]any{"type": "context_compacted"}) +
			xLine("event_msg", "t", map[string]any{"type": "context_compacted"}),
			func(t *testing.T, d *DB, s SessionSummary) {
				cs, _ := d.Compactions(t.Context(), s.ID)
				want := []Compaction{{Session: "019f-x", Key: "line:4", Kind: CompactionCodex, At: "2026-07-06T11:35:17Z", Line: 4, EndLine: 6},
					{Session: "019f-x", Key: "line:7", Kind: CompactionCodex, At: "t", Line: 7, EndLine: 7}}
				if len(cs) != 2 || cs[0] != want[0] || cs[1] != want[1] {
					t.Errorf("compactions %+v", cs)
				}
				evs, _ := d.SessionEvents(t.Context(), s.ID)
				if s.AbortedTurns != 1 || len(evs) != 1 || evs[0].Detail != "interrupted" || evs[0].Line != 3 {
					t.Errorf("aborted %d events %+v", s.AbortedTurns, evs)
				}
			}},
		{"newer line types are known and skipped", xStart("m") +
			xLine("world_state", "t", map[string]any{"x": 1}) + xLine("inter_agent_communication", "t", map[string]any{"x": 1}) +
			xLine("inter_agent_communication_metadata", "t", map[string]any{"x": 1}) +
			xLine("response_item", "t", map[string]any{"type": "tool_search_output", "call_id": "c", "tools": []any{}}) +
			xLine("response_item", "t", map[string]any{"type": "holo_call"}) + xLine("response_item", "t", map[string]any{"type": "holo_call"}),
			func(t *testing.T, d *DB, s SessionSummary) {
				diags, _ := d.BrowseDiagnostics(t.Context(), 10)
				if len(diags) != 1 || diags[0].Code != DiagUnknownField || diags[0].Params["value"] != "holo_call" || diags[0].Params["count"] != "2" || diags[0].Line != 7 {
					t.Errorf("diagnostics %+v", diags)
				}
			}},
		{"a damaged image in a function_call_output is a diagnostic naming the call", xStart("m") +
			xLine("response_item", "t", map[string]any{"type": "function_call", "name": "view_image", "call_id": "call_img", "arguments": "{}"}) +
			xLine("response_item", "t", map[string]any{"type": "function_call_output", "call_id": "call_img", "output": []any{
				map[string]any{"type": "input_image", "image_url": "data:image/png;base64,REDACTED/" + png[9:], "detail": "high"},
				map[string]any{"type": "input_image", "image_url": "data:image/png;base64," + png, "detail": "high"}}}),
			func(t *testing.T, d *DB, s SessionSummary) {
				diags, _ := d.BrowseDiagnostics(t.Context(), 10)
				if len(diags) != 1 || diags[0].Code != DiagBadImage || diags[0].Params["callId"] != "call_img" || diags[0].Params["block"] != "0" {
					t.Errorf("diagnostics %+v", diags)
				}
				rows, _ := d.Results(t.Context(), ResultFilter{})
				if s.Images != 1 || len(rows) != 1 || rows[0].Images != 1 {
					t.Errorf("images %d, rows %+v", s.Images, rows)
				}
			}},
		{"a whole run's exec_command_end is the original of its result", xStart("m") +
			xCall("call_done", "exec_command", "Chunk ID: a1\nWall time: 0.2 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\nhead…5 tokens truncated…tail") +
			xLine("event_msg", "t", map[string]any{"type": "exec_command_end", "call_id": "call_done", "aggregated_output": "head and the whole middle tail", "exit_code": 0}) +
			xCall("call_run", "exec_command", "Chunk ID: a2\nWall time: 1.0 seconds\nProcess running with session ID 48230\nOriginal token count: 0\nOutput:\n") +
			xLine("event_msg", "t", map[string]any{"type": "exec_command_end", "call_id": "call_run", "aggregated_output": "polled later", "exit_code": 0}),
			func(t *testing.T, d *DB, s SessionSummary) {
				got := idsByCall(t, d)
				done, run := got["call_done"], got["call_run"]
				if done.Original == nil || done.Original.Line != 5 || run.Original != nil {
					t.Fatalf("originals %+v / %+v", done.Original, run.Original)
				}
				if out, err := d.LoadOriginal(t.Context(), done.ID); err != nil || out != "head and the whole middle tail" {
					t.Errorf("original %q %v", out, err)
				}
				if _, err := d.LoadOriginal(t.Context(), run.ID); !errors.Is(err, ErrNotFound) {
					t.Errorf("a running chunk's original: %v", err)
				}
			}},
		{"0.77 shell output and apply_patch results", xStart("m") +
			xCall("call_sh", "shell", `{"output":"ok\n","metadata":{"exit_code":1,"duration_seconds":0.4}}`) +
			xLine("response_item", "t", map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": "call_p", "name": "apply_patch", "input": "*** Begin Patch"}) +
			xLine("response_item", "t", map[string]any{"type": "custom_tool_call_output", "call_id": "call_p", "output": "Success."}),
			func(t *testing.T, d *DB, s SessionSummary) {
				got := idsByCall(t, d)
				if !got["call_sh"].IsError || got["call_p"].ToolName != "apply_patch" || got["call_p"].IsError {
					t.Errorf("%+v", got)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, codexPath(root), tt.lines)
			d := openTemp(t)
			index(t, d, root)
			tt.check(t, d, onlySession(t, d))
		})
	}
}

// TestCodexAcrossPasses: an appended rollout keeps counting calls from its
// last total (a repeat of it is no new call), closes a compaction opened in
// the earlier pass, and a log with running totals only is counted by what
// each grew.
func TestCodexAcrossPasses(t *testing.T) {
	t.Run("last usage", func(t *testing.T) {
		root := t.TempDir()
		path := codexPath(root)
		writeFile(t, path, xStart("gpt-5.5")+xTokens("t", [4]int{100, 40, 10, 2}, [4]int{100, 40, 10, 2}, 9)+
			xLine("compacted", "t", map[string]any{"message": "", "replacement_history": []any{}}))
		d := openTemp(t)
		index(t, d, root)
		appendFile(t, path, xTokens("t", [4]int{100, 40, 10, 2}, [4]int{100, 40, 10, 2}, 9)+
			xLine("event_msg", "t", map[string]any{"type": "context_compacted"})+
			xTokens("t", [4]int{300, 90, 20, 2}, [4]int{200, 50, 10, 0}, 9))
		index(t, d, root)
		s := onlySession(t, d)
		cs, _ := d.Compactions(t.Context(), s.ID)
		if s.ModelCalls != 2 || s.Input != 60+150 || s.CacheRead != 90 || s.Output != 20 || len(cs) != 1 || cs[0].Line != 4 || cs[0].EndLine != 6 {
			t.Errorf("session %+v compactions %+v", s, cs)
		}
	})
	t.Run("running totals only", func(t *testing.T) {
		root := t.TempDir()
		path := codexPath(root)
		tc := func(in, cached, out int) string {
			return xLine("event_msg", "t", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": map[string]any{
				"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out, "total_tokens": in + out}}})
		}
		writeFile(t, path, xStart("m")+tc(100, 40, 10)+tc(160, 60, 15))
		d := openTemp(t)
		index(t, d, root)
		appendFile(t, path, tc(160, 60, 15)+tc(250, 100, 30))
		index(t, d, root)
		s := onlySession(t, d)
		mc, _ := d.ModelCalls(t.Context(), s.ID)
		if len(mc) != 3 || mc[1].Input != 40 || mc[2].Input != 50 || mc[2].CacheRead != 40 || mc[2].Output != 15 ||
			s.Input != 150 || s.CacheRead != 100 || s.Output != 30 {
			t.Errorf("calls %+v totals %+v", mc, s)
		}
	})
}

// TestCodexCut: a result Codex truncated itself is recorded as cut by
// Codex with the original size its text records; a rewritten file drops a
// cut no longer there; an aggregate cut for storage is no original.
func TestCodexCut(t *testing.T) {
	root := t.TempDir()
	cut := "Chunk ID: 9f1c2a\nWall time: 2.1 seconds\nProcess exited with code 0\nOriginal token count: 202197\nOutput:\n" +
		"Warning: truncated output (original token count: 202197)\nTotal output lines: 6743\n\nhead…192197 tokens truncated…tail"
	older := "Chunk ID: 1\nWall time: 1 seconds\nProcess exited with code 0\nOriginal token count: 5000\nOutput:\nhead…4000 tokens truncated…tail"
	writeFile(t, codexPath(root), xStart("m")+xCall("call_cut", "exec_command", cut)+xCall("call_old", "exec_command", older)+
		xLine("event_msg", "t", map[string]any{"type": "exec_command_end", "call_id": "call_old",
			"aggregated_output": "head" + retention.CodexPersistenceMarker + "tail", "exit_code": 0})+
		xCall("call_whole", "exec_command", "Process exited with code 0\nOriginal token count: 3\nOutput:\nall of it"))
	d := openTemp(t)
	index(t, d, root)
	got := idsByCall(t, d)
	if c := got["call_cut"].Cut; c == nil || *c != (HarnessCut{By: HarnessCodex, OriginalTokens: 202197, OriginalLines: 6743}) {
		t.Errorf("cut %+v", c)
	}
	if c := got["call_old"].Cut; c == nil || *c != (HarnessCut{By: HarnessCodex, OriginalTokens: 5000, OriginalLines: -1}) || got["call_old"].Original != nil {
		t.Errorf("older cut %+v, original %+v", c, got["call_old"].Original)
	}
	if got["call_whole"].Cut != nil {
		t.Errorf("an uncut result marked: %+v", got["call_whole"].Cut)
	}
	writeFile(t, codexPath(root), xStart("m")+xCall("call_cut", "exec_command", "Process exited with code 0\nOutput:\nnow whole"))
	bump(t, codexPath(root))
	index(t, d, root)
	if c := idsByCall(t, d)["call_cut"].Cut; c != nil {
		t.Errorf("cut kept after the rewrite: %+v", c)
	}
}
