package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchLog is a session of n tool calls whose outputs are a few KB each,
// like a working session's.
func benchLog(n int) []byte {
	var b bytes.Buffer
	b.WriteString(start + "\n")
	quoted, _ := json.Marshal(strings.Repeat("src/main.rs:10: fn main() { println!(\"hello\"); }\n", 60))
	out := string(quoted[1 : len(quoted)-1])
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"assistant.message","data":{"messageId":"m%d","content":"","toolRequests":[{"toolCallId":"c%d","name":"bash","arguments":{"command":"grep -rn main src"}}],"outputTokens":120},"timestamp":"2026-05-01T10:00:01Z"}`+"\n", i, i)
		fmt.Fprintf(&b, `{"type":"tool.execution_start","data":{"toolCallId":"c%d","toolName":"bash","arguments":{"command":"grep -rn main src"}},"timestamp":"2026-05-01T10:00:01Z"}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"tool.execution_complete","data":{"toolCallId":"c%d","model":"m","success":true,"result":{"content":"%s","detailedContent":"%s"},"toolTelemetry":{"metrics":{"resultLength":3000,"resultForLlmLength":3000}}},"timestamp":"2026-05-01T10:00:02Z"}`+"\n", i, out, out)
	}
	return b.Bytes()
}

func BenchmarkRead(b *testing.B) {
	data := benchLog(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := Read(context.Background(), bytes.NewReader(data), Cursor{}, Handler{Result: func(Result) error { n++; return nil }}); err != nil {
			b.Fatal(err)
		}
		if n != 2000 {
			b.Fatalf("%d results", n)
		}
	}
}
