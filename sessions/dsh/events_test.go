package dsh

import (
	"reflect"
	"strings"
	"testing"

	"spillscope/retention"
)

const (
	sidV2 = "0f7d6a52-2b1c-4c55-9d0e-2a1b3c4d5e6f"
	hexA  = "b1ff9c8ea3a780bad09b346c423d2d0e46815926879b18e841d928376a946640"
	hexB  = "0000000000000000000000000000000000000000000000000000000000000abc"
)

func seqEv(l *logBuilder, seq int, typ string, data any, kv ...any) {
	l.ev(typ, data, append([]any{"seq", seq, "time", 1000 + seq}, kv...)...)
}

// v2Session is a format-2 session written from the format notes: usage in
// assistant/message (from data.usage or its stream), a failed attempt, a
// spilled result, then a prune of that result and a compaction summary that
// shadows what is left of it.
func v2Session(t testing.TB) *logBuilder {
	l := newLog(t, obj{"type": "session", "version": 2, "id": sidV2, "createdAt": 1000, "cwd": "/work/proj",
		"isSeeded": false, "delegationDepth": 0})
	model := obj{"provider": "deepseek-official", "model": "deepseek-v4-flash"}
	spill := "/tmp/dsh-spill-AbC123/" + SpillFolder(sidV2) + "/0123456789ab-bash.txt"
	body := strings.Repeat("x", 300)
	seqEv(l, 0, "turn/start", obj{"turn": 1})
	seqEv(l, 1, "step/start", obj{"turn": 1, "step": 1})
	seqEv(l, 2, "user/message", obj{"role": "user", "id": "u1", "content": []any{text("list files")}, "source": obj{"kind": "user"}}, "surfaceOp", "append")
	seqEv(l, 3, "request/header", obj{"header": obj{"config": model, "system": "you are"}, "reason": "initial"})
	seqEv(l, 4, "request/context", obj{"provider": "deepseek-official", "model": "deepseek-v4-flash", "contextWindow": 131072})
	l.batch()
	seqEv(l, 5, "assistant/attempt", obj{"turn": 1, "step": 1, "stream": []any{
		obj{"type": "chunk", "time": 1004, "chunk": obj{"type": "usage", "usage": obj{"inputTokens": 5, "outputTokens": 0}}},
		obj{"type": "chunk", "time": 1005, "chunk": obj{"type": "finish", "reason": obj{"kind": "error"}}},
	}})
	seqEv(l, 6, "llm/retry", obj{"retryId": "r1", "turn": 1, "step": 1, "provider": "deepseek-official", "mode": "normal",
		"policyKey": "k", "retry": 1, "delayMs": 10, "failure": obj{"code": "EMPTY_RESPONSE"}})
	seqEv(l, 7, "assistant/message", obj{"turn": 1, "step": 1, "message": obj{"role": "assistant", "id": "a1",
		"content": []any{obj{"type": "tool-call", "id": "c1", "name": "bash", "arguments": `{"command":"ls"}`}},
		"source":  obj{"kind": "model", "provider": "deepseek-official", "model": "deepseek-v4-flash"}},
		"stream": []any{
			obj{"type": "text-chunks", "time0": 1006, "index": 0, "dt": []int{1, 1}, "texts": []string{"a", "b", "c"}},
			obj{"type": "chunk", "time": 1009, "chunk": obj{"type": "usage", "usage": obj{"inputTokens": 100, "outputTokens": 20, "cacheReadTokens": 50}}},
		}}, "surfaceOp", "append")
	seqEv(l, 8, "tool/call", obj{"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": `{"command":"ls"}`})
	seqEv(l, 9, "tool/result", resultV0(1, 1, "m1", "c1", text(body[:100]+body[200:]+"\n\n"+byteNotice(100, spill))),
		"surfaceOp", "append", "sourceEventSeqs", []int{8})
	seqEv(l, 10, "step/end", obj{"turn": 1, "step": 1})
	l.batch()
	seqEv(l, 11, "step/start", obj{"turn": 1, "step": 2})
	seqEv(l, 12, "assistant/message", obj{"turn": 1, "step": 2, "message": obj{"role": "assistant", "id": "a2",
		"content": []any{text("done")}, "source": obj{"kind": "model", "provider": "deepseek-official", "model": "deepseek-v4-flash"}},
		"usage":  obj{"inputTokens": 30, "outputTokens": 4, "cacheReadTokens": 150, "cacheWriteTokens": 7, "reasoningTokens": 2},
		"stream": []any{}}, "surfaceOp", "append")
	seqEv(l, 13, "step/end", obj{"turn": 1, "step": 2})
	seqEv(l, 14, "turn/end", obj{"turn": 1, "reason": obj{"kind": "completed"}})
	l.batch()
	seqEv(l, 15, "turn/start", obj{"turn": 2})
	seqEv(l, 16, "compaction/prune", obj{"shadowedRange": obj{"start": 9, "end": 9}, "shadowedSeqs": []int{9}, "shadowedTokenCount": 300})
	seqEv(l, 17, "tool/result", resultV0(1, 1, "m1", "c1", text("xx\n\n[... tool result middle pruned ...]\n\nyy")),
		"surfaceOp", obj{"op": "replace", "start": 9, "end": 9}, "sourceEventSeqs", []int{9})
	seqEv(l, 18, "compaction/start", obj{"compactionId": "k1", "turn": 2})
	seqEv(l, 19, "compaction/summary", obj{"compactionId": "k1", "summary": []any{text("summary")},
		"shadowedRange": obj{"start": 2, "end": 12}, "shadowedSeqs": []int{2, 7, 17, 12}, "shadowedTokenCount": 500,
		"provider": "deepseek-official", "model": "deepseek-v4-flash", "usage": obj{"inputTokens": 400, "outputTokens": 30}})
	seqEv(l, 20, "user/message", obj{"role": "user", "id": "u2", "content": []any{text("checkpoint")},
		"source": obj{"kind": "plugin", "plugin": "compact", "compactionId": "k1"}},
		"surfaceOp", obj{"op": "replace", "start": 2, "end": 12}, "sourceEventSeqs", []any{[]int{18, 19}, 2, 7, 17, 12})
	seqEv(l, 21, "compaction/end", obj{"compactionId": "k1", "turn": 2})
	seqEv(l, 22, "session/title", obj{"title": "Listing files", "messageSeqs": []int{2}, "source": obj{"kind": "llm"}})
	seqEv(l, 23, "future/thing", obj{})
	seqEv(l, 24, "future/thing", obj{})
	seqEv(l, 25, "future/quiet", obj{}, "ignorable", true)
	seqEv(l, 26, "turn/end", obj{"turn": 2, "reason": obj{"kind": "completed"}})
	return l
}

