package goose

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzMessage feeds one stored message (a JSONL line, or a row's content
// and metadata put together) to the converter both sources share.
func FuzzMessage(f *testing.F) {
	f.Add([]byte(`{"id":"m","role":"user","created":1,"content":[{"type":"toolResponse","id":"c","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"The response returned from the tool call was larger (9 characters) and is stored in the file: /p\n"}],"isError":true}}}],"metadata":{"agentVisible":false}}`))
	f.Add([]byte(`{"role":"assistant","created":1,"content":[{"type":"toolRequest","id":"c","toolCall":{"status":"error","error":"x"}},{"type":"toolResponse","id":"c","toolResult":{"status":"success","value":[{"type":"image","data":"AA=="}]}}]}`))
	f.Add([]byte(`{"role":"user","content":[{"type":"x"},{},null,7]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m messageJSON
		if json.Unmarshal(data, &m) != nil {
			return
		}
		conv := &converter{requests: map[string]request{}, h: Handler{
			Result: func(r Result) error {
				if r.CallID == "" {
					t.Fatal("a result without a call id")
				}
				return nil
			},
			Diagnostic: func(Diagnostic) error { return nil },
		}}
		if err := conv.message("s", &m, Locator{Source: SourceDB}, 1, 1); err != nil {
			t.Fatal(err)
		}
		for i := range m.Content {
			pickResult("s", &m, Locator{Source: SourceDB}, 1, 1, i)
		}
	})
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"working_dir":"/w","description":"d"}` + "\n" + `{"role":"user","created":1,"content":[{"type":"toolResponse","id":"c","toolResult":{"status":"error","error":"e"}}]}` + "\n"))
	f.Add([]byte("\n\n{\"role\":\"x\"}\r\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var results []Result
		cur, err := ReadJSONL(context.Background(), p, JSONLCursor{}, Handler{Result: func(r Result) error { results = append(results, r); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		if cur.Offset < 0 || cur.Offset > int64(len(data)) {
			t.Fatalf("cursor %d outside %d bytes", cur.Offset, len(data))
		}
		for _, r := range results {
			back, err := ReadResult(context.Background(), p, r.Locator)
			if err != nil || back.CallID != r.CallID {
				t.Fatalf("locator %+v reads back %q (%v), want %q", r.Locator, back.CallID, err, r.CallID)
			}
		}
	})
}
