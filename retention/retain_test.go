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

func mustAnalyse(t testing.TB, res Result, opts Options) *Analysis {
	t.Helper()
	a, err := opts.Analyse(res)
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
// dsh-tokens outcome against its original result (RETENTION.md): priced
// within budget on its estimator and below the original, kept text a prefix
// and a suffix cut on code points, head from the start and tail to the end in
// order, kept + omitted = total, the notice recognised with its counts, and
// the complete result file holding everything.
func checkReplacement(t testing.TB, res Result, opts Options, o Outcome) {
	t.Helper()
	if o.Status != StatusReplaced && o.Status != StatusNoticeOnly {
		return
	}
	B := int(*opts.Budget)
	if got := estimate(t, o.Content, opts.Route, o.Estimator); got != o.Tokens.Total || got > B {
		t.Fatalf("replacement re-priced at %d tokens, outcome says %d, budget %d", got, o.Tokens.Total, B)
	}
	if o.OriginalTokensExact && o.Tokens.Total >= o.OriginalTokens {
		t.Fatalf("replacement %d tokens is not smaller than the original %d", o.Tokens.Total, o.OriginalTokens)
	}
	for i := 1; i < len(o.Content); i++ {
		if o.Content[i].Type == TypeText && o.Content[i-1].Type == TypeText {
			t.Fatalf("blocks %d and %d are adjacent text; dsh merges them", i-1, i)
		}
	}
	// Spans tile every content block, in order.
	covered := make([]int64, len(o.Content))
	for k, sp := range o.Spans {
		c := o.Content[sp.Out]
		if sp.OutStart != covered[sp.Out] || (k > 0 && sp.Out < o.Spans[k-1].Out) {
			t.Fatalf("span %d does not continue block %d at %d: %+v", k, sp.Out, covered[sp.Out], sp)
		}
		covered[sp.Out] = sp.OutEnd
		if c.Type == TypeText && sp.OutEnd > int64(len(c.Text)) {
			t.Fatalf("span %d runs past block %d", k, sp.Out)
		}
	}
	for i, c := range o.Content {
		if c.Type == TypeText && covered[i] != int64(len(c.Text)) {
			t.Fatalf("block %d covered to %d of %d", i, covered[i], len(c.Text))
		}
	}
	last := o.Spans[len(o.Spans)-1]
	wantNotice := "\n\n" + o.Notice
	if o.Status == StatusNoticeOnly {
		wantNotice = o.Notice
		if len(o.Spans) != 1 {
			t.Fatalf("notice-only outcome has %d spans", len(o.Spans))
		}
	}
	if last.Kind != SpanNotice || o.Content[last.Out].Text[last.OutStart:last.OutEnd] != wantNotice {
		t.Fatalf("last span %+v is not the notice %q", last, wantNotice)
	}
	m, ok := RecogniseNotice(o.Content[len(o.Content)-1].Text)
	if !ok || m.OmittedBytes != o.OmittedBytes || m.OmittedImages != o.OmittedImages || m.Path != o.Recovery.Locator {
		t.Fatalf("notice %q not recognised with its counts and locator (%+v)", o.Notice, m)
	}
	src := func(b int) string { return sanitize(res.Content[b].Text) }
	var textLen, keptBytes int64
	images, keptImages := 0, 0
	for _, b := range res.Content {
		if b.Type == TypeImage {
			images++
		} else {
			textLen += int64(len(sanitize(b.Text)))
		}
	}
	// Head: contiguous from the start, up to the marker.
	marker := -1
	next := Position{}
	for k, sp := range o.Spans[:len(o.Spans)-1] {
		if sp.Kind == SpanMarker {
			if marker >= 0 || o.Content[sp.Out].Text[sp.OutStart:sp.OutEnd] != DshGap {
				t.Fatalf("span %d: a second or wrong marker", k)
			}
			marker = k
			break
		}
		if sp.Block != next.Block || sp.Start != next.Offset {
			t.Fatalf("head span %d starts at %d:%d, want %d:%d", k, sp.Block, sp.Start, next.Block, next.Offset)
		}
		if res.Content[sp.Block].Type == TypeImage || sp.End == int64(len(src(sp.Block))) {
			next = Position{Block: sp.Block + 1}
		} else {
			next = Position{Block: sp.Block, Offset: sp.End}
		}
	}
	if o.Status == StatusReplaced && marker < 0 {
		t.Fatal("no marker")
	}
	// Tail: contiguous to the end, walking back from the notice.
	end := Position{Block: len(res.Content)}
	if marker >= 0 {
		for k := len(o.Spans) - 2; k > marker; k-- {
			sp := o.Spans[k]
			switch {
			case res.Content[sp.Block].Type == TypeImage:
				if sp.Block != end.Block-1 || end.Offset != 0 {
					t.Fatalf("tail image span %d at block %d does not precede %d", k, sp.Block, end.Block)
				}
			case sp.End != int64(len(src(sp.Block))) || sp.Block != end.Block-1 || end.Offset != 0:
				t.Fatalf("tail span %d (%d:%d-%d) does not run to %d", k, sp.Block, sp.Start, sp.End, end.Block)
			}
			end = Position{Block: sp.Block, Offset: sp.Start}
		}
		if end.Block < next.Block || (end.Block == next.Block && end.Offset < next.Offset) {
			t.Fatalf("tail starts at %+v before the head ends at %+v", end, next)
		}
	}
	for k, sp := range o.Spans {
		if sp.Kind != SpanKept {
			continue
		}
		c := o.Content[sp.Out]
		orig := res.Content[sp.Block]
		if c.Type == TypeImage {
			keptImages++
			if orig.Type != TypeImage || c.Path != orig.Path || c.Data != "" {
				t.Fatalf("image span %d does not match block %d", k, sp.Block)
			}
			continue
		}
		s := src(sp.Block)
		if s[sp.Start:sp.End] != c.Text[sp.OutStart:sp.OutEnd] {
			t.Fatalf("span %d text is not block %d [%d:%d]", k, sp.Block, sp.Start, sp.End)
		}
		if (sp.Start < int64(len(s)) && !utf8.RuneStart(s[sp.Start])) || (sp.End < int64(len(s)) && !utf8.RuneStart(s[sp.End])) {
			t.Fatalf("span %d cuts inside a code point", k)
		}
		keptBytes += sp.End - sp.Start
	}
	if keptBytes+o.OmittedBytes != textLen {
		t.Fatalf("kept %d + omitted %d bytes != original %d", keptBytes, o.OmittedBytes, textLen)
	}
	if keptImages+o.OmittedImages != images {
		t.Fatalf("kept %d + omitted %d images != original %d", keptImages, o.OmittedImages, images)
	}
	for i, b := range res.Content {
		switch b.Type {
		case TypeText:
			if !strings.Contains(o.CompleteFile, sanitize(b.Text)) {
				t.Fatalf("complete result file lacks text block %d", i)
			}
		case TypeImage:
			if !strings.Contains(o.CompleteFile, "[Image: "+jsString(b.Path)+"; ") || (b.Data != "" && strings.Contains(o.CompleteFile, b.Data)) {
				t.Fatalf("complete result file lacks image %d's path or holds base64", i)
			}
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
			if err != nil && !errors.Is(err, ErrBudget) {
				t.Fatalf("error %q is not ErrBudget", err)
			}
		})
	}
}