func TestV2Session(t *testing.T) {
	l := v2Session(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"raw", l.rawBytes()},
		{"zstd", l.zstdBytes()},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := readAll(t, writeFile(t, dir, c.name+"/session.v2.jsonl", c.data))
			if got, want := codes(log.Diagnostics), []string{CodeUnknownEvent}; !reflect.DeepEqual(got, want) {
				t.Fatalf("diagnostics %v, want %v: %v", got, want, log.Diagnostics)
			}
			if d := log.Diagnostics[0]; d.Params["type"] != "future/thing" || d.Params["count"] != "2" || d.Line != 25 {
				t.Errorf("unknown-event diagnostic %+v", d)
			}
			if log.Stats.Ignored["future/quiet"] != 1 {
				t.Errorf("ignored %v", log.Stats.Ignored)
			}
			s := log.Session
			if s.ID != sidV2 || s.Version != 2 || s.Cwd != "/work/proj" || s.Title != "Listing files" ||
				s.Model != "deepseek-v4-flash" || s.ContextWindow != 131072 {
				t.Errorf("session %+v", s)
			}
			if len(log.Results) != 1 {
				t.Fatalf("results %d, want 1", len(log.Results))
			}
			r := log.Results[0]
			if r.CallID != "c1" || r.Tool != "bash" || r.Arguments != `{"command":"ls"}` || r.Seq != 9 || r.CallSeq != 8 || r.At != 1009 {
				t.Errorf("result %+v", r)
			}
			if r.Notice == nil || r.Notice.OmittedBytes != 100 || r.Notice.Policy != PolicyBytes || r.Notice.Spill.Owner != SpillOwnSession ||
				!r.Notice.Spill.DshLayout || !r.Notice.Spill.ToolMatches || !r.Notice.Spill.DefaultRoot {
				t.Errorf("notice %+v", r.Notice)
			}
			if !strings.HasSuffix(r.Blocks[0].Text, "within it.)") || !strings.Contains(r.LastSeen[0].Text, "pruned") {
				t.Errorf("original %q / last seen %q", r.Blocks[0].Text, r.LastSeen[0].Text)
			}
			if rb := r.ReplacedBy; rb == nil || rb.Kind != ReplacedByCompaction || rb.Seq != 20 || rb.EventSeq != 19 || rb.CompactionID != "k1" {
				t.Errorf("replaced by %+v", rb)
			}
			wantUsage := []Usage{
				{Turn: 1, Step: 1, Kind: UsageAttempt, Failed: true, Tokens: TokenUsage{InputTokens: 5}, At: 1004, Seq: 5, Line: 7},
				{Turn: 1, Step: 1, Kind: UsageMessage, Tokens: TokenUsage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 50}, At: 1009, Seq: 7, Line: 9},
				{Turn: 1, Step: 2, Kind: UsageMessage, Tokens: TokenUsage{InputTokens: 30, OutputTokens: 4, CacheReadTokens: 150, CacheWriteTokens: 7, ReasoningTokens: 2}, At: 1012, Seq: 12, Line: 14},
				{Turn: 2, Kind: UsageCompaction, Tokens: TokenUsage{InputTokens: 400, OutputTokens: 30}, At: 1019, Seq: 19, Line: 21, CompactionID: "k1"},
			}
			for i := range wantUsage {
				wantUsage[i].Provider, wantUsage[i].Model, wantUsage[i].ContextWindow = "deepseek-official", "deepseek-v4-flash", 131072
			}
			if !reflect.DeepEqual(log.Usage, wantUsage) {
				t.Errorf("usage\n got %+v\nwant %+v", log.Usage, wantUsage)
			}
			if p := log.Usage[2].Tokens.Prompt(); p != 187 {
				t.Errorf("prompt %d, want 187", p)
			}
			if len(log.Compactions) != 2 || log.Compactions[0].Kind != CompactionPrune || log.Compactions[1].Kind != CompactionSummary ||
				log.Compactions[1].StartSeq != 18 || log.Compactions[1].ShadowedTokens != 500 {
				t.Errorf("compactions %+v", log.Compactions)
			}
		})
	}
}

