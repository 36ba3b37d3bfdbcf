package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"spillscope/internal/fixtures"
	"spillscope/retention"
	"spillscope/sessions/internal/testkit"
)

// collected is everything one or more passes reported.
type collected struct {
	testkit.Collected[Session, Result, Usage, Compaction]
}

func (c *collected) handler() Handler {
	return Handler{Session: c.OnSession, Result: c.OnResult, Usage: c.OnUsage, Compaction: c.OnCompaction, Diagnostic: c.OnDiagnostic}
}

func readPath(t *testing.T, path string) (*collected, Cursor) {
	t.Helper()
	var c collected
	cur, err := ReadFile(context.Background(), path, Cursor{}, c.handler())
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", path, err)
	}
	return &c, cur
}

func writeLog(t *testing.T, lines ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "session-state", "s1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, LogName)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRealFixtures reads every shared Copilot log and checks the reader's
// figures against ones computed here from the raw lines.
func TestRealFixtures(t *testing.T) {
	root := filepath.Join(fixtures.RealRoot(t), "copilot", "session-state")
	paths, _ := filepath.Glob(filepath.Join(root, "*", LogName))
	if len(paths) == 0 {
		t.Skip("no Copilot fixtures under " + root)
	}
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			type ev struct {
				Type string         `json:"type"`
				Data map[string]any `json:"data"`
			}
			names := map[string]string{}
			var wantCalls, wantTools, wantText []string
			var wantOut float64
			var wantID, wantVersion string
			for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
				var e ev
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatal(err)
				}
				switch e.Type {
				case "session.start":
					wantID, _ = e.Data["sessionId"].(string)
					wantVersion, _ = e.Data["copilotVersion"].(string)
				case "tool.execution_start":
					names[e.Data["toolCallId"].(string)] = e.Data["toolName"].(string)
				case "assistant.message":
					if n, ok := e.Data["outputTokens"].(float64); ok {
						wantOut += n
					}
				case "tool.execution_complete":
					id := e.Data["toolCallId"].(string)
					wantCalls = append(wantCalls, id)
					wantTools = append(wantTools, names[id])
					res, _ := e.Data["result"].(map[string]any)
					s, _ := res["content"].(string)
					wantText = append(wantText, s)
				}
			}
			c, cur := readPath(t, path)
			if cur.Offset != int64(len(raw)) {
				t.Errorf("cursor offset %d, file is %d bytes", cur.Offset, len(raw))
			}
			var gotCalls, gotTools, gotText []string
			for _, r := range c.Results {
				gotCalls = append(gotCalls, r.CallID)
				gotTools = append(gotTools, r.Tool)
				gotText = append(gotText, r.Blocks[0].Text)
				if r.Arguments == nil {
					t.Errorf("call %s: no arguments", r.CallID)
				}
			}
			if !reflect.DeepEqual(gotCalls, wantCalls) || !reflect.DeepEqual(gotTools, wantTools) {
				t.Errorf("results %v %v, want %v %v", gotCalls, gotTools, wantCalls, wantTools)
			}
			if !reflect.DeepEqual(gotText, wantText) {
				t.Error("result texts differ from result.content")
			}
			var gotOut int64
			for _, u := range c.Usage {
				gotOut += u.Output
				if !u.OutputOnly {
					t.Errorf("usage %s: a persisted log has output tokens only", u.Key)
				}
			}
			if gotOut != int64(wantOut) {
				t.Errorf("output tokens %d, want %d", gotOut, int64(wantOut))
			}
			if len(c.Sessions) != 1 || c.Sessions[0].ID != wantID || c.Sessions[0].Version != wantVersion {
				t.Fatalf("sessions %+v, want one %s %s", c.Sessions, wantID, wantVersion)
			}
			if len(c.Sessions[0].Totals) == 0 || c.Sessions[0].Ended.IsZero() {
				t.Errorf("shutdown totals missing: %+v", c.Sessions[0])
			}
			if len(c.Diags) != 0 {
				t.Errorf("diagnostics %+v", c.Diags)
			}
			for _, r := range c.Results {
				back, err := ReadResult(context.Background(), path, r.Locator)
				if err != nil {
					t.Fatal(err)
				}
				if back.CallID != r.CallID || !reflect.DeepEqual(back.Blocks, r.Blocks) || back.Detailed != r.Detailed {
					t.Errorf("ReadResult(%+v) = %s, want %s", r.Locator, back.CallID, r.CallID)
				}
			}
		})
	}
}

