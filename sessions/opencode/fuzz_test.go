package opencode

import (
	"bytes"
	"context"
	"testing"

	"spillscope/sessions/internal/testkit"
)

func FuzzReadExport(f *testing.F) {
	f.Add([]byte(exportDoc(f, msg(assistantInfo("msg_1", 1), toolPart("c1", "read", "completed", "x", nil), stepFinish(1, 2, 3, 4)))))
	f.Add([]byte(`{"info":{"id":"ses_1"},"messages":[{"parts":[{"type":"tool"}],"info":{"role":"assistant","summary":true}}]}`))
	f.Add([]byte(`{"info":{"id":"s"},"messages":[{"info":{},"parts":[{"type":"tool","state":{"status":"completed","attachments":[{"url":"data:x"}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var results []Result
		err := ReadExport(context.Background(), bytes.NewReader(data), Handler{Result: func(r Result) error { results = append(results, r); return nil }})
		if err != nil {
			t.Fatalf("ReadExport: %v", err)
		}
		for _, r := range results {
			l := r.Locator
			if l.Offset < 0 || l.Offset+l.Length > int64(len(data)) {
				t.Fatalf("locator %+v outside %d bytes", l, len(data))
			}
			back, err := resultFromPart(data[l.Offset:l.Offset+l.Length], partJSON{}, l, "fuzz")
			if err != nil || back.CallID != r.CallID {
				t.Fatalf("locator %+v reads back %q (%v), want %q", l, back.CallID, err, r.CallID)
			}
		}
	})
}

// FuzzPart feeds one part's JSON, as a database row or a storage file holds
// it, to the decoder the three sources share.
func FuzzPart(f *testing.F) {
	f.Add([]byte(testkit.MustJSON(f, toolPart("c1", "bash", "completed", "...output truncated...\n\nFull output saved to: /p\n\nx", nil))))
	f.Add([]byte(testkit.MustJSON(f, stepFinish(1, 2, 3, 4))))
	f.Add([]byte(`{"type":"compaction","auto":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := &emitter{h: Handler{
			Result: func(r Result) error {
				if len(r.Blocks) == 0 {
					t.Fatal("a result without blocks")
				}
				return nil
			},
			Usage:      func(Usage) error { return nil },
			Compaction: func(Compaction) error { return nil },
			Diagnostic: func(Diagnostic) error { return nil },
		}}
		if _, err := e.part(data, nil, partJSON{ID: "p", MessageID: "m", SessionID: "s"}, where{desc: "fuzz"}); err != nil {
			t.Fatal(err)
		}
		if err := e.finish(); err != nil {
			t.Fatal(err)
		}
	})
}