// TestReplacementsStream checks what a streaming reader is told: the prune
// (with the pruned content and where it is) and then the compaction.
func TestReplacementsStream(t *testing.T) {
	path := writeFile(t, t.TempDir(), "s/session.v2.jsonl.zstd", v2Session(t).zstdBytes())
	var reps []*Replacement
	if _, err := Read(path, nil, Options{Home: "/h"}, Handler{Replace: func(r *Replacement) error { reps = append(reps, r); return nil }}); err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 {
		t.Fatalf("replacements %d, want 2", len(reps))
	}
	if p := reps[0]; p.Kind != ReplacedByPrune || p.EventSeq != 16 || p.Seq != 17 || p.Locator == nil || len(p.Blocks) != 1 {
		t.Errorf("prune %+v", p)
	}
	back, err := ReadResultAt(path, *reps[0].Locator, Options{Home: "/h"})
	if err != nil {
		t.Fatal(err)
	}
	if back.CallID != "c1" || back.Blocks[0].Text != reps[0].Blocks[0].Text {
		t.Errorf("read back %+v", back)
	}
	if c := reps[1]; c.Kind != ReplacedByCompaction || c.Blocks != nil {
		t.Errorf("compaction %+v", c)
	}
}

const (
	sidV3 = "session-3a1f"
	sidV4 = "5b2f7c1e-0000-4000-8000-000000000004"
	sidC4 = "5b2f7c1e-0000-4000-8000-0000000000c4"
)