const start = `{"type":"session.start","data":{"sessionId":"s1","producer":"copilot-agent","copilotVersion":"1.0.40","startTime":"2026-05-01T10:00:00.000Z","context":{"cwd":"/w","gitRoot":"/w","repository":"o/r","branch":"main"}},"id":"e1","timestamp":"2026-05-01T10:00:00.010Z","parentId":null}`

func TestShapes(t *testing.T) {
	img := `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`
	tests := []struct {
		name  string
		lines []string
		check func(t *testing.T, c *collected)
	}{
		{"success with a differing detailed view", []string{start,
			`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"view","arguments":{"path":"/w/a"}},"timestamp":"2026-05-01T10:00:01Z"}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c1","model":"m1","success":true,"result":{"content":"1. a","detailedContent":"diff --git"},"toolTelemetry":{"metrics":{"resultLength":10,"resultForLlmLength":10}}},"timestamp":"2026-05-01T10:00:02Z"}`,
		}, func(t *testing.T, c *collected) {
			r := c.Results[0]
			if r.Tool != "view" || string(r.Arguments) != `{"path":"/w/a"}` || r.Detailed != "diff --git" || r.IsError || r.Truncated || r.Model != "m1" {
				t.Errorf("%+v", r)
			}
		}},
		{"detailed equal to content is not repeated", []string{start,
			`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{}}}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"ok","detailedContent":"ok"}}}`,
		}, func(t *testing.T, c *collected) {
			if c.Results[0].Detailed != "" {
				t.Errorf("detailed %q", c.Results[0].Detailed)
			}
		}},
		{"failure with an error", []string{start,
			`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{}}}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":false,"error":{"code":"denied","message":"permission denied"}}}`,
		}, func(t *testing.T, c *collected) {
			r := c.Results[0]
			if !r.IsError || r.Error != "permission denied" || len(r.Blocks) != 1 || r.Blocks[0].Text != "permission denied" {
				t.Errorf("%+v", r)
			}
		}},
		{"binary results the model saw", []string{start,
			`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"screenshot","arguments":{}}}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"shot","binaryResultsForLlm":[` + img + `,{"type":"image","omittedReason":"too_large"}]}}}`,
		}, func(t *testing.T, c *collected) {
			b := c.Results[0].Blocks
			if len(b) != 2 || b[1].Type != retention.TypeImage || b[1].MimeType != "image/png" || b[1].Data != "iVBORw0KGgo=" {
				t.Errorf("%+v", b)
			}
		}},
		{"large output notice", []string{start,
			`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{}}}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"Output too large to read at once (30.8 KB). Saved to: /tmp/1776297019473-copilot-tool-output-2jk2c7.txt\nConsider using tools like grep.\n\nPreview (first 500 chars):\nabc"}}}`,
		}, func(t *testing.T, c *collected) {
			n := c.Results[0].Notice
			if n == nil || n.Kind != NoticeLargeOutput || n.Path != "/tmp/1776297019473-copilot-tool-output-2jk2c7.txt" || n.Size != "30.8 KB" {
				t.Errorf("%+v", n)
			}
		}},
		{"telemetry says the model got less", []string{start,
			`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"view","arguments":{}}}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"x"},"toolTelemetry":{"metrics":{"resultLength":90000,"resultForLlmLength":40000}}}}`,
		}, func(t *testing.T, c *collected) {
			r := c.Results[0]
			if !r.Truncated || r.FullLength != 90000 || r.LLMLength != 40000 {
				t.Errorf("%+v", r)
			}
		}},
		{"name from the assistant request when no start", []string{start,
			`{"type":"assistant.message","data":{"messageId":"m1","content":"","toolRequests":[{"toolCallId":"c1","name":"grep","arguments":{"q":"x"}}],"outputTokens":12}}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"hit"}}}`,
		}, func(t *testing.T, c *collected) {
			if c.Results[0].Tool != "grep" || string(c.Results[0].Arguments) != `{"q":"x"}` {
				t.Errorf("%+v", c.Results[0])
			}
			if len(c.Usage) != 1 || c.Usage[0].Output != 12 || c.Usage[0].Key != "m1" {
				t.Errorf("%+v", c.Usage)
			}
		}},
		{"sub-agent calls", []string{start,
			`{"type":"subagent.started","data":{"toolCallId":"t0","agentName":"explore","agentDisplayName":"Explore","agentDescription":"d"}}`,
			`{"type":"tool.execution_start","agentId":"a1","data":{"toolCallId":"c1","toolName":"view","arguments":{}}}`,
			`{"type":"tool.execution_complete","agentId":"a1","data":{"toolCallId":"c1","parentToolCallId":"t0","success":true,"result":{"content":"x"}}}`,
		}, func(t *testing.T, c *collected) {
			if r := c.Results[0]; r.AgentID != "a1" || r.ParentCallID != "t0" {
				t.Errorf("%+v", r)
			}
		}},
		{"model changes and per-call usage", []string{start,
			`{"type":"session.model_change","data":{"newModel":"gpt-5.2"}}`,
			`{"type":"assistant.usage","data":{"model":"gpt-5.2","apiCallId":"a1","inputTokens":1000,"outputTokens":50,"cacheReadTokens":600,"cacheWriteTokens":100,"reasoningTokens":7}}`,
		}, func(t *testing.T, c *collected) {
			u := c.Usage[0]
			if u.Input != 300 || u.CacheRead != 600 || u.CacheWrite != 100 || u.Output != 50 || u.Reasoning != 7 || u.OutputOnly {
				t.Errorf("%+v", u)
			}
			if c.Sessions[0].Model != "gpt-5.2" {
				t.Errorf("model %q", c.Sessions[0].Model)
			}
		}},
		{"compaction and truncation", []string{start,
			`{"type":"session.compaction_start","data":{},"timestamp":"2026-05-01T10:01:00Z"}`,
			`{"type":"session.compaction_complete","data":{"success":true,"preCompactionTokens":150000,"postCompactionTokens":20000,"messagesRemoved":40,"tokensRemoved":130000,"summaryContent":"so far"}}`,
			`{"type":"session.truncation","data":{"tokenLimit":128000,"preTruncationTokensInMessages":130000,"preTruncationMessagesLength":9,"postTruncationTokensInMessages":90000,"postTruncationMessagesLength":7,"tokensRemovedDuringTruncation":40000,"messagesRemovedDuringTruncation":2,"performedBy":"BasicTruncator"}}`,
		}, func(t *testing.T, c *collected) {
			if len(c.Compactions) != 3 || c.Compactions[0].Kind != CompactionStart || c.Compactions[1].PostTokens != 20000 ||
				c.Compactions[1].Summary != "so far" || c.Compactions[2].Kind != Truncation || c.Compactions[2].TokenLimit != 128000 {
				t.Errorf("%+v", c.Compactions)
			}
		}},
		{"shutdown totals exclude cache from input", []string{start,
			`{"type":"session.shutdown","data":{"shutdownType":"routine","modelMetrics":{"b":{"requests":{"count":2},"usage":{"inputTokens":10,"outputTokens":1,"cacheReadTokens":4,"cacheWriteTokens":0}},"a":{"requests":{"count":6},"usage":{"inputTokens":186809,"outputTokens":2848,"cacheReadTokens":151738,"cacheWriteTokens":0,"reasoningTokens":1024}}},"currentModel":"a","currentTokens":35322,"systemTokens":9891,"conversationTokens":10223,"toolDefinitionsTokens":15204},"timestamp":"2026-05-01T11:00:00Z"}`,
		}, func(t *testing.T, c *collected) {
			s := c.Sessions[0]
			want := []ModelTotals{{Model: "a", Requests: 6, Input: 35071, CacheRead: 151738, Output: 2848, Reasoning: 1024}, {Model: "b", Requests: 2, Input: 6, CacheRead: 4, Output: 1}}
			if !reflect.DeepEqual(s.Totals, want) || s.CurrentTokens != 35322 || s.Ended.IsZero() {
				t.Errorf("%+v", s)
			}
		}},
		{"unknown types counted once per type", []string{start,
			`{"type":"future.thing","data":{}}`, `{"type":"future.thing","data":{}}`, `{"type":"other.thing","data":{}}`, `{"type":"future.thing","data":{}}`,
		}, func(t *testing.T, c *collected) {
			if len(c.Diags) != 2 || c.Diags[0].Params["type"] != "future.thing" || c.Diags[0].Params["count"] != "3" || c.Diags[0].Line != 2 ||
				c.Diags[1].Params["type"] != "other.thing" || c.Diags[1].Line != 4 {
				t.Errorf("%+v", c.Diags)
			}
		}},
		{"a bad line is one diagnostic and does not stop the file", []string{start, `not json`, `{"data":{}}`,
			`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{}}}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"x"}}}`,
		}, func(t *testing.T, c *collected) {
			if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagBadLine, DiagNoType}) || len(c.Results) != 1 {
				t.Errorf("%v %d", got, len(c.Results))
			}
		}},
		{"a known event with bad data", []string{start, `{"type":"tool.execution_complete","data":{"toolCallId":5}}`},
			func(t *testing.T, c *collected) {
				if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagBadEvent}) {
					t.Errorf("%v", got)
				}
			}},
		{"a result whose call never started", []string{start,
			`{"type":"tool.execution_complete","data":{"toolCallId":"c9","success":true,"result":{"content":"x"}}}`,
		}, func(t *testing.T, c *collected) {
			if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagOrphanResult}) || len(c.Results) != 1 || c.Results[0].Tool != "" {
				t.Errorf("%v %+v", got, c.Results)
			}
		}},
		{"not a session at all", []string{`<html>`, `x`}, func(t *testing.T, c *collected) {
			if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagNotSession, DiagBadLine}) || len(c.Sessions) != 0 {
				t.Errorf("%v %v", got, c.Sessions)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := readPath(t, writeLog(t, tt.lines...))
			tt.check(t, c)
		})
	}
}

