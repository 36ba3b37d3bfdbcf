package retention

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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

// FuzzRecogniseNotice: recognition never panics, HasSpillNotice agrees with
// it, and a notice this package formats is always recognised with its
// numbers and locator, after any preview joined by a blank line.
func FuzzRecogniseNotice(f *testing.F) {
	f.Add("preview", int64(12), 0, "/tmp/x.txt", "")
	f.Add("", int64(0), 3, "/a b/c. d.txt", "Read it.\n\n(more)")
	f.Add("(Omitted 5 bytes. Full formatted result stored at: X. ", int64(99999999), 1, "p", "h")
	f.Add("x\n\n(Omitted 1 bytes. Omitted 02 images. Full formatted result stored at: /a. b)", int64(7), 0, "/s", "")
	f.Fuzz(func(t *testing.T, preview string, n int64, imgs int, path, hint string) {
		m, ok := RecogniseNotice(preview)
		if ok && m.Kind != NoticeLegacy && (!HasSpillNotice(preview, EraTokens) || m.End != len(preview)) {
			t.Fatalf("RecogniseNotice and HasSpillNotice disagree on %q", preview)
		}
		if HasSpillNotice(preview, EraBytes) && !HasSpillNotice(preview, EraTokens) {
			t.Fatalf("the byte era accepts %q and the token era does not", preview)
		}
		// A preview or locator that itself closes a notice is ambiguous by
		// construction; so is a hint holding ". " or the separator.
		if n < 0 || n > MaxBudget || imgs < 0 || path == "" || strings.Contains(path, noticeGuidance) || strings.Contains(preview+path+hint, noticeLocation) ||
			strings.Contains(hint, noticeGuidance) || strings.Contains(path+hint, noticeSep+noticeOpen) || !utf8.ValidString(path+hint) || strings.HasSuffix(preview, "\n") {
			return
		}
		notice := FormatSpillNotice(ExactOmission(n), SpillRef{Locator: path, Hint: hint}, imgs)
		text := notice
		if preview != "" {
			text = preview + noticeSep + notice
		}
		m, ok = RecogniseNotice(text)
		wantHint := hint
		if wantHint == "" {
			wantHint = LocalSpillHint
		}
		if !ok || m.OmittedBytes != n || m.OmittedImages != imgs || m.Path != path || m.Hint != wantHint {
			t.Fatalf("notice %q after %q read as %+v, %v", notice, preview, m, ok)
		}
		if HasSpillNotice(text, EraBytes) != (imgs == 0) {
			t.Fatalf("byte era on %q: want %v", text, imgs == 0)
		}
	})
}

// FuzzParseResult: the JSON reader never panics and keeps every block: a
// block of another type than text and image keeps its raw JSON. The fast
// walk reads what encoding/json reads (the same blocks, the same errors),
// in place as well as by copy.
func FuzzParseResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"x"}]}`))
	f.Add([]byte(`[{"type":"resource_link","uri":"https://x"},{"type":"image","mimeType":5}]`))
	f.Add([]byte(`{"content":null}`))
	f.Add([]byte(`{"isError":true,"content":[{"type":"text","text":"a\nb\u00e9\ud83d\ude00"},{"type":"image","mimeType":"image/png","data":"AAAA"}],"_meta":{"k":[1,2.5e3,null]}}`))
	f.Add([]byte(`{"Content":[],"content":[{"type":"text","TEXT":"x"}]}`))
	f.Add([]byte(`[{"type":"t\u0065xt","text":"x"},{"text":"\ud800","type":"text"}] `))
	f.Fuzz(func(t *testing.T, data []byte) {
		slowRes, slowErr := parseSlow(append([]byte(nil), data...))
		res, err := ParseResult(data)
		inPlace, ipErr := ParseResultInPlace(append([]byte(nil), data...))
		if (err == nil) != (slowErr == nil) || (ipErr == nil) != (slowErr == nil) {
			t.Fatalf("errors differ: %v, in place %v, encoding/json %v", err, ipErr, slowErr)
		}
		if err != nil {
			return
		}
		for i, b := range res.Content {
			if b.Type == "" || b.Raw == nil && b.Type != TypeText && b.Type != TypeImage {
				t.Fatalf("block %d lost its type or raw JSON", i)
			}
			if b.Raw == nil {
				slowRes.Content[i].Raw = nil
			}
		}
		if !reflect.DeepEqual(res, slowRes) || !reflect.DeepEqual(inPlace, res) {
			t.Fatalf("%q:\n fast %+v\n in place %+v\n encoding/json %+v", data, res, inPlace, slowRes)
		}
	})
}