// v3Session has v3's replace op {op,startSeq,endSeq}, a system/message on
// the surface, a tool result with an image and a ptc dispatch copy.
func v3Session(t testing.TB) *logBuilder {
	l := newLog(t, obj{"type": "session", "version": 3, "id": sidV3, "createdAt": 2000, "isSeeded": false, "delegationDepth": 0})
	seqEv(l, 0, "turn/start", obj{"turn": 1})
	seqEv(l, 1, "step/start", obj{"turn": 1, "step": 1})
	seqEv(l, 2, "system/message", obj{"turn": 1, "step": 1, "message": obj{"id": "s1", "role": "system",
		"source": obj{"kind": "plugin", "plugin": "@deepseek-ai/dsh-system-prompt"}, "content": []any{text("sys")}}}, "surfaceOp", "append")
	seqEv(l, 3, "user/message", obj{"role": "user", "id": "u1", "content": []any{text("look")}, "source": obj{"kind": "user"}}, "surfaceOp", "append")
	seqEv(l, 4, "request/header", obj{"header": obj{"config": obj{"provider": "deepseek-official", "model": "deepseek-v4"}}, "reason": "initial"})
	seqEv(l, 5, "assistant/message", obj{"turn": 1, "step": 1, "message": obj{"role": "assistant", "id": "a1",
		"content": []any{obj{"type": "tool-call", "id": "c1", "name": "read_image", "arguments": `{"file_path":"a.png"}`}},
		"source":  obj{"kind": "model"}}, "usage": obj{"inputTokens": 10, "outputTokens": 3}, "stream": []any{}}, "surfaceOp", "append")
	seqEv(l, 6, "tool/call", obj{"turn": 1, "step": 1, "callId": "c1", "name": "read_image", "arguments": `{"file_path":"a.png"}`})
	seqEv(l, 7, "tool/result", resultV0(1, 1, "m1", "c1", text("<path>/w/a.png</path>\n<type>image</type>"), image(hexA, 640, 480)),
		"surfaceOp", "append", "sourceEventSeqs", []int{6})
	seqEv(l, 8, "tool/ptc-dispatch", obj{"rootCallId": "c2", "parentCallId": "c2", "subCallId": "c2:ptc:1", "name": "read_image",
		"arguments": obj{"file_path": "b.png"}, "isError": false, "content": []any{image(hexB, 10, 20)}})
	// The system prompt changes: v3 replaces the system head in place.
	seqEv(l, 9, "system/message", obj{"turn": 1, "step": 1, "message": obj{"id": "s2", "role": "system",
		"source": obj{"kind": "plugin", "plugin": "@deepseek-ai/dsh-system-prompt"}, "content": []any{text("sys 2")}}},
		"surfaceOp", obj{"op": "replace", "startSeq": 2, "endSeq": 2}, "sourceEventSeqs", []int{2})
	// A rewrite that shadows the result without being a compaction.
	seqEv(l, 10, "user/message", obj{"role": "user", "id": "u3", "content": []any{text("rewritten")}, "source": obj{"kind": "plugin", "plugin": "rewind"}},
		"surfaceOp", obj{"op": "replace", "startSeq": 3, "endSeq": 7}, "sourceEventSeqs", []int{3, 5, 7})
	return l
}

func TestV3Session(t *testing.T) {
	log := readAll(t, writeFile(t, t.TempDir(), "p/session.v3.jsonl.zstd", v3Session(t).zstdBytes()))
	if len(log.Diagnostics) != 0 {
		t.Fatalf("diagnostics %v", log.Diagnostics)
	}
	if log.Session.HasCwd {
		t.Errorf("a header without cwd has cwd %q", log.Session.Cwd)
	}
	if len(log.Results) != 2 {
		t.Fatalf("results %d, want 2", len(log.Results))
	}
	r, d := log.Results[0], log.Results[1]
	want := Image{Block: 1, AttachmentID: "sha256:" + hexA, MediaType: "image/png", Bytes: 1234, Width: 640, Height: 480,
		Name: "shot.png", Path: "/home/u/.dsh/attachments/v1/objects/b1/" + hexA}
	if len(r.Images) != 1 || r.Images[0] != want {
		t.Errorf("images %+v, want %+v", r.Images, want)
	}
	if b := r.Blocks[1]; b.Type != retention.TypeImage || b.Path != want.Path || b.MimeType != "image/png" || b.Data != "" {
		t.Errorf("image block %+v", b)
	}
	if rb := r.ReplacedBy; rb == nil || rb.Kind != ReplacedByRewrite || rb.Seq != 10 {
		t.Errorf("replaced by %+v", rb)
	}
	if !d.Dispatch || d.CallID != "c2:ptc:1" || d.Tool != "read_image" || d.Arguments != `{"file_path":"b.png"}` || len(d.Images) != 1 || d.RootCall != "c2" {
		t.Errorf("dispatch %+v", d)
	}
	if len(log.Usage) != 1 || log.Usage[0].Model != "deepseek-v4" {
		t.Errorf("usage %+v", log.Usage)
	}
}

