package retention

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const testSpill = "/spill/session-1/abc-web_fetch.txt"

func tok(t testing.TB, s string) int {
	t.Helper()
	n, err := CountTokens("", s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustAnalyse(t testing.TB, res Result, opts Options) *analysis {
	t.Helper()
	a, err := analyse(res, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustRetain(t testing.TB, res Result, opts Options) Outcome {
	t.Helper()
	o, err := Retain(res, opts)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func hasDiag(o Outcome, sub string) bool {
	for _, d := range o.Diagnostics {
		if strings.Contains(d, sub) {
			return true
		}
	}
	return false
}

// checkReplacement asserts every invariant of a replaced or notice-only
// outcome against its original result.
func checkReplacement(t testing.TB, res Result, opts Options, o Outcome) {
	t.Helper()
	if o.Status != StatusReplaced && o.Status != StatusNoticeOnly {
		return
	}
	B := int(*opts.Budget)
	enc := opts.Encoding
	if enc == "" {
		enc = DefaultEncoding
	}
	if got := estimate(t, o.Content, opts.Route, enc); got != o.Tokens.Total || got > B {
		t.Fatalf("replacement re-priced at %d tokens, outcome says %d, budget %d", got, o.Tokens.Total, B)
	}
	if len(o.Content) != len(o.Spans) {
		t.Fatalf("%d content blocks but %d spans", len(o.Content), len(o.Spans))
	}
	last := o.Content[len(o.Content)-1]
	if last.Text != o.Notice {
		t.Fatalf("last block %q is not the notice %q", last.Text, o.Notice)
	}
	m, ok := RecogniseNotice(o.Notice)
	if !ok || m.OmittedBytes != o.OmittedBytes || m.OmittedImages != o.OmittedImages {
		t.Fatalf("notice %q not recognised with its counts (%+v)", o.Notice, m)
	}
	// Walk the kept spans: head from the start, marker, tail to the end.
	var textLen, keptBytes int64
	images, keptImages := 0, 0
	for _, b := range res.Content {
		if b.Type == TypeImage {
			images++
		} else {
			textLen += int64(len(sanitize(b.Text)))
		}
	}
	next := Position{}
	inTail := false
	for i, sp := range o.Spans[:len(o.Spans)-1] {
		c := o.Content[i]
		if sp.Block < 0 {
			if c.Text != Marker || inTail {
				t.Fatalf("unexpected marker block %d %q", i, c.Text)
			}
			inTail = true
			continue
		}
		orig := res.Content[sp.Block]
		if c.Type == TypeImage {
			keptImages++
			if orig.Type != TypeImage || c.Path != orig.Path {
				t.Fatalf("image span %d does not match block %d", i, sp.Block)
			}
		} else {
			src := sanitize(orig.Text)
			if src[sp.Start:sp.End] != c.Text {
				t.Fatalf("span %d text is not block %d [%d:%d]", i, sp.Block, sp.Start, sp.End)
			}
			if !utf8.ValidString(c.Text) || (sp.Start < int64(len(src)) && !utf8.RuneStart(src[sp.Start])) || (sp.End < int64(len(src)) && !utf8.RuneStart(src[sp.End])) {
				t.Fatalf("span %d cuts inside a code point", i)
			}
			keptBytes += sp.End - sp.Start
		}
		if !inTail {
			// Head: contiguous from the start.
			if sp.Block != next.Block || sp.Start != next.Offset {
				t.Fatalf("head span %d starts at %d:%d, want %d:%d", i, sp.Block, sp.Start, next.Block, next.Offset)
			}
		} else if i > 0 && o.Spans[i-1].Block >= 0 {
			prev := o.Spans[i-1]
			if !(sp.Block == prev.Block+1 && sp.Start == 0) || (c.Type != TypeImage && res.Content[prev.Block].Type == TypeText && prev.End != int64(len(sanitize(res.Content[prev.Block].Text)))) {
				t.Fatalf("tail span %d does not follow span %d contiguously", i, i-1)
			}
		}
		if c.Type == TypeImage || sp.End == int64(len(sanitize(orig.Text))) {
			next = Position{Block: sp.Block + 1}
		} else {
			next = Position{Block: sp.Block, Offset: sp.End}
		}
	}
	if inTail && len(o.Spans) > 2 && o.Spans[len(o.Spans)-2].Block >= 0 {
		// Tail ends at the end of the result.
		sp := o.Spans[len(o.Spans)-2]
		if sp.Block != len(res.Content)-1 && !allEmptyAfter(res, sp.Block) {
			t.Fatalf("tail ends at block %d of %d", sp.Block, len(res.Content))
		}
		if o.Content[len(o.Content)-2].Type == TypeText && sp.End != int64(len(sanitize(res.Content[sp.Block].Text))) {
			t.Fatalf("tail text does not reach the end of block %d", sp.Block)
		}
	}
	if keptBytes+o.OmittedBytes != textLen {
		t.Fatalf("kept %d + omitted %d bytes != original %d", keptBytes, o.OmittedBytes, textLen)
	}
	if keptImages+o.OmittedImages != images {
		t.Fatalf("kept %d + omitted %d images != original %d", keptImages, o.OmittedImages, images)
	}
	if o.CompleteFile == "" && (textLen > 0 || images > 0) {
		t.Fatal("no complete result file")
	}
	for _, b := range res.Content {
		if b.Type == TypeText && !strings.Contains(o.CompleteFile, sanitize(b.Text)) {
			t.Fatal("complete result file lacks a text block")
		}
		if b.Type == TypeImage && (!strings.Contains(o.CompleteFile, b.Path) || (b.Data != "" && strings.Contains(o.CompleteFile, b.Data))) {
			t.Fatal("complete result file lacks an image path or holds base64")
		}
	}
}

func allEmptyAfter(res Result, i int) bool {
	for _, b := range res.Content[i+1:] {
		if b.Type != TypeText || b.Text != "" {
			return false
		}
	}
	return true
}

func TestValidateBudget(t *testing.T) {
	tests := []struct {
		name    string
		in      float64
		want    int64
		wantErr bool
	}{
		{"zero", 0, 0, false},
		{"shipped default", 12500, 12500, false},
		{"largest safe integer", MaxBudget, MaxBudget, false},
		{"two to the 53", 1 << 53, 0, true},
		{"negative", -1, 0, true},
		{"fractional", 12.5, 0, true},
		{"NaN", math.NaN(), 0, true},
		{"infinity", math.Inf(1), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateBudget(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ValidateBudget(%v) = %d, %v", tt.in, got, err)
			}
			if err != nil && (!errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "maxInlineTokens")) {
				t.Fatalf("error %q does not name maxInlineTokens", err)
			}
		})
	}
}

func TestRetainInvalidOptions(t *testing.T) {
	res := Result{Content: []Block{textBlock("hello")}}
	tests := []struct {
		name string
		opts Options
		want error
	}{
		{"budget 2^53", Options{Budget: budget(1 << 53)}, ErrBudget},
		{"negative budget", Options{Budget: budget(-5)}, ErrBudget},
		{"unknown route", Options{Budget: budget(10), Route: "nope"}, ErrOptions},
		{"unknown encoding", Options{Budget: budget(10), Encoding: "p50k_base"}, ErrOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Retain(res, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.want == ErrBudget && !strings.Contains(err.Error(), "maxInlineTokens") {
				t.Fatalf("error %q does not name maxInlineTokens", err)
			}
		})
	}
}

func TestRetainDecision(t *testing.T) {
	dir := t.TempDir()
	img := writePNG(t, dir, 300, 200)
	img2 := writePNG(t, dir, 90, 600)
	big := strings.Repeat("line of tool output with some words and 42 numbers\n", 400)
	small := "a short result"
	bigRes := Result{Content: []Block{textBlock(big)}}
	a := mustAnalyse(t, bigRes, Options{SpillPath: testSpill})
	bigCost := tok(t, big)
	reserve, marker := a.reserve, a.marker
	if want := tok(t, FormatNotice(int64(len(big)), 0, testSpill)); reserve != want {
		t.Fatalf("reserve %d, want the longest notice %d", reserve, want)
	}
	imgA := mustAnalyse(t, Result{Content: []Block{img}}, Options{})
	imgCost := imgA.blocks[0].cost

	type tc struct {
		name   string
		res    Result
		opts   Options
		status string
		diag   string
		check  func(t *testing.T, o Outcome)
	}
	tests := []tc{
		{name: "omitted budget disables retention", res: bigRes, opts: Options{}, status: StatusDisabled,
			check: func(t *testing.T, o Outcome) {
				if o.OriginalTokens != bigCost || !o.OriginalTokensExact {
					t.Errorf("original %d exact=%v, want %d exact", o.OriginalTokens, o.OriginalTokensExact, bigCost)
				}
			}},
		{name: "budget equal to cost is within budget", res: bigRes, opts: Options{Budget: budget(int64(bigCost))}, status: StatusWithinBudget},
		{name: "budget one below cost is cut", res: bigRes, opts: Options{Budget: budget(int64(bigCost - 1)), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.Tokens.Total > bigCost-1 || o.OmittedBytes == 0 {
					t.Errorf("tokens %d omitted %d", o.Tokens.Total, o.OmittedBytes)
				}
			}},
		{name: "budget 0 keeps the original", res: bigRes, opts: Options{Budget: budget(0)}, status: StatusPreserved, diag: "notice exceeds budget"},
		{name: "notice larger than budget", res: bigRes, opts: Options{Budget: budget(int64(reserve - 1)), SpillPath: testSpill}, status: StatusPreserved, diag: "notice exceeds budget"},
		{name: "notice alone fits", res: bigRes, opts: Options{Budget: budget(int64(reserve)), SpillPath: testSpill}, status: StatusNoticeOnly,
			check: func(t *testing.T, o Outcome) {
				if len(o.Content) != 1 || o.OmittedBytes != int64(len(big)) {
					t.Errorf("content %d blocks, omitted %d", len(o.Content), o.OmittedBytes)
				}
			}},
		{name: "notice and marker with no room for text", res: bigRes, opts: Options{Budget: budget(int64(reserve + marker)), SpillPath: testSpill}, status: StatusNoticeOnly},
		{name: "one token of room goes to the tail", res: bigRes, opts: Options{Budget: budget(int64(reserve + marker + 1)), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.Content[0].Text != Marker || o.Tokens.Text != marker+1 {
					t.Errorf("want marker then a one-token tail, got %+v tokens %+v", o.Spans, o.Tokens)
				}
			}},
		{name: "small result within budget", res: Result{Content: []Block{textBlock(small)}}, opts: Options{Budget: budget(12500)}, status: StatusWithinBudget},
		{name: "read tool passes through", res: bigRes, opts: Options{Budget: budget(10), ToolName: "Read"}, status: StatusPassThrough},
		{name: "configured read tool", res: bigRes, opts: Options{Budget: budget(10), ToolName: "cat_file", ReadTools: []string{"cat_file"}}, status: StatusPassThrough},
		{name: "default read tools replaced by configuration", res: bigRes, opts: Options{Budget: budget(400), ToolName: "read", ReadTools: []string{"cat_file"}, SpillPath: testSpill}, status: StatusReplaced},
		{name: "blocked result", res: bigRes, opts: Options{Budget: budget(10), Blocked: true}, status: StatusPassThrough},
		{name: "value replacement", res: bigRes, opts: Options{Budget: budget(10), ValueReplaced: true}, status: StatusPassThrough},
		{name: "unsupported block", res: Result{Content: []Block{textBlock(big), {Type: TypeAudio, Data: "AAAA", MimeType: "audio/wav"}}}, opts: Options{Budget: budget(100)}, status: StatusUnsupported, diag: `"audio"`},
		{name: "unknown block type", res: Result{Content: []Block{{Type: "widget"}}}, opts: Options{Budget: budget(100)}, status: StatusUnsupported},
		{name: "missing image pricing on deepseek", res: Result{Content: []Block{textBlock(big), img}}, opts: Options{Budget: budget(300), Route: "deepseek"}, status: StatusPreserved, diag: "no image pricing"},
		{name: "image without readable path when cutting", res: Result{Content: []Block{textBlock(big), dataPNG(t, 40, 40)}}, opts: Options{Budget: budget(300)}, status: StatusPreserved, diag: "no readable attachment path"},
		{name: "image without readable path within budget", res: Result{Content: []Block{textBlock(small), dataPNG(t, 40, 40)}}, opts: Options{Budget: budget(12500)}, status: StatusWithinBudget},
		{name: "image path that does not exist", res: Result{Content: []Block{textBlock(big), {Type: TypeImage, Path: dir + "/missing.png"}}}, opts: Options{Budget: budget(300)}, status: StatusPreserved, diag: "dimensions unavailable"},
		{name: "invalid base64", res: Result{Content: []Block{textBlock(big), {Type: TypeImage, MimeType: "image/png", Data: "!!!not base64!!!"}}}, opts: Options{Budget: budget(300)}, status: StatusPreserved, diag: "base64"},
		{name: "zero by zero header", res: Result{Content: []Block{textBlock(small), {Type: TypeImage, Data: b64(pngHeader(0, 0))}}}, opts: Options{Budget: budget(12500)}, status: StatusPreserved, diag: "image block 1"},
		{name: "huge header", res: Result{Content: []Block{textBlock(small), {Type: TypeImage, Data: b64(pngHeader(100000, 100000))}}}, opts: Options{Budget: budget(12500)}, status: StatusPreserved, diag: "image block 1"},
		{name: "media type contradicting bytes", res: Result{Content: []Block{textBlock(small), {Type: TypeImage, MimeType: "image/jpeg", Path: img.Path}}}, opts: Options{Budget: budget(12500)}, status: StatusWithinBudget, diag: "contradicts"},
		{name: "image exactly at the head boundary", res: Result{Content: []Block{img, textBlock(big)}}, opts: Options{Budget: budget(int64(reserveFor(t, Result{Content: []Block{img, textBlock(big)}}) + marker + 2*imgCost)), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.Content[0].Type != TypeImage || o.OmittedImages != 0 {
					t.Errorf("image at the exact head budget was not kept: %+v", o.Spans)
				}
			}},
		{name: "image one token over the head boundary", res: Result{Content: []Block{img, textBlock(big)}}, opts: Options{Budget: budget(int64(reserveFor(t, Result{Content: []Block{img, textBlock(big)}}) + marker + 2*imgCost - 1)), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.OmittedImages != 1 || o.Content[0].Text != Marker {
					t.Errorf("image over the head budget was kept: %+v", o.Spans)
				}
				if !strings.Contains(o.Notice, "1 image.") || !strings.Contains(o.Notice, "read_image") {
					t.Errorf("notice %q does not count the image or say how to view it", o.Notice)
				}
			}},
		{name: "images inside the omitted interval", res: Result{Content: []Block{textBlock(big), img, img2, textBlock(big)}}, opts: Options{Budget: budget(1500), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.OmittedImages != 2 || !strings.Contains(o.Notice, "2 images") {
					t.Errorf("omitted images %d, notice %q", o.OmittedImages, o.Notice)
				}
			}},
		{name: "images kept at both ends", res: Result{Content: []Block{img, textBlock(big), img2}}, opts: Options{Budget: budget(3000), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.OmittedImages != 0 || o.Content[0].Type != TypeImage || o.Content[len(o.Content)-2].Type != TypeImage {
					t.Errorf("images not kept at both ends: %+v", o.Spans)
				}
			}},
		{name: "empty text blocks", res: Result{Content: []Block{textBlock(""), textBlock(big), textBlock("")}}, opts: Options{Budget: budget(500), SpillPath: testSpill}, status: StatusReplaced},
		{name: "all empty text", res: Result{Content: []Block{textBlock(""), textBlock("")}}, opts: Options{Budget: budget(0)}, status: StatusWithinBudget},
		{name: "no content", res: Result{}, opts: Options{Budget: budget(0)}, status: StatusWithinBudget},
		{name: "cut inside CJK", res: Result{Content: []Block{textBlock(strings.Repeat("日本語のテキスト、漢字とかな。", 300))}}, opts: Options{Budget: budget(300), SpillPath: testSpill}, status: StatusReplaced},
		{name: "cut inside emoji", res: Result{Content: []Block{textBlock(strings.Repeat("🙂👩‍💻🎉🇯🇵", 500))}}, opts: Options{Budget: budget(301), SpillPath: testSpill}, status: StatusReplaced},
		{name: "cut inside combining marks", res: Result{Content: []Block{textBlock(strings.Repeat("e\u0301a\u0308o\u0303\u0323 ", 700))}}, opts: Options{Budget: budget(302), SpillPath: testSpill}, status: StatusReplaced},
		{name: "cut inside 4-byte sequences", res: Result{Content: []Block{textBlock(strings.Repeat("𝔘𝔫𝔦𝔠𝔬𝔡𝔢\U00010348\U0001F600", 300))}}, opts: Options{Budget: budget(303), SpillPath: testSpill}, status: StatusReplaced},
		{name: "invalid UTF-8", res: Result{Content: []Block{textBlock(strings.Repeat("ok \xff\xfe\xe6\x97 ", 900))}}, opts: Options{Budget: budget(300), SpillPath: testSpill}, status: StatusReplaced, diag: "invalid UTF-8"},
		{name: "one giant letter piece", res: Result{Content: []Block{textBlock(strings.Repeat("a", 120000))}}, opts: Options{Budget: budget(2000), SpillPath: testSpill}, status: StatusReplaced},
		{name: "one giant whitespace piece", res: Result{Content: []Block{textBlock("x" + strings.Repeat(" ", 120000) + "y")}}, opts: Options{Budget: budget(300), SpillPath: testSpill}, status: StatusReplaced},
		{name: "cl100k encoding", res: bigRes, opts: Options{Budget: budget(500), Encoding: EncodingCL100k, SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.Encoding != EncodingCL100k {
					t.Errorf("encoding %q", o.Encoding)
				}
			}},
		{name: "openai route", res: Result{Content: []Block{textBlock(big), img}}, opts: Options{Budget: budget(1200), Route: "openai-tile", SpillPath: testSpill}, status: StatusReplaced},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := mustRetain(t, tt.res, tt.opts)
			if o.Status != tt.status {
				t.Fatalf("status %q, want %q (diagnostics %q)", o.Status, tt.status, o.Diagnostics)
			}
			if tt.diag != "" && !hasDiag(o, tt.diag) {
				t.Fatalf("no diagnostic containing %q in %q", tt.diag, o.Diagnostics)
			}
			switch o.Status {
			case StatusReplaced, StatusNoticeOnly:
				checkReplacement(t, tt.res, tt.opts, o)
			default:
				if !reflect.DeepEqual(o.Content, tt.res.Content) {
					t.Fatal("the original content was not kept")
				}
				if o.CompleteFile != "" || o.Notice != "" {
					t.Fatal("a kept original has a notice or complete file")
				}
			}
			if tt.check != nil {
				tt.check(t, o)
			}
		})
	}
}

func reserveFor(t testing.TB, res Result) int {
	return mustAnalyse(t, res, Options{SpillPath: testSpill}).reserve
}

// A spill path or image path with invalid UTF-8 is priced like any text.
func TestRetainInvalidUTF8Paths(t *testing.T) {
	res := Result{Content: []Block{textBlock(strings.Repeat("data row\n", 3000))}}
	opts := Options{Budget: budget(300), SpillPath: "/spill/\xff\xfe/x.txt"}
	o := mustRetain(t, res, opts)
	if o.Status != StatusReplaced {
		t.Fatalf("status %q", o.Status)
	}
	checkReplacement(t, res, opts, o)
}
