package sessions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/sessions/samplegen"
)

// dshBenchLog writes one dsh log of about target decoded bytes under root:
// a tool call and a 1–16 KiB result per turn, one frame per turn when
// zstd. It returns the decoded size.
func dshBenchLog(b *testing.B, root string, zstd bool, target int) int64 {
	b.Helper()
	words := strings.Fields("the of func return if err nil string int package import type struct var for range error data line file path test build go")
	r := rand.New(rand.NewPCG(5, 6))
	var text strings.Builder
	for text.Len() < 1<<20 {
		text.WriteString(words[r.IntN(len(words))])
		text.WriteByte(" \n"[min(r.IntN(10), 1)])
	}
	pool := text.String()
	name := "session.v4.jsonl"
	if zstd {
		name += ".zstd"
	}
	path := filepath.Join(root, "sessions", "--w--", "bench", name)
	l, err := samplegen.NewDshLog(jm{"type": "session", "version": 4, "id": "bench", "createdAt": 1, "cwd": "/w", "delegationDepth": 0}, zstd)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var decoded int64
	for turn := 1; decoded < int64(target); turn++ {
		call := fmt.Sprintf("call_%d", turn)
		l.Event("assistant/message", jm{"turn": turn, "step": 1, "message": jm{"id": "m" + call, "role": "assistant",
			"content": []any{jm{"type": "tool-call", "id": call, "name": "bash", "arguments": "{}"}}},
			"usage": jm{"inputTokens": 100, "outputTokens": 10}}, "surfaceOp", "append")
		cs := l.Event("tool/call", jm{"turn": turn, "step": 1, "callId": call, "name": "bash", "arguments": "{}"})
		n := 1024 + r.IntN(15<<10)
		o := r.IntN(len(pool) - n)
		body := pool[o : o+n]
		l.Event("tool/result", jm{"turn": turn, "step": 1, "message": jm{"id": "r" + call, "role": "tool", "source": jm{"kind": "tool", "callId": call},
			"toolCallId": call, "content": []any{jm{"type": "text", "text": body}}, "isError": false}}, "surfaceOp", "append", "sourceEventSeqs", []int64{cs})
		decoded += int64(n + 600)
		if _, err := f.Write(l.Take()); err != nil {
			b.Fatal(err)
		}
	}
	return decoded
}

// BenchmarkIndexDsh is the structure pass over one dsh log into a fresh
// database, raw JSONL against zstd frames of the same events (bytes/s of
// decoded log, so the two compare).
func BenchmarkIndexDsh(b *testing.B) {
	for _, zstd := range []bool{false, true} {
		b.Run(map[bool]string{false: "raw", true: "zstd"}[zstd], func(b *testing.B) {
			root := b.TempDir()
			size := dshBenchLog(b, root, zstd, 32<<20)
			b.SetBytes(size)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				b.StopTimer()
				d, err := Open(filepath.Join(b.TempDir(), fmt.Sprint(i), "index.db"))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				s, err := d.Index(context.Background(), []string{root}, IndexOptions{})
				if err != nil || s.ToolResults == 0 || s.Diagnostics != 0 {
					b.Fatalf("%+v %v", s, err)
				}
				d.Close()
			}
		})
	}
}

// FuzzDshRead: any bytes after a dsh header read without a panic; every
// result has a call id; a second pass from the cursor reads on.
func FuzzDshRead(f *testing.F) {
	f.Add([]byte(`{"type":"tool/call","seq":0,"data":{"turn":1,"step":1,"callId":"c","name":"bash","arguments":"{}"}}` + "\n" +
		`{"type":"tool/result","seq":1,"data":{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"content":[{"type":"text","text":"x"}]}},"surfaceOp":"append"}` + "\n"))
	f.Add([]byte(`{"type":"text-chunks","seq0":0,"data":{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b","c"]}}` + "\n{"))
	f.Add([]byte(`{"type":"compaction/prune","data":{}}` + "\n" + `{"type":"tool/result","data":{"message":{"content":[]}},"surfaceOp":{"op":"replace","start":0,"end":9}}` + "\n"))
	dir := f.TempDir()
	header := `{"type":"session","version":4,"id":"f","createdAt":1,"delegationDepth":0}` + "\n"
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "sessions", "--w--", "f", "session.v4.jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append([]byte(header), data...), 0o644); err != nil {
			t.Fatal(err)
		}
		src := Source{Path: p, Root: dir, Env: Env{Getenv: func(string) string { return "" }}}
		var pr Parsed
		st, err := (dshHarness{}).Read(context.Background(), src, &pr)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range pr.Results {
			if r.CallID == "" {
				t.Fatalf("a result without a call id: %+v", r)
			}
		}
		src.Cursor = st.Cursor
		var again Parsed
		if _, err := (dshHarness{}).Read(context.Background(), src, &again); err != nil {
			t.Fatal(err)
		}
		if len(again.Results) != 0 {
			t.Fatalf("a pass over an unchanged log found %d results again", len(again.Results))
		}
	})
}