// v4Parent and v4Child: v4's role-tool results, a developer/message, a
// subagent/catalog entry and the child's header and descriptor.
func v4Parent(t testing.TB) *logBuilder {
	l := newLog(t, obj{"type": "session", "version": 4, "id": sidV4, "createdAt": 3000, "cwd": "/w", "isSeeded": false, "delegationDepth": 0})
	seqEv(l, 0, "turn/start", obj{"turn": 1})
	seqEv(l, 1, "step/start", obj{"turn": 1, "step": 1})
	seqEv(l, 2, "developer/message", obj{"turn": 1, "step": 1, "message": obj{"id": "d1", "role": "developer", "content": []any{}}}, "surfaceOp", "append")
	seqEv(l, 3, "tool/call", obj{"turn": 1, "step": 1, "callId": "c1", "name": "spawn_agent", "arguments": `{}`})
	seqEv(l, 4, "subagent/catalog", obj{"version": 0, "childId": sidC4, "childCreatedAt": 3100, "mode": "one-shot", "label": "probe"})
	seqEv(l, 5, "tool/result", resultV4(1, 1, "m1", "c1", text("started subagent "+sidC4)), "surfaceOp", "append", "sourceEventSeqs", []int{3})
	seqEv(l, 6, "model/selection", obj{"provider": "deepseek-official", "model": "deepseek-v4.1"})
	return l
}

func v4Child(t testing.TB) *logBuilder {
	l := newLog(t, obj{"type": "session", "version": 4, "id": sidC4, "createdAt": 3100, "cwd": "/w", "parentSession": sidV4,
		"isSeeded": false, "origin": "subagent", "delegationDepth": 1})
	seqEv(l, 0, "approval/policy", obj{"policy": "never"})
	seqEv(l, 1, "subagent/descriptor", obj{"version": 2, "mode": "one-shot", "provider": "spawn", "label": "probe", "agentModel": "deepseek-v4-flash"})
	return l
}

func TestV4Sessions(t *testing.T) {
	dir := t.TempDir()
	parent := readAll(t, writeFile(t, dir, "a/session.v4.jsonl", v4Parent(t).rawBytes()))
	child := readAll(t, writeFile(t, dir, "b/session.v4.jsonl.zstd", v4Child(t).zstdBytes()))
	if len(parent.Diagnostics)+len(child.Diagnostics) != 0 {
		t.Fatalf("diagnostics %v %v", parent.Diagnostics, child.Diagnostics)
	}
	if len(parent.Results) != 1 || parent.Results[0].Tool != "spawn_agent" || parent.Results[0].Blocks[0].Text != "started subagent "+sidC4 {
		t.Errorf("results %+v", parent.Results)
	}
	wantCatalog := SubagentLink{Parent: sidV4, Child: sidC4, Source: LinkCatalog, Origin: "subagent", Depth: 1, HasDepth: true,
		Mode: "one-shot", Label: "probe", ChildCreatedAt: 3100, Seq: 4, Line: 6}
	if len(parent.Subagents) != 1 || parent.Subagents[0] != wantCatalog {
		t.Errorf("parent links %+v, want %+v", parent.Subagents, wantCatalog)
	}
	wantHeader := SubagentLink{Parent: sidV4, Child: sidC4, Source: LinkHeader, Origin: "subagent", Depth: 1, HasDepth: true,
		Mode: "one-shot", Label: "probe", Seq: -1, Line: 1}
	if len(child.Subagents) != 1 || child.Subagents[0] != wantHeader {
		t.Errorf("child links %+v, want %+v", child.Subagents, wantHeader)
	}
	if d := child.Session.Descriptor; d == nil || d.AgentModel != "deepseek-v4-flash" {
		t.Errorf("descriptor %+v", d)
	}
}

// TestTokenEraNotice needs the token-era recogniser (the " Omitted M
// images." clause), which the retention rewrite brings.
func TestTokenEraNotice(t *testing.T) {
	sid := sidV4
	path := "/tmp/dsh-spill-q1w2e3/" + SpillFolder(sid) + "/a1b2c3d4e5f6-read_image.txt"
	notice := "(Omitted 321 bytes. Omitted 2 images. Full formatted result stored at: " + path +
		". Use read with offset/limit, or grep this path to search within it.)"
	l := newLog(t, obj{"type": "session", "version": 4, "id": sid, "createdAt": 1, "isSeeded": false, "delegationDepth": 0})
	l.ev("tool/call", obj{"turn": 1, "step": 1, "callId": "c1", "name": "read_image", "arguments": "{}"})
	l.ev("tool/result", resultV4(1, 1, "m1", "c1", text("head"), image(hexA, 8, 8), text("\n\n[...]\n\ntail\n\n"+notice)), "surfaceOp", "append")
	log := readAll(t, writeFile(t, t.TempDir(), "s/session.v4.jsonl", l.rawBytes()))
	n := log.Results[0].Notice
	if n == nil {
		t.Fatal("token-era notice not recognised")
	}
	if n.OmittedBytes != 321 || n.OmittedImages != 2 || n.Policy != PolicyTokens || n.Path != path || n.Spill.Owner != SpillOwnSession || !n.Spill.ToolMatches {
		t.Errorf("notice %+v", n)
	}
}

