package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spillscope/internal/fixtures"
	"spillscope/retention"
	"spillscope/sessions/internal/testkit"
)

// TestRealExport reads the shared export documents and checks the reader
// against figures computed here from the document with encoding/json.
func TestRealExport(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(fixtures.RealRoot(t), "opencode", "export", "*.json"))
	if len(paths) == 0 {
		t.Skip("no OpenCode export fixtures")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Info     map[string]any `json:"info"`
				Messages []struct {
					Info  map[string]any   `json:"info"`
					Parts []map[string]any `json:"parts"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			var wantCalls, wantTools, wantOut []string
			var wantTrunc, wantNotices, wantSteps int
			var wantIn, wantOutTok, wantRead, wantWrite float64
			wantChild := map[string]string{}
			for _, m := range doc.Messages {
				for _, p := range m.Parts {
					switch p["type"] {
					case "tool":
						st := p["state"].(map[string]any)
						if st["status"] != "completed" && st["status"] != "error" {
							continue
						}
						wantCalls = append(wantCalls, p["callID"].(string))
						wantTools = append(wantTools, p["tool"].(string))
						out, _ := st["output"].(string)
						wantOut = append(wantOut, out)
						md, _ := st["metadata"].(map[string]any)
						if md["truncated"] == true {
							wantTrunc++
						}
						if s, ok := md["sessionId"].(string); ok {
							wantChild[p["callID"].(string)] = s
						}
						if strings.Contains(out, "Full output saved to: ") {
							wantNotices++
						}
					case "step-finish":
						wantSteps++
						tk := p["tokens"].(map[string]any)
						c := tk["cache"].(map[string]any)
						wantIn += tk["input"].(float64)
						wantOutTok += tk["output"].(float64)
						wantRead += c["read"].(float64)
						wantWrite += c["write"].(float64)
					}
				}
			}
			var c collected
			if err := ReadExportFile(context.Background(), path, c.handler()); err != nil {
				t.Fatal(err)
			}
			if len(c.Diags) != 0 {
				t.Errorf("diagnostics %+v", c.Diags)
			}
			if len(c.Sessions) != 1 || c.Sessions[0].ID != doc.Info["id"] || !c.Sessions[0].Complete || c.Sessions[0].Version != doc.Info["version"] {
				t.Fatalf("sessions %+v", c.Sessions)
			}
			var gotTools, gotOut []string
			var gotTrunc, gotNotices int
			for _, r := range c.Results {
				gotTools = append(gotTools, r.Tool)
				gotOut = append(gotOut, r.Blocks[0].Text)
				if r.Truncated {
					gotTrunc++
				}
				if r.Notice != nil {
					gotNotices++
				}
				if r.ChildSessionID != wantChild[r.CallID] {
					t.Errorf("call %s child %q, want %q", r.CallID, r.ChildSessionID, wantChild[r.CallID])
				}
				if r.Model == "" || r.SessionID == "" || r.MessageID == "" || r.PartID == "" {
					t.Errorf("call %s lacks ids or model: %+v", r.CallID, r)
				}
				// the locator addresses the part in the document, and Line is its line
				l := r.Locator
				var part map[string]any
				if err := json.Unmarshal(raw[l.Offset:l.Offset+l.Length], &part); err != nil || part["id"] != r.PartID {
					t.Errorf("locator %+v does not address part %s", l, r.PartID)
				}
				if want := int64(bytes.Count(raw[:l.Offset], []byte{'\n'})) + 1; r.Line != want {
					t.Errorf("call %s line %d, want %d", r.CallID, r.Line, want)
				}
				back, err := ReadResult(context.Background(), path, l)
				if err != nil || back.CallID != r.CallID || !reflect.DeepEqual(back.Blocks, r.Blocks) {
					t.Errorf("ReadResult(%+v) = %s, %v", l, back.CallID, err)
				}
			}
			if !reflect.DeepEqual(c.calls(), wantCalls) || !reflect.DeepEqual(gotTools, wantTools) || !reflect.DeepEqual(gotOut, wantOut) {
				t.Errorf("results %v %v, want %v %v", c.calls(), gotTools, wantCalls, wantTools)
			}
			if gotTrunc != wantTrunc || gotNotices != wantNotices {
				t.Errorf("truncated %d notices %d, want %d %d", gotTrunc, gotNotices, wantTrunc, wantNotices)
			}
			var in, out, read, write int64
			steps := 0
			for _, u := range c.Usage {
				if !u.FromMessage {
					steps++
				}
				in, out, read, write = in+u.Input, out+u.Output, read+u.CacheRead, write+u.CacheWrite
			}
			if steps != wantSteps || in != int64(wantIn) || out != int64(wantOutTok) || read != int64(wantRead) || write != int64(wantWrite) {
				t.Errorf("usage %d steps %d/%d/%d/%d, want %d %v/%v/%v/%v", steps, in, out, read, write, wantSteps, wantIn, wantOutTok, wantRead, wantWrite)
			}
		})
	}
}

// exportDoc builds an export document as `opencode export` writes it
// (pretty-printed, info first, each message {info, parts}).
func exportDoc(t testing.TB, messages ...map[string]any) string {
	t.Helper()
	doc := map[string]any{
		"info": map[string]any{"id": "ses_1", "slug": "s", "projectID": "p", "directory": "/w", "title": "T", "version": "1.3.0",
			"time": map[string]any{"created": 1773867525006, "updated": 1773867821539}},
		"messages": messages,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func msg(info map[string]any, parts ...map[string]any) map[string]any {
	for _, p := range parts {
		p["sessionID"], p["messageID"] = "ses_1", info["id"]
		if _, ok := p["id"]; !ok {
			p["id"] = "prt_" + info["id"].(string) + "_" + p["type"].(string)
		}
	}
	if parts == nil {
		parts = []map[string]any{}
	}
	return map[string]any{"info": info, "parts": parts}
}

func readExportString(t *testing.T, doc string) *collected {
	t.Helper()
	var c collected
	if err := ReadExport(context.Background(), strings.NewReader(doc), c.handler()); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestExportShapes(t *testing.T) {
	user := map[string]any{"id": "msg_0", "sessionID": "ses_1", "role": "user", "time": map[string]any{"created": 1},
		"agent": "build", "model": map[string]any{"providerID": "anthropic", "modelID": "claude-opus-4-6"},
		"summary": map[string]any{"diffs": []any{}}}
	img := map[string]any{"type": "file", "mime": "image/png", "filename": "shot.png", "url": "data:image/png;base64,iVBORw0KGgo="}
	link := map[string]any{"type": "file", "mime": "text/plain", "filename": "a.txt", "url": "file:///w/a.txt"}
	t.Run("results, errors, attachments, pending calls", func(t *testing.T) {
		c := readExportString(t, exportDoc(t,
			msg(user, map[string]any{"type": "text", "text": "hi"}),
			msg(assistantInfo("msg_1", 10),
				map[string]any{"type": "step-start"},
				toolPart("c1", "read", "completed", "1: package a", nil),
				toolPart("c2", "bash", "error", "command not found", nil),
				toolPart("c3", "screenshot", "completed", "taken", map[string]any{"attachments": []any{img, link}}),
				toolPart("c4", "bash", "running", "", nil),
				stepFinish(3, 283, 0, 20644)),
		))
		if got := c.calls(); !reflect.DeepEqual(got, []string{"c1", "c2", "c3"}) {
			t.Fatalf("calls %v", got)
		}
		if r := c.Results[1]; !r.IsError || r.Blocks[0].Text != "command not found" {
			t.Errorf("%+v", r)
		}
		b := c.Results[2].Blocks
		if len(b) != 3 || b[1].Type != retention.TypeImage || b[1].Data != "iVBORw0KGgo=" || b[1].MimeType != "image/png" ||
			b[2].Type != retention.TypeResourceLink || b[2].URI != "file:///w/a.txt" {
			t.Errorf("%+v", b)
		}
		if len(c.Usage) != 1 || c.Usage[0].Input != 3 || c.Usage[0].CacheWrite != 20644 || c.Usage[0].FromMessage || c.Usage[0].Model != "claude-opus-4-6" {
			t.Errorf("%+v", c.Usage)
		}
		if c.Results[0].Model != "claude-opus-4-6" || c.Results[0].Provider != "anthropic" || c.Results[0].Agent != "build" {
			t.Errorf("%+v", c.Results[0])
		}
	})
	t.Run("a message without step-finish parts gives its own usage", func(t *testing.T) {
		a := assistantInfo("msg_1", 10)
		a["tokens"] = map[string]any{"input": 5, "output": 7, "reasoning": 2, "cache": map[string]any{"read": 100, "write": 1}}
		c := readExportString(t, exportDoc(t, msg(a, map[string]any{"type": "text", "text": "done"})))
		if len(c.Usage) != 1 || !c.Usage[0].FromMessage || c.Usage[0].Key != "msg_1" || c.Usage[0].Reasoning != 2 || c.Usage[0].CacheRead != 100 {
			t.Errorf("%+v", c.Usage)
		}
	})
	t.Run("compaction request and summary, pruned output", func(t *testing.T) {
		sum := assistantInfo("msg_2", 20)
		sum["summary"] = true
		pruned := toolPart("c1", "read", "completed", "long", nil)
		pruned["state"].(map[string]any)["time"] = map[string]any{"start": 1, "end": 2, "compacted": 1773867700000}
		c := readExportString(t, exportDoc(t,
			msg(assistantInfo("msg_0", 5), pruned),
			msg(map[string]any{"id": "msg_1", "sessionID": "ses_1", "role": "user", "time": map[string]any{"created": 19}, "agent": "build",
				"model": map[string]any{"providerID": "a", "modelID": "m"}}, map[string]any{"type": "compaction", "auto": true, "overflow": true}),
			msg(sum, map[string]any{"type": "text", "text": "so far"}),
		))
		if len(c.Compactions) != 2 || c.Compactions[0].Kind != CompactionRequest || !c.Compactions[0].Auto || !c.Compactions[0].Overflow ||
			c.Compactions[1].Kind != CompactionSummary || c.Compactions[1].MessageID != "msg_2" {
			t.Errorf("%+v", c.Compactions)
		}
		if c.Results[0].CompactedAt.IsZero() {
			t.Error("the pruned output has no CompactedAt")
		}
	})
	t.Run("unknown part types are counted, bad parts reported", func(t *testing.T) {
		c := readExportString(t, exportDoc(t, msg(assistantInfo("msg_1", 10),
			map[string]any{"type": "hologram"}, map[string]any{"type": "hologram"}, map[string]any{"type": "tool", "callID": 5},
			toolPart("c1", "read", "completed", "x", nil))))
		if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagBadJSON, DiagUnknownPart}) || c.Diags[1].Params["count"] != "2" || len(c.Results) != 1 {
			t.Errorf("%v %+v", got, c.Diags)
		}
	})
	t.Run("not an export", func(t *testing.T) {
		for _, doc := range []string{`[1,2]`, `{"messages":[]}`, `{"info":{"title":"x"}}`, `hello`} {
			c := readExportString(t, doc)
			if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagNotExport}) || len(c.Sessions) != 0 {
				t.Errorf("%q: %v", doc, got)
			}
		}
	})
	t.Run("a document that breaks off keeps what came before", func(t *testing.T) {
		doc := exportDoc(t, msg(assistantInfo("msg_1", 10), toolPart("c1", "read", "completed", "x", nil)),
			msg(assistantInfo("msg_2", 11), toolPart("c2", "read", "completed", "y", nil)))
		cut := doc[:strings.Index(doc, `"msg_2"`)]
		c := readExportString(t, cut)
		if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagBadJSON}) || !reflect.DeepEqual(c.calls(), []string{"c1"}) || len(c.Sessions) != 1 {
			t.Errorf("%v %v", got, c.calls())
		}
	})
	t.Run("handler errors stop the pass", func(t *testing.T) {
		stop := errors.New("stop")
		err := ReadExport(context.Background(), strings.NewReader(exportDoc(t, msg(assistantInfo("m", 1), toolPart("c", "read", "completed", "x", nil)))),
			Handler{Result: func(Result) error { return stop }})
		if !errors.Is(err, stop) {
			t.Errorf("err %v", err)
		}
	})
}

func TestDetectExport(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ses_1.json")
	testkit.WriteFile(t, good, exportDoc(t))
	bad := filepath.Join(dir, "other.json")
	testkit.WriteFile(t, bad, `{"info":{"id":"x"},"messages":[]}`)
	if !DetectExport(good) || DetectExport(bad) || Detect(good) != KindExport || Detect(bad) != NotOpenCode {
		t.Error("detection wrong")
	}
}