func TestRetainInvalidOptions(t *testing.T) {
	res := Result{Content: []Block{textBlock("hello")}}
	tests := []struct {
		name  string
		opts  Options
		want  error
		names string
	}{
		{"budget 2^53", Options{Budget: budget(1 << 53)}, ErrParam, "maxInlineTokens"},
		{"negative budget", Options{Budget: budget(-5)}, ErrParam, "maxInlineTokens"},
		{"negative byte budget", Options{Policy: "dsh-bytes", Budget: budget(-5)}, ErrParam, "maxInlineBytes"},
		{"unknown parameter", Options{Budget: budget(5), Params: Params{"maxInlineByte": "3"}}, ErrParam, "maxInlineByte"},
		{"unknown policy", Options{Policy: "dsh-v2", Budget: budget(5)}, ErrPolicy, "dsh-v2"},
		{"unknown route", Options{Budget: budget(10), Route: "nope"}, ErrOptions, "nope"},
		{"unknown estimator", Options{Budget: budget(10), Estimator: "p50k_base"}, ErrOptions, "p50k_base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Retain(res, tt.opts)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.names) {
				t.Fatalf("err = %v, want %v naming %q", err, tt.want, tt.names)
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
	bigCost := tok(t, big)
	worst := tok(t, FormatSpillNotice(ExactOmission(int64(len(big))), SpillRef{Locator: testSpill}, 0))
	reserved := tok(t, DshGap) + tok(t, "\n\n"+FormatSpillNotice(ExactOmission(int64(len(big))), SpillRef{Locator: testSpill}, 0))
	imgRes := Result{Content: []Block{img, textBlock(big)}}
	imgReserved := tok(t, DshGap) + tok(t, "\n\n"+FormatSpillNotice(ExactOmission(int64(len(big))), SpillRef{Locator: testSpill}, 1))
	_, price, _ := mustAnalyse(t, Result{Content: []Block{img}}, Options{}).Image(0)
	imgCost := price.Total()

	type tc struct {
		name   string
		res    Result
		opts   Options
		status string
		diag   string
		check  func(t *testing.T, o Outcome)
	}
	tests := []tc{
		{name: "no budget disables retention", res: bigRes, opts: Options{}, status: StatusDisabled,
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
		{name: "notice larger than budget", res: bigRes, opts: Options{Budget: budget(int64(worst - 1)), SpillPath: testSpill}, status: StatusPreserved, diag: "notice exceeds budget"},
		{name: "notice alone fits", res: bigRes, opts: Options{Budget: budget(int64(worst)), SpillPath: testSpill}, status: StatusNoticeOnly,
			check: func(t *testing.T, o Outcome) {
				if len(o.Content) != 1 || o.OmittedBytes != int64(len(big)) || o.Content[0].Text != o.Notice {
					t.Errorf("content %d blocks, omitted %d", len(o.Content), o.OmittedBytes)
				}
			}},
		{name: "reserve with no room for text", res: bigRes, opts: Options{Budget: budget(int64(reserved)), SpillPath: testSpill}, status: StatusNoticeOnly},
		{name: "one token of room goes to the head", res: bigRes, opts: Options{Budget: budget(int64(reserved + 1)), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.Spans[0].Kind != SpanKept || o.Spans[1].Kind != SpanMarker || o.Spans[2].Kind != SpanNotice || o.Spans[0].End == 0 {
					t.Errorf("want a one-token head, the gap, then the notice, got %+v", o.Spans)
				}
				if !strings.HasPrefix(o.Content[0].Text, big[:o.Spans[0].End]+DshGap) {
					t.Errorf("content %q", o.Content[0].Text)
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
		{name: "missing image pricing on deepseek", res: Result{Content: []Block{textBlock(big), img}}, opts: Options{Budget: budget(300), Route: "deepseek"}, status: StatusPreserved, diag: "no image token calculator"},
		{name: "missing image pricing even within budget", res: Result{Content: []Block{textBlock(small), img}}, opts: Options{Budget: budget(12500), Route: "deepseek"}, status: StatusPreserved, diag: "no image token calculator"},
		{name: "image without readable path when cutting", res: Result{Content: []Block{textBlock(big), dataPNG(t, 40, 40)}}, opts: Options{Budget: budget(300)}, status: StatusPreserved, diag: "no readable attachment path"},
		{name: "image without readable path within budget", res: Result{Content: []Block{textBlock(small), dataPNG(t, 40, 40)}}, opts: Options{Budget: budget(12500)}, status: StatusWithinBudget},
		{name: "image path that does not exist", res: Result{Content: []Block{textBlock(big), {Type: TypeImage, Path: dir + "/missing.png"}}}, opts: Options{Budget: budget(300)}, status: StatusPreserved, diag: "dimensions unavailable"},
		{name: "invalid base64", res: Result{Content: []Block{textBlock(big), {Type: TypeImage, MimeType: "image/png", Data: "!!!not base64!!!"}}}, opts: Options{Budget: budget(300)}, status: StatusPreserved, diag: "base64"},
		{name: "zero by zero header", res: Result{Content: []Block{textBlock(small), {Type: TypeImage, Data: b64(pngHeader(0, 0))}}}, opts: Options{Budget: budget(12500)}, status: StatusPreserved, diag: "image block 1"},
		{name: "huge header", res: Result{Content: []Block{textBlock(small), {Type: TypeImage, Data: b64(pngHeader(100000, 100000))}}}, opts: Options{Budget: budget(12500)}, status: StatusPreserved, diag: "image block 1"},
		{name: "media type contradicting bytes", res: Result{Content: []Block{textBlock(small), {Type: TypeImage, MimeType: "image/jpeg", Path: img.Path}}}, opts: Options{Budget: budget(12500)}, status: StatusWithinBudget, diag: "contradicts"},
		// The head gets ceil((B - reserved)/2): an image costing c fits at
		// 2c-1 of room and not at 2c-2.
		{name: "image exactly at the head boundary", res: imgRes, opts: Options{Budget: budget(int64(imgReserved + 2*imgCost - 1)), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.Content[0].Type != TypeImage || o.OmittedImages != 0 {
					t.Errorf("image at the exact head budget was not kept: %+v", o.Spans)
				}
			}},
		{name: "image one token over the head boundary", res: imgRes, opts: Options{Budget: budget(int64(imgReserved + 2*imgCost - 2)), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.OmittedImages != 1 || o.Content[0].Type != TypeText || !strings.HasPrefix(o.Content[0].Text, DshGap) {
					t.Errorf("image over the head budget was kept: %+v", o.Spans)
				}
				if !strings.Contains(o.Notice, " Omitted 1 images. Full formatted result stored at: ") {
					t.Errorf("notice %q does not count the image dsh's way", o.Notice)
				}
			}},
		{name: "images inside the omitted interval", res: Result{Content: []Block{textBlock(big), img, img2, textBlock(big)}}, opts: Options{Budget: budget(1500), SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.OmittedImages != 2 || !strings.Contains(o.Notice, "Omitted 2 images.") || len(o.Content) != 1 {
					t.Errorf("omitted images %d, notice %q, %d blocks", o.OmittedImages, o.Notice, len(o.Content))
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
		{name: "cl100k estimator", res: bigRes, opts: Options{Budget: budget(500), Estimator: EncodingCL100k, SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.Estimator != EncodingCL100k || o.Tokens.Estimator != EncodingCL100k {
					t.Errorf("estimator %q / %q", o.Estimator, o.Tokens.Estimator)
				}
			}},
		{name: "dsh meter", res: bigRes, opts: Options{Budget: budget(500), Estimator: EstimatorMeter, SpillPath: testSpill}, status: StatusReplaced},
		{name: "dsh meter on a deepseek route", res: Result{Content: []Block{img, textBlock(big), img2}}, opts: Options{Budget: budget(2000), Route: "deepseek-v4.1", SpillPath: testSpill}, status: StatusReplaced,
			check: func(t *testing.T, o Outcome) {
				if o.Estimator != EstimatorMeter {
					t.Errorf("the deepseek route's estimator is %q", o.Estimator)
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