// TestPackedRowsAndV0Usage: v0 packed rows stand for seq0+k, and usage is
// grouped into attempts: a failed attempt keeps its own record, a message
// replaces its attempt's chunk sample, a message without usage keeps it.
func TestPackedRowsAndV0Usage(t *testing.T) {
	l := newLog(t, obj{"type": "session", "version": 0, "id": "v0", "createdAt": 1, "cwd": "/w", "delegationDepth": 0})
	chunk := func(turn, step int, c obj) { l.ev("assistant/chunk", obj{"turn": turn, "step": step, "chunk": c}) }
	l.ev("turn/start", obj{"turn": 1})                                                                                                             // 0
	l.ev("step/start", obj{"turn": 1, "step": 1})                                                                                                  // 1
	chunk(1, 1, obj{"type": "usage", "usage": obj{"inputTokens": 1, "outputTokens": 0}})                                                           // 2
	chunk(1, 1, obj{"type": "finish", "reason": obj{"kind": "error"}})                                                                             // 3
	l.ev("llm/retry", obj{"turn": 1, "step": 1})                                                                                                   // 4
	l.ev("text-chunks", obj{"turn": 1, "step": 1, "index": 0, "dt": []int{1, 1, 1}, "texts": []string{"a", "b", "c", "d"}})                        // 5-8
	l.ev("tool-call-chunks", obj{"turn": 1, "step": 1, "index": 1, "id": "c9", "name": "bash", "dt": []int{1, 1}, "args": []string{"{", "}", ""}}) // 9-11
	chunk(1, 1, obj{"type": "usage", "usage": obj{"inputTokens": 2, "outputTokens": 9}})                                                           // 12
	chunk(1, 1, obj{"type": "finish", "reason": obj{"kind": "tool-calls"}})                                                                        // 13
	l.ev("assistant/message", obj{"turn": 1, "step": 1, "message": obj{"role": "assistant", "id": "a", "content": []any{}},
		"usage": obj{"inputTokens": 3, "outputTokens": 9}}, "surfaceOp", "append", "sourceEventSeqs", []any{[]int{5, 13}}) // 14
	l.ev("tool/call", obj{"turn": 1, "step": 1, "callId": "c9", "name": "bash", "arguments": "{}"})                                                 // 15
	l.ev("tool/result", resultV0(1, 1, "m", "c9", text("ok")), "surfaceOp", "append", "sourceEventSeqs", []int{15})                                 // 16
	l.ev("step/end", obj{"turn": 1, "step": 1})                                                                                                     // 17
	l.ev("step/start", obj{"turn": 1, "step": 2})                                                                                                   // 18
	chunk(1, 2, obj{"type": "usage", "usage": obj{"inputTokens": 4, "outputTokens": 1}})                                                            // 19
	l.ev("assistant/message", obj{"turn": 1, "step": 2, "message": obj{"role": "assistant", "id": "b", "content": []any{}}}, "surfaceOp", "append") // 20
	l.ev("step/end", obj{"turn": 1, "step": 2})                                                                                                     // 21
	l.ev("step/start", obj{"turn": 1, "step": 3})                                                                                                   // 22
	chunk(1, 3, obj{"type": "usage", "usage": obj{"inputTokens": 5, "outputTokens": 1}})                                                            // 23
	log := readAll(t, writeFile(t, t.TempDir(), "s/session.jsonl", l.rawBytes()))
	if len(log.Diagnostics) != 0 {
		t.Fatalf("diagnostics %v", log.Diagnostics)
	}
	r := log.Results[0]
	if r.Seq != 16 || r.CallSeq != 15 || !reflect.DeepEqual(r.Sources, []int64{15}) {
		t.Errorf("result seq %d call seq %d sources %v", r.Seq, r.CallSeq, r.Sources)
	}
	type u struct {
		kind   string
		failed bool
		in     int64
		seq    int64
	}
	var got []u
	for _, x := range log.Usage {
		got = append(got, u{x.Kind, x.Failed, x.Tokens.InputTokens, x.Seq})
	}
	want := []u{{UsageAttempt, true, 1, 2}, {UsageMessage, false, 3, 14}, {UsageChunk, false, 4, 19}, {UsageChunk, false, 5, 23}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("usage %+v, want %+v", got, want)
	}
	if log.Cursor.st.NextSeq != 24 {
		t.Errorf("next seq %d, want 24", log.Cursor.st.NextSeq)
	}
}

