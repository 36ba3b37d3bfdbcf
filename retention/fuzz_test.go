package retention

import (
	"strings"
	"testing"
)

// FuzzRetain feeds arbitrary tool-result JSON and budgets to the decision:
// no panic, and every replacement keeps the invariants.
func FuzzRetain(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hello world"}]}`), uint16(3))
	f.Add([]byte(`[{"type":"text","text":"日本語\u0301🙂 12345 \n\n  x"},{"type":"text","text":""}]`), uint16(40))
	f.Add([]byte(`[{"type":"text","text":"`+string(make([]byte, 0))+`a\ud800b"},{"type":"image","data":"iVBORw0KGgo="}]`), uint16(60))
	f.Add([]byte(`{"content":[{"type":"audio","data":"AAAA"}],"isError":true}`), uint16(0))
	f.Add([]byte(`[{"type":"text","text":"`+repeatFuzz("word ", 400)+`"}]`), uint16(70))
	if _, err := getModel(""); err != nil { // load the vocabulary once, before the workers' clocks start
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, b uint16) {
		res, err := ParseResult(data)
		if err != nil {
			return
		}
		bud := int64(b)
		opts := Options{Budget: &bud, SpillPath: testSpill}
		o, err := Retain(res, opts)
		if err != nil {
			t.Fatalf("Retain: %v", err)
		}
		switch o.Status {
		case StatusReplaced, StatusNoticeOnly:
			checkReplacement(t, res, opts, o)
		case StatusWithinBudget, StatusPreserved, StatusUnsupported:
		default:
			t.Fatalf("unexpected status %q", o.Status)
		}
	})
}

func repeatFuzz(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for i := 0; i < n; i++ {
		out = append(out, s...)
	}
	return string(out)
}

// FuzzRecogniseNotice: recognition never panics, and a notice this package
// formats is always recognised with its numbers, after any preview.
func FuzzRecogniseNotice(f *testing.F) {
	f.Add("preview\n", int64(12), 0, "/tmp/x.txt")
	f.Add("", int64(0), 3, "/a b/c. d.txt")
	f.Add("(Omitted 5 bytes. Full formatted result stored at: X. ", int64(99999999), 1, "p")
	f.Fuzz(func(t *testing.T, preview string, n int64, imgs int, path string) {
		RecogniseNotice(preview)
		// A path that itself holds a notice is ambiguous by construction.
		if n < 0 || imgs < 0 || path == "" || len(path) > 4096 || containsNewline(path) || strings.Contains(path, "(Omitted ") {
			return
		}
		notice := FormatNotice(n, imgs, path)
		m, ok := RecogniseNotice(preview + notice)
		if !ok || m.OmittedBytes != n || m.OmittedImages != imgs || m.Path != path {
			t.Fatalf("notice %q after %q read as %+v, %v", notice, preview, m, ok)
		}
	})
}

func containsNewline(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return true
		}
	}
	return false
}

// FuzzParseResult: the JSON reader never panics and keeps every block.
func FuzzParseResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"x"}]}`))
	f.Add([]byte(`[{"type":"resource_link","uri":"https://x"},{"type":"image","mimeType":5}]`))
	f.Add([]byte(`{"content":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseResult(data)
		if err != nil {
			return
		}
		for i, b := range res.Content {
			if b.Type == "" || b.Raw == nil {
				t.Fatalf("block %d lost its type or raw JSON", i)
			}
		}
	})
}
