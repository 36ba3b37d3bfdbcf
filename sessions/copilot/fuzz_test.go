package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"spillscope/sessions/internal/readkit"
)

func FuzzRead(f *testing.F) {
	f.Add([]byte(start + "\n" +
		`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"ls"}}}` + "\n" +
		`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"Output too large to read at once (1 KB). Saved to: /tmp/1-copilot-tool-output-a.txt\n","binaryResultsForLlm":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}}` + "\n"))
	f.Add([]byte(`{"type":"session.shutdown","data":{"modelMetrics":{"m":{"usage":{"inputTokens":1}}}}}` + "\n" + `{"type":"x"}` + "\n\r\n{"))
	f.Add([]byte(`{"type":"assistant.message","data":{"toolRequests":[{"toolCallId":"c","name":"n"}],"outputTokens":-1}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var results []Result
		cur, err := Read(context.Background(), bytes.NewReader(data), Cursor{}, Handler{
			Result: func(r Result) error { results = append(results, r); return nil },
		})
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if cur.Offset < 0 || cur.Offset > int64(len(data)) {
			t.Fatalf("cursor offset %d outside %d bytes", cur.Offset, len(data))
		}
		for _, r := range results {
			l := r.Locator
			if l.Offset < 0 || l.Offset+l.Length > int64(len(data)) {
				t.Fatalf("locator %+v outside %d bytes", l, len(data))
			}
			var e envelope
			if err := json.Unmarshal(bytes.TrimSpace(data[l.Offset:l.Offset+l.Length]), &e); err != nil {
				t.Fatalf("locator %+v does not address the line: %v", l, err)
			}
			back, err := decodeComplete(e, readkit.Line{Offset: l.Offset, Length: l.Length, Number: l.Line})
			if err != nil || back.CallID != r.CallID {
				t.Fatalf("locator %+v reads back %q (%v), want %q", l, back.CallID, err, r.CallID)
			}
		}
	})
}