func TestBadLines(t *testing.T) {
	l := newLog(t, obj{"type": "session", "version": 3, "id": "bad", "createdAt": 1, "isSeeded": false, "delegationDepth": 0})
	seqEv(l, 0, "turn/start", obj{"turn": 1})
	l.raw(`{"type":"tool/call",`)                                                                                     // line 3: not JSON
	l.raw(`{"type":"session","version":3,"id":"again","createdAt":1}`)                                                // line 4: second header, seq 1
	seqEv(l, 5, "tool/result", obj{"turn": 1, "step": 1, "message": "nope"})                                          // line 5: seq gap, bad shape
	seqEv(l, 6, "tool/result", resultV0(1, 1, "m", "", text("x")), "surfaceOp", "append")                             // line 6: no call id
	seqEv(l, 7, "user/message", obj{"role": "user"}, "surfaceOp", obj{"op": "replace", "startSeq": 99, "endSeq": 99}) // line 7
	seqEv(l, 8, "tool/result", resultV0(1, 1, "m", "c", text("1")), "surfaceOp", "append")
	seqEv(l, 9, "tool/result", resultV0(1, 1, "m", "c", text("2")), "surfaceOp", "append")
	seqEv(l, 10, "tool/result", resultV0(1, 1, "m", "i", image("../../../etc/passwd", 1, 1)), "surfaceOp", "append")
	log := readAll(t, writeFile(t, t.TempDir(), "s/session.v3.jsonl", l.rawBytes()))
	want := []string{CodeBadJSON, CodeSecondHeader, CodeSeqGap, CodeBadEvent, CodeOrphanResult, CodeBadSurfaceOp, CodeDuplicate, CodeBadAttachment}
	if got := codes(log.Diagnostics); !reflect.DeepEqual(got, want) {
		t.Fatalf("diagnostics %v, want %v", got, want)
	}
	lines := []int64{3, 4, 5, 5, 6, 7, 9, 10}
	for i, d := range log.Diagnostics {
		if d.Line != lines[i] {
			t.Errorf("%s on line %d, want %d", d.Code, d.Line, lines[i])
		}
	}
	if len(log.Results) != 2 || log.Results[0].Blocks[0].Text != "1" {
		t.Errorf("results %+v", log.Results)
	}
	if im := log.Results[1].Images; len(im) != 1 || im[0].Path != "" || log.Results[1].Blocks[0].Path != "" {
		t.Errorf("a malformed attachment id gave a path: %+v", im)
	}
}

func TestNotSession(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"empty":     nil,
		"claude":    []byte(`{"type":"user","sessionId":"x"}` + "\n"),
		"no-id":     []byte(`{"type":"session","version":0}` + "\n"),
		"neg":       []byte(`{"type":"session","version":-1,"id":"x"}` + "\n"),
		"float":     []byte(`{"type":"session","version":1.5,"id":"x"}` + "\n"),
		"torn":      []byte(`{"type":"session","version":0,"id":"x"`),
		"zstd-json": zstdFrames(t, []byte(`{"type":"user"}`+"\n")),
	} {
		p := writeFile(t, dir, name, data)
		ok, err := IsSessionFile(p)
		if ok || err != nil {
			t.Errorf("%s: IsSessionFile = %v, %v", name, ok, err)
		}
		if _, err := ReadAll(p, Options{}); err == nil {
			t.Errorf("%s: ReadAll read it", name)
		}
	}
	for name, data := range map[string][]byte{
		"raw":  []byte(`{"type":"session","version":0,"id":"x","createdAt":0}` + "\n"),
		"zstd": zstdFrames(t, []byte(`{"type":"session","version":4,"id":"x","createdAt":0,"isSeeded":false,"delegationDepth":0}`+"\n")),
	} {
		if ok, err := IsSessionFile(writeFile(t, dir, name, data)); !ok || err != nil {
			t.Errorf("%s: IsSessionFile = %v, %v", name, ok, err)
		}
	}
}

