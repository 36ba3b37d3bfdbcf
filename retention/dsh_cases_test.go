package retention

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"spillscope/retention/imagecost"
)

// Cases transcribed from dsh's own tests. Sources (read with the search
// tool; inputs and expected outputs restated, not copied):
//   - knyazev741/deepseek-harness @ 8173fb8d415a2b16169f3029dff8ad3c5fcea772:
//     packages/spill/spill-policy/tests/{retention,notice,spill-policy,multimodal}.spec.ts
//   - tenyi/deepseek-harness @ 77afa3438160c9b45d81277b1fa64e9edcd9416d:
//     packages/spill/spill-policy/tests/{notice,spill-policy}.spec.ts,
//     packages/util/output-retention/tests/output-retention.spec.ts
//   - knyazev741/deepseek-harness @ 1376315fcef1ad2f03463b0293f56a352fd9a1c9:
//     packages/compaction/compaction-tool-result-pruner/tests/tool-result-pruner.spec.ts

// lengthCost prices text the way dsh's retention tests do: by UTF-16
// length, plus an optional framing.
func lengthCost(s string, overhead int) TextCost {
	return &meterText{s: s, units: -1, per: 1, overhead: overhead}
}

type rcBlock struct {
	text  string
	image string // name; "" for text
}

func TestRetainContentDshCases(t *testing.T) {
	tb := func(s string) rcBlock { return rcBlock{text: s} }
	img := func(n string) rcBlock { return rcBlock{image: n} }
	cases := []struct {
		name           string
		blocks         []rcBlock
		budget         int
		imageCost      int
		overhead       int
		head, tail     []string // "img:a" for an image
		omittedBytes   int64
		omittedImages  int
		wantAllInOrder bool
	}{
		{name: "keeps both images in their original positions around a truncated middle text",
			blocks: []rcBlock{tb("AA"), img("a"), tb("B1B2B3B4B5"), img("b"), tb("CC")}, budget: 12, imageCost: 2,
			head: []string{"AA", "img:a", "B1"}, tail: []string{"B5", "img:b", "CC"}, omittedBytes: 6},
		{name: "omits a middle image together with the surrounding middle text",
			blocks: []rcBlock{tb(strings.Repeat("A", 20)), img("a"), tb(strings.Repeat("C", 20))}, budget: 10, imageCost: 2,
			head: []string{"AAAAA"}, tail: []string{"CCCCC"}, omittedBytes: 30, omittedImages: 1},
		{name: "does not cross an image that cannot fit wholly at a retained boundary",
			blocks: []rcBlock{tb("A"), img("a"), tb("B")}, budget: 6, imageCost: 5,
			head: []string{"A"}, tail: []string{"B"}, omittedImages: 1},
		{name: "never duplicates overlapping head and tail content",
			blocks: []rcBlock{tb("AB"), img("a"), tb("CD")}, budget: 100, imageCost: 2,
			head: []string{"AB", "img:a", "CD"}, wantAllInOrder: true},
		{name: "omits everything when the notices consume the budget",
			blocks: []rcBlock{tb("雪"), img("a")}, budget: 0, imageCost: 2, omittedBytes: 3, omittedImages: 1},
		{name: "omits a text suffix when its minimum framing cost exceeds the remaining budget",
			blocks: []rcBlock{tb("ABC")}, budget: 4, imageCost: 2, overhead: 4, omittedBytes: 3},
		{name: "drops an incomplete surrogate pair at the retained prefix",
			blocks: []rcBlock{tb("A😀middleZ")}, budget: 4, imageCost: 2,
			head: []string{"A"}, tail: []string{"eZ"}, omittedBytes: int64(len("😀middl"))},
		{name: "does not split a surrogate pair at either retained end",
			blocks: []rcBlock{tb("A😀middle😀Z")}, budget: 5, imageCost: 2,
			head: []string{"A😀"}, tail: []string{"Z"}, omittedBytes: int64(len("middle😀"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var items []retainItem
			for i, b := range tc.blocks {
				if b.image != "" {
					items = append(items, retainItem{block: i, image: true, cost: tc.imageCost})
				} else {
					items = append(items, retainItem{block: i, text: lengthCost(b.text, tc.overhead), size: len(b.text), empty: tc.overhead})
				}
			}
			r := retainContent(items, tc.budget)
			show := func(ps []piece) []string {
				var out []string
				for _, p := range ps {
					if p.image {
						out = append(out, "img:"+tc.blocks[p.block].image)
					} else {
						out = append(out, tc.blocks[p.block].text[p.start:p.end])
					}
				}
				return out
			}
			head, tail := show(r.head), show(r.tail)
			if tc.wantAllInOrder {
				head = append(head, tail...)
				tail = nil
			}
			if strings.Join(head, "|") != strings.Join(tc.head, "|") || strings.Join(tail, "|") != strings.Join(tc.tail, "|") {
				t.Errorf("head %q tail %q, want %q %q", head, tail, tc.head, tc.tail)
			}
			if r.omittedBytes != tc.omittedBytes || r.omittedImages != tc.omittedImages {
				t.Errorf("omitted %d bytes %d images, want %d %d", r.omittedBytes, r.omittedImages, tc.omittedBytes, tc.omittedImages)
			}
		})
	}
}

func TestSpillNoticeDshCases(t *testing.T) {
	ref := SpillRef{Locator: "/spill/output.txt", Hint: "Read the file."}
	historical := "(Omitted 50000 bytes. Full formatted result stored at: /spill/output.txt. Read the file.)"
	t.Run("preserves the historical spelling independently of the formatter", func(t *testing.T) {
		if got := FormatSpillNotice(ExactOmission(50000), ref, 0); got != historical {
			t.Fatalf("got %q", got)
		}
		for _, era := range []string{EraBytes, EraTokens} {
			if !HasSpillNotice(historical, era) || !HasSpillNotice("failed\n[exit code: 7]\n\n"+historical, era) {
				t.Errorf("%s era does not recognise the historical notice", era)
			}
		}
	})
	t.Run("recognizes every omission form the producer can format", func(t *testing.T) {
		for _, o := range []Omission{{Kind: OmittedNone}, {Kind: OmittedUnknown}, ExactOmission(0)} {
			n := FormatSpillNotice(o, ref, 0)
			for _, era := range []string{EraBytes, EraTokens} {
				if !HasSpillNotice(n, era) || !HasSpillNotice("preview\n\n"+n, era) {
					t.Errorf("%s era rejects %q", era, n)
				}
			}
		}
		if n := FormatSpillNotice(Omission{Kind: OmittedNone}, ref, 0); !strings.HasPrefix(n, "( Full formatted") {
			t.Errorf("a none omission is %q; dsh keeps the space after the parenthesis", n)
		}
	})
	t.Run("reports whole-image omissions while recognizing historical text-only notices", func(t *testing.T) {
		n := FormatSpillNotice(ExactOmission(12), ref, 2)
		if !strings.Contains(n, "Omitted 12 bytes. Omitted 2 images.") || !HasSpillNotice(n, EraTokens) {
			t.Fatalf("notice %q", n)
		}
		if HasSpillNotice(n, EraBytes) {
			t.Error("the byte era accepts the image clause")
		}
		for _, bad := range []string{strings.Replace(n, "2 images", "02 images", 1), strings.Replace(n, "2 images", "9007199254740992 images", 1)} {
			if HasSpillNotice(bad, EraTokens) {
				t.Errorf("accepted %q", bad)
			}
		}
		if m, ok := RecogniseNotice(n); !ok || m.Kind != NoticeTokens || m.OmittedImages != 2 || m.OmittedBytes != 12 {
			t.Errorf("RecogniseNotice = %+v, %v", m, ok)
		}
	})
	t.Run("keeps locator and retrieval text opaque, including parentheses and newlines", func(t *testing.T) {
		for _, loc := range []string{"/spill/報告 (1).txt", "/spill/报告 (1).txt"} {
			n := FormatSpillNotice(ExactOmission(42), SpillRef{Locator: loc, Hint: "Read it.\n\n(additional guidance)"}, 0)
			for _, era := range []string{EraBytes, EraTokens} {
				if !HasSpillNotice(n, era) || !HasSpillNotice("preview\n\n"+n, era) {
					t.Errorf("%s era rejects %q", era, n)
				}
			}
			if m, _ := RecogniseNotice("preview\n\n" + n); m.Path != loc || m.Hint != "Read it.\n\n(additional guidance)" || m.Start != len("preview\n\n") {
				t.Errorf("read as %+v", m)
			}
		}
	})
	t.Run("scans repeated non-notice prefixes without losing the final notice", func(t *testing.T) {
		prefix := strings.Repeat("\n\n(ordinary output", 20000)
		if HasSpillNotice(prefix+")", EraTokens) {
			t.Error("accepted an ordinary parenthesis")
		}
		if !HasSpillNotice(prefix+"\n\n"+FormatSpillNotice(ExactOmission(42), ref, 0), EraTokens) {
			t.Error("lost the final notice")
		}
	})
	t.Run("rejects ordinary, partial, non-final, and malformed notice text", func(t *testing.T) {
		n := FormatSpillNotice(ExactOmission(42), ref, 0)
		for _, text := range []string{
			"", "ordinary output)", "(ordinary output)", "\n\n(ordinary output)", "prefix" + n,
			n[:len(n)-1], n + "\nother output",
			strings.Replace(n, "42", "-1", 1), strings.Replace(n, "42", "1.5", 1), strings.Replace(n, "42", "0042", 1),
			strings.Replace(n, "Omitted", "Ignored", 1), strings.Replace(n, ". Read the file.", "", 1),
			strings.Replace(n, "42", "9007199254740992", 1),
		} {
			for _, era := range []string{EraBytes, EraTokens} {
				if HasSpillNotice(text, era) {
					t.Errorf("%s era accepted %q", era, text)
				}
			}
		}
		if !HasSpillNotice(strings.Replace(n, "42", "9007199254740991", 1), EraBytes) {
			t.Error("rejected the largest safe integer")
		}
	})
	t.Run("legacy Spillscope notices are recognised, not rewritten", func(t *testing.T) {
		legacy := "head\n[...]\ntail\n" + FormatLegacyNotice(10, 2, "/d/z.txt")
		m, ok := RecogniseNotice(legacy)
		if !ok || m.Kind != NoticeLegacy || m.OmittedBytes != 10 || m.OmittedImages != 2 || m.Path != "/d/z.txt" {
			t.Fatalf("legacy read as %+v, %v", m, ok)
		}
		if HasSpillNotice(legacy, EraTokens) || HasSpillNotice(legacy, EraBytes) {
			t.Error("dsh's recogniser accepts the legacy image form")
		}
		// The legacy byte-only form is dsh's byte-era notice letter for letter.
		if m, ok := RecogniseNotice(FormatLegacyNotice(10, 0, "/d/z.txt")); !ok || m.Kind != NoticeBytes {
			t.Errorf("legacy byte-only notice read as %+v, %v", m, ok)
		}
	})
}

// The stub backend of dsh's spill-policy tests.
var stubRef = SpillRef{Locator: "/spill/big.txt", Hint: "Use the stub retrieval path."}

func meterRetain(t testing.TB, policy string, b int64, tool string, content ...Block) Outcome {
	t.Helper()
	return mustRetain(t, Result{Content: content}, Options{Policy: policy, Budget: &b, Estimator: EstimatorMeter, ToolName: tool,
		SpillPath: stubRef.Locator, SpillHint: stubRef.Hint})
}

func textOf(content []Block) string {
	var sb strings.Builder
	for _, b := range content {
		if b.Type == TypeText {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

func TestSpillPolicyDshCases(t *testing.T) {
	body := strings.Repeat("HEAD", 200) + strings.Repeat("TAIL", 200)
	for _, era := range []struct {
		policy           string
		oversized, small int64
	}{{"dsh-tokens", 64, 1000}, {"dsh-bytes", 200, 1000}} {
		t.Run(era.policy, func(t *testing.T) {
			t.Run("spills the full text and replaces the result with a preview and locator within the cap", func(t *testing.T) {
				o := meterRetain(t, era.policy, era.oversized, "big", textBlock(body))
				text := textOf(o.Content)
				if o.Status != StatusReplaced || o.CompleteFile != body || !strings.HasPrefix(text, "HEAD") ||
					!strings.Contains(text, "Full formatted result stored at: /spill/big.txt") || !strings.Contains(text, "Use the stub retrieval path.") || !strings.Contains(text, "Omitted") {
					t.Fatalf("outcome %+v", o)
				}
				size := int64(len(text))
				if era.policy == "dsh-tokens" {
					size = int64(meterCount(text))
				}
				if size > era.oversized || len(text) >= len(body) {
					t.Errorf("replacement is %d (%d bytes) for a cap of %d", size, len(text), era.oversized)
				}
			})
			t.Run("keeps the inline result when the notice-only replacement would exceed the cap", func(t *testing.T) {
				if o := meterRetain(t, era.policy, 4, "big", textBlock("xxxxx")); o.Status != StatusPreserved || textOf(o.Content) != "xxxxx" || !hasDiag(o, "notice exceeds") {
					t.Errorf("outcome %+v", o)
				}
			})
			t.Run("leaves a small plain-text result unchanged", func(t *testing.T) {
				if o := meterRetain(t, era.policy, era.small, "small", textBlock("tiny")); o.Status != StatusWithinBudget {
					t.Errorf("status %q", o.Status)
				}
			})
			t.Run("leaves a result with a non-text block unchanged", func(t *testing.T) {
				o := meterRetain(t, era.policy, 5, "mixed", textBlock(strings.Repeat("x", 100)), Block{Type: "reasoning", Text: "why"})
				if o.Status != StatusUnsupported || len(o.Content) != 2 {
					t.Errorf("outcome %+v", o)
				}
			})
			t.Run("never spills the read tool result", func(t *testing.T) {
				if o := meterRetain(t, era.policy, 10, "read", textBlock(strings.Repeat("x", 1000))); o.Status != StatusPassThrough {
					t.Errorf("status %q", o.Status)
				}
			})
			t.Run("bounds a 2,000-character sub-result to one text block within 200", func(t *testing.T) {
				o := meterRetain(t, era.policy, 200, "huge_read", textBlock(strings.Repeat("H", 2000)))
				if len(o.Content) != 1 || !strings.Contains(o.Content[0].Text, "Full formatted result stored at: /spill/big.txt") {
					t.Fatalf("content %+v", o.Content)
				}
				size := int64(len(o.Content[0].Text))
				if era.policy == "dsh-tokens" {
					size = int64(meterCount(o.Content[0].Text))
				}
				if size > 200 {
					t.Errorf("%d > 200", size)
				}
			})
		})
	}
	t.Run("config validation", func(t *testing.T) {
		for _, p := range []string{"dsh-tokens", "dsh-bytes"} {
			info := mustPolicy(t, p).Info()
			for _, bad := range []string{"-1", "1.5", "9007199254740992"} {
				_, err := info.Resolve(Params{info.Budget: bad})
				if !errors.Is(err, ErrParam) || !strings.Contains(err.Error(), info.Budget) {
					t.Errorf("%s %s=%s: err %v", p, info.Budget, bad, err)
				}
			}
		}
	})
}

func mustPolicy(t testing.TB, name string) Policy {
	t.Helper()
	p, err := LookupPolicy(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// meterCount is dsh's estimateContent of one text block.
func meterCount(s string) int { return (utf16Len(s)+3)/4 + 4 }

func TestMultimodalDshCases(t *testing.T) {
	dir := t.TempDir()
	img := writePNG(t, dir, 1, 1)
	// The tests' vision adapter prices an image at DeepSeek's tokens with an
	// empty handle text.
	noHandle := func(ImageFacts) string { return "" }
	run := func(t *testing.T, b int64, route string, content ...Block) Outcome {
		t.Helper()
		est, _ := LookupEstimator(EstimatorMeter)
		a, err := Analyse(Result{Content: content}, est, route, AnalyseOptions{HandleText: noHandle, Call: Call{ToolName: "inspect", Spill: stubRef}})
		if err != nil {
			t.Fatal(err)
		}
		o, err := a.Decide("dsh-tokens", Params{"maxInlineTokens": itoa(int(b))})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	t.Run("retains ordered end images and saves readable image addresses among the complete text", func(t *testing.T) {
		o := run(t, 1000, "deepseek-v4.1", textBlock("A"), img, textBlock(strings.Repeat("B", 20000)), img, textBlock("C"))
		var types []string
		for _, b := range o.Content {
			types = append(types, b.Type)
		}
		if strings.Join(types, ",") != "text,image,text,image,text" {
			t.Fatalf("types %v", types)
		}
		if !strings.Contains(o.CompleteFile, strings.Repeat("B", 20000)) || strings.Count(o.CompleteFile, "[Image: "+jsString(img.Path)+"; image/png; 1x1. Use read_image to view it.]") != 2 {
			t.Fatalf("complete file %.200q", o.CompleteFile)
		}
		visual, _ := imagecost.DeepSeekV41RouteTokens(1, 1)
		total := 0
		for _, b := range o.Content {
			if b.Type == TypeImage {
				total += visual + 4
			} else {
				total += meterCount(b.Text)
			}
		}
		if total > 1000 || total != o.Tokens.Total {
			t.Errorf("priced %d (outcome %d), cap 1000", total, o.Tokens.Total)
		}
	})
	t.Run("omits a middle image as a whole and leaves its address in the complete result", func(t *testing.T) {
		o := run(t, 200, "deepseek-v4.1", textBlock(strings.Repeat("A", 4000)), img, textBlock(strings.Repeat("C", 4000)))
		for _, b := range o.Content {
			if b.Type != TypeText {
				t.Fatalf("kept a %s", b.Type)
			}
		}
		if !strings.Contains(o.Notice, "Omitted 1 images.") || !strings.Contains(o.CompleteFile, "[Image:") {
			t.Errorf("notice %q", o.Notice)
		}
	})
	t.Run("keeps original images when their recovery paths cannot be resolved", func(t *testing.T) {
		o := run(t, 200, "deepseek-v4.1", textBlock(strings.Repeat("A", 4000)), dataPNG(t, 1, 1))
		if o.Status != StatusPreserved || !hasDiag(o, "no readable attachment path") {
			t.Errorf("outcome %s %q", o.Status, o.Diagnostics)
		}
	})
	t.Run("keeps original images when the route has no visual token calculator", func(t *testing.T) {
		o := run(t, 200, "deepseek", textBlock(strings.Repeat("A", 4000)), img)
		if o.Status != StatusPreserved || !hasDiag(o, "no image token calculator") {
			t.Errorf("outcome %s %q", o.Status, o.Diagnostics)
		}
	})
}

func TestTextRetainerDshCases(t *testing.T) {
	// headTail keeps whole code points once a middle is omitted, and counts
	// what it dropped (output-retention.spec.ts, "UTF-8 boundary handling").
	cases := []struct {
		name, head, want string
		trim             func(string) string
	}{
		{"a partial 3-byte code point at the head cut", "a\xe2", "a", trimTrailingPartialUTF8},
		{"a partial 2-byte code point at the head cut", "a\xc3", "a", trimTrailingPartialUTF8},
		{"a partial 4-byte code point at the head cut", "a\xf0\x9f", "a", trimTrailingPartialUTF8},
		{"a whole 3-byte code point that fits exactly", "€", "€", trimTrailingPartialUTF8},
		{"a whole 4-byte code point that fits exactly", "😀", "😀", trimTrailingPartialUTF8},
		{"a stray continuation run is left alone", "\x80\x80", "\x80\x80", trimTrailingPartialUTF8},
		{"an invalid lead byte is left alone", "\xf8", "\xf8", trimTrailingPartialUTF8},
		{"a leading partial code point at the tail cut", "\xacb", "b", trimLeadingContinuationUTF8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.trim(tc.head); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("omitted bytes match the bytes actually absent", func(t *testing.T) {
		// 'a€€b' cut to 2+2 bytes keeps 'a' and 'b': 6 of 8 bytes omitted.
		o := meterRetain(t, "dsh-bytes", 200, "x", textBlock(strings.Repeat("a€€b", 100)))
		kept := 0
		for _, sp := range o.Spans {
			if sp.Kind == SpanKept {
				kept += int(sp.End - sp.Start)
			}
		}
		if o.OmittedBytes != int64(len(strings.Repeat("a€€b", 100))-kept) || !utf8.ValidString(o.Content[0].Text) || strings.ContainsRune(o.Content[0].Text, utf8.RuneError) {
			t.Errorf("omitted %d, kept %d, text %q", o.OmittedBytes, kept, o.Content[0].Text)
		}
	})
}

func TestPrunerDshCases(t *testing.T) {
	small := Params{"thresholdChars": "50", "headChars": "4", "tailChars": "3"}
	prune := func(t *testing.T, p Params, content ...Block) Outcome {
		t.Helper()
		est, _ := LookupEstimator(EstimatorMeter)
		a, err := Analyse(Result{Content: content}, est, "", AnalyseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o, err := a.Decide("dsh-pruner", p)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	t.Run("resolves defaults", func(t *testing.T) {
		s, err := mustPolicy(t, "dsh-pruner").Info().Resolve(nil)
		if err != nil || s.Int("thresholdChars") != 8192 || s.Int("headChars") != 4096 || s.Int("tailChars") != 1024 {
			t.Fatalf("defaults %+v, %v", s, err)
		}
	})
	t.Run("rejects invalid scalars and an output budget above threshold", func(t *testing.T) {
		info := mustPolicy(t, "dsh-pruner").Info()
		for _, bad := range []struct {
			p    Params
			want string
		}{
			{Params{"thresholdChars": "0"}, "thresholdChars"},
			{Params{"headChars": "-1"}, "headChars"},
			{Params{"tailChars": "1.5"}, "tailChars"},
			{Params{"thresholdChars": "50", "headChars": "20", "tailChars": "20"}, "headChars + marker + tailChars"},
			{Params{"threshold": "10"}, `"threshold"`},
		} {
			if _, err := info.Resolve(bad.p); !errors.Is(err, ErrParam) || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("%v: err %v, want one naming %s", bad.p, err, bad.want)
			}
		}
	})
	t.Run("measures text code points only and skips content within threshold", func(t *testing.T) {
		if o := prune(t, small, textBlock("a😀b"), Block{Type: "reasoning", Text: "not measured"}); o.Status != StatusWithinBudget {
			t.Errorf("status %q", o.Status)
		}
	})
	t.Run("keeps configured head and tail without splitting surrogate pairs", func(t *testing.T) {
		o := prune(t, small, textBlock(strings.Repeat("😀", 60)))
		if len(o.Content) != 1 || o.Content[0].Text != strings.Repeat("😀", 4)+DshPruneMarker+strings.Repeat("😀", 3) {
			t.Fatalf("content %q", textOf(o.Content))
		}
	})
	t.Run("preserves non-text blocks and their relative ordering across removed text", func(t *testing.T) {
		reasoning := Block{Type: "reasoning", Text: "private-rich-block", Raw: []byte(`{"type":"reasoning","text":"private-rich-block"}`)}
		call := Block{Type: "tool-call", Name: "nested", Raw: []byte(`{"type":"tool-call","id":"nested","name":"nested","arguments":"{}"}`)}
		o := prune(t, small, textBlock(strings.Repeat("A", 40)), reasoning, textBlock(strings.Repeat("B", 30)), call, textBlock(strings.Repeat("C", 30)))
		want := []string{"text:AAAA" + DshPruneMarker, "reasoning:", "tool-call:", "text:CCC"}
		var got []string
		for _, b := range o.Content {
			s := b.Type + ":"
			if b.Type == TypeText {
				s += b.Text
			}
			got = append(got, s)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("supports zero-sized head and tail while still shrinking", func(t *testing.T) {
		o := prune(t, Params{"thresholdChars": itoa(utf8.RuneCountInString(DshPruneMarker)), "headChars": "0", "tailChars": "0"}, textBlock(strings.Repeat("x", 100)))
		if len(o.Content) != 1 || o.Content[0].Text != DshPruneMarker || o.Recovery.Kind != RecoverNone || o.OmittedBytes != 100 {
			t.Errorf("outcome %+v", o)
		}
	})
}