// TestIncremental appends to a log between passes: nothing is reported
// twice, nothing is lost, an incomplete last line waits, and a call started
// in one pass and completed in the next gets its name and arguments.
func TestIncremental(t *testing.T) {
	first := start + "\n" +
		`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"ls"}}}` + "\n" +
		`{"type":"tool.execution_complete","data":{"toolCallId":"c0","success":true,"result":{"content":"early"}}}` + "\n" +
		`{"type":"tool.execution_start","data":{"toolCallId":"c2",` // incomplete: still being written
	rest := `"toolName":"view","arguments":{"path":"p"}}}` + "\n" +
		`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"a b"}}}` + "\n" +
		`{"type":"tool.execution_complete","data":{"toolCallId":"c2","success":true,"result":{"content":"p!"}}}` + "\n"
	p := writeLog(t, "x")
	if err := os.WriteFile(p, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	var c1 collected
	cur, err := ReadFile(context.Background(), p, Cursor{}, c1.handler())
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(strings.LastIndex(first, "\n") + 1); cur.Offset != want || cur.Line != 4 {
		t.Fatalf("cursor %+v, want offset %d line 4", cur, want)
	}
	if _, ok := cur.Pending["c1"]; !ok || len(c1.Results) != 1 {
		t.Fatalf("pending %v results %d", cur.Pending, len(c1.Results))
	}
	raw, _ := json.Marshal(cur) // the cursor survives the index's storage
	var stored Cursor
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(rest)
	f.Close()
	var c2 collected
	cur2, err := ReadFile(context.Background(), p, stored, c2.handler())
	if err != nil {
		t.Fatal(err)
	}
	if len(c2.Results) != 2 {
		t.Fatalf("second pass %d results", len(c2.Results))
	}
	r1, r2 := c2.Results[0], c2.Results[1]
	if r1.CallID != "c1" || r1.Tool != "bash" || string(r1.Arguments) != `{"command":"ls"}` || r1.Locator.Line != 5 {
		t.Errorf("%+v", r1)
	}
	if r2.Tool != "view" || string(r2.Arguments) != `{"path":"p"}` {
		t.Errorf("%+v", r2)
	}
	if len(cur2.Pending) != 0 || c2.Sessions[0].ID != "s1" {
		t.Errorf("pending %v session %+v", cur2.Pending, c2.Sessions)
	}
	// the whole file read at once gives the same results
	whole, _ := readPath(t, p)
	if len(whole.Results) != len(c1.Results)+len(c2.Results) {
		t.Errorf("whole %d vs %d+%d", len(whole.Results), len(c1.Results), len(c2.Results))
	}
}

func TestReadResultGone(t *testing.T) {
	p := writeLog(t, start)
	if _, err := ReadResult(context.Background(), p, Locator{Offset: 0, Length: int64(len(start)), Line: 1}); !errors.Is(err, ErrResultGone) {
		t.Errorf("err %v", err)
	}
	if _, err := ReadResult(context.Background(), p, Locator{Offset: 1 << 20, Length: 10}); !errors.Is(err, ErrResultGone) {
		t.Errorf("err %v", err)
	}
}

func TestStopsOnHandlerError(t *testing.T) {
	stop := errors.New("stop")
	p := writeLog(t, start,
		`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{}}}`,
		`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"x"}}}`)
	_, err := ReadFile(context.Background(), p, Cursor{}, Handler{Result: func(Result) error { return stop }})
	if !errors.Is(err, stop) {
		t.Errorf("err %v", err)
	}
}

func TestDetect(t *testing.T) {
	p := writeLog(t, start)
	if !DetectFile(p) || !IsLogPath(p) {
		t.Errorf("DetectFile/IsLogPath(%s) false", p)
	}
	other := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(other, []byte(`{"type":"session_meta","payload":{}}`+"\n"), 0o644)
	if DetectFile(other) || IsLogPath(other) {
		t.Error("a Codex line detected as Copilot")
	}
	if Detect([]byte(`{"type":"session.start","data":{"sessionId":"x","producer":"other"}}`)) {
		t.Error("another producer detected")
	}
}

func TestDefaultRoots(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	got := DefaultRoots(env(map[string]string{"HOME": "/home/u"}))
	if want := []string{"/home/u/.copilot/session-state", "/home/u/.copilot/history-session-state"}; !reflect.DeepEqual(got, want) {
		t.Errorf("%v", got)
	}
	got = DefaultRoots(env(map[string]string{"HOME": "/home/u", HomeEnv: "/data/cp"}))
	if got[0] != "/data/cp/session-state" {
		t.Errorf("%v", got)
	}
	if got := DefaultRoots(env(map[string]string{"HOME": "/home/u", HomeEnv: "rel"})); got[0] != "/home/u/.copilot/session-state" {
		t.Errorf("a relative COPILOT_HOME was used: %v", got)
	}
}

func TestSpillRule(t *testing.T) {
	r := Spill(func(k string) string { return map[string]string{"TMPDIR": "/var/tmp/x"}[k] })
	tests := []struct {
		path string
		want bool
	}{
		{"/tmp/1776297019473-copilot-tool-output-2jk2c7.txt", true},
		{"/var/tmp/x/1-copilot-tool-output-a.txt", true},
		{"/tmp/sub/1776297019473-copilot-tool-output-2jk2c7.txt", false},
		{"/tmp/../etc/1-copilot-tool-output-a.txt", false},
		{"/tmp/passwd", false},
		{"tmp/1-copilot-tool-output-a.txt", false},
	}
	for _, tt := range tests {
		if got := r.Match(tt.path); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	sort.Strings(r.Dirs)
	if !reflect.DeepEqual(r.Dirs, []string{"/tmp", "/var/tmp/x"}) {
		t.Errorf("dirs %v", r.Dirs)
	}
}