// TestNoticePolicy: which era a byte-era-spelled notice's content shows.
func TestNoticePolicy(t *testing.T) {
	path := "/tmp/dsh-spill-x/" + SpillFolder("s") + "/0123456789ab-bash.txt"
	n := byteNotice(7, path)
	for _, c := range []struct {
		name   string
		blocks []retention.Block
		want   string
	}{
		{"head and tail joined", []retention.Block{{Type: "text", Text: "headtail\n\n" + n}}, PolicyBytes},
		{"notice alone", []retention.Block{{Type: "text", Text: n}}, ""},
		{"gap marker", []retention.Block{{Type: "text", Text: "head\n\n[...]\n\ntail\n\n" + n}}, PolicyTokens},
		{"an image before", []retention.Block{{Type: "image", Path: "/a"}, {Type: "text", Text: "tail\n\n" + n}}, PolicyTokens},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := findNotice(c.blocks, "s", "bash")
			if got == nil || got.Policy != c.want || got.OmittedBytes != 7 || got.Spill.Owner != SpillOwnSession {
				t.Errorf("notice %+v, want policy %q", got, c.want)
			}
		})
	}
	if got := findNotice([]retention.Block{{Type: "text", Text: n + " and more"}}, "s", "bash"); got != nil {
		t.Errorf("a notice that is not at the end was found: %+v", got)
	}
}

// TestSeededSessions: a fork starts with a copy of its parent's events;
// their results and usage are marked inherited.
func TestSeededSessions(t *testing.T) {
	for _, c := range []struct {
		name   string
		header obj
		marker obj
	}{
		{"v0 seedLength", obj{"type": "session", "version": 0, "id": "f0", "createdAt": 1, "parentSession": "p", "seedLength": 3, "delegationDepth": 0}, obj{}},
		{"v2 marker", obj{"type": "session", "version": 2, "id": "f2", "createdAt": 1, "parentSession": "p", "isSeeded": true, "delegationDepth": 0}, obj{"inherited": true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLog(t, c.header)
			l.ev("tool/call", obj{"turn": 1, "step": 1, "callId": "c0", "name": "bash", "arguments": "{}"})
			l.ev("tool/result", resultV0(1, 1, "m0", "c0", text("parent's")), "surfaceOp", "append")
			l.ev("assistant/message", obj{"turn": 1, "step": 1, "message": obj{"role": "assistant", "id": "a0", "content": []any{}},
				"usage": obj{"inputTokens": 1, "outputTokens": 1}}, "surfaceOp", "append")
			l.ev("session/end-seed", c.marker)
			l.ev("tool/call", obj{"turn": 2, "step": 1, "callId": "c1", "name": "bash", "arguments": "{}"})
			l.ev("tool/result", resultV0(2, 1, "m1", "c1", text("own")), "surfaceOp", "append")
			l.ev("assistant/message", obj{"turn": 2, "step": 1, "message": obj{"role": "assistant", "id": "a1", "content": []any{}},
				"usage": obj{"inputTokens": 2, "outputTokens": 1}}, "surfaceOp", "append")
			log := readAll(t, writeFile(t, t.TempDir(), "s", l.rawBytes()))
			if len(log.Results) != 2 || !log.Results[0].Inherited || log.Results[1].Inherited {
				t.Errorf("results inherited: %v %v", log.Results[0].Inherited, log.Results[1].Inherited)
			}
			if len(log.Usage) != 2 || !log.Usage[0].Inherited || log.Usage[1].Inherited {
				t.Errorf("usage %+v", log.Usage)
			}
		})
	}
}

func TestExpandSeqs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int64
	}{
		{`[63]`, []int64{63}},
		{`[[3,5],9]`, []int64{3, 4, 5, 9}},
		{`[[5,3],2]`, []int64{2}},
		{`[[1,2,3],"x"]`, nil},
		{`7`, nil},
	} {
		if got := expandSeqs([]byte(c.in)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("expandSeqs(%s) = %v, want %v", c.in, got, c.want)
		}
	}
	if got := expandSeqs([]byte(`[[0,99999999999]]`)); len(got) != maxSources {
		t.Errorf("a hostile range expanded to %d seqs, want the cap %d", len(got), maxSources)
	}
}
