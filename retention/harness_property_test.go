package retention

import (
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkHarness asserts what every one of OpenCode's, goose's and Gemini
// CLI's outcomes must keep, whatever the input:
//   - the spans tile each text block of the content, and every kept span is
//     the original's bytes, cut on code points;
//   - kept (each original byte once) + omitted = the original's text bytes;
//   - kept text is a prefix and a suffix of the text the harness cut;
//   - the output is larger than the input only by the harness's documented
//     framing (marker, notice, wrapper), and within the policy's own limit;
//   - images are never omitted, the recogniser reads the notice back, and
//     the outcome repriced on its own estimator gives its own figures.
func checkHarness(t testing.TB, a *Analysis, policy string, s Settings, o Outcome) {
	t.Helper()
	res := a.Result()
	if o.Status != StatusReplaced && o.Status != StatusNoticeOnly {
		if !reflect.DeepEqual(o.Content, res.Content) {
			t.Fatalf("%s %s changed the content", policy, o.Status)
		}
		return
	}
	var total int64
	images := 0
	for _, b := range res.Content {
		total += int64(len(sanitize(b.Text)))
		if b.Type == TypeImage {
			images++
		}
	}
	kept := map[int][][2]int64{} // original block -> kept intervals
	var framing, keptText int64
	cover := map[int]int64{} // content block -> bytes covered so far
	for _, sp := range o.Spans {
		c := o.Content[sp.Out]
		if c.Type != TypeText {
			continue
		}
		if sp.OutStart != cover[sp.Out] {
			t.Fatalf("%s: span %+v leaves a gap or overlaps at %d", policy, sp, cover[sp.Out])
		}
		cover[sp.Out] = sp.OutEnd
		part := c.Text[sp.OutStart:sp.OutEnd]
		if sp.Kind != SpanKept {
			framing += int64(len(part))
			continue
		}
		src := sanitize(res.Content[sp.Block].Text)
		if src[sp.Start:sp.End] != part {
			t.Fatalf("%s: kept span %+v is not the original's bytes", policy, sp)
		}
		if (sp.Start < int64(len(src)) && !utf8.RuneStart(src[sp.Start])) || (sp.End < int64(len(src)) && !utf8.RuneStart(src[sp.End])) {
			t.Fatalf("%s: kept span %+v cuts inside a code point", policy, sp)
		}
		kept[sp.Block] = append(kept[sp.Block], [2]int64{sp.Start, sp.End})
		keptText += sp.End - sp.Start
	}
	for i, b := range o.Content {
		if b.Type == TypeText && cover[i] != int64(len(b.Text)) {
			t.Fatalf("%s: spans cover %d of block %d's %d bytes", policy, cover[i], i, len(b.Text))
		}
	}
	var distinct int64
	for _, iv := range kept {
		distinct += unionLen(iv)
	}
	if distinct+o.OmittedBytes != total {
		t.Fatalf("%s: kept %d + omitted %d != %d", policy, distinct, o.OmittedBytes, total)
	}
	repeats := hasDiag(o, "repeats the lines")
	if keptText > total && !repeats {
		t.Fatalf("%s: %d bytes of kept text from a %d-byte original", policy, keptText, total)
	}
	outImages := 0
	for _, b := range o.Content {
		if b.Type == TypeImage {
			outImages++
		}
	}
	if outImages != images || o.OmittedImages != 0 {
		t.Fatalf("%s: %d of %d images kept, %d omitted", policy, outImages, images, o.OmittedImages)
	}
	if o.Recovery.Kind != RecoverFile || o.Recovery.Locator == "" || o.Recovery.LostBytes != 0 {
		t.Fatalf("%s: recovery %+v", policy, o.Recovery)
	}
	if got := a.Reprice(o); got != o.Tokens {
		t.Fatalf("%s: repriced on its own estimator %+v, outcome %+v", policy, got, o.Tokens)
	}
	switch policy {
	case "opencode":
		checkOpenCode(t, a, s, o)
	case "goose":
		for _, b := range o.Content {
			if b.Type == TypeText && strings.HasPrefix(b.Text, gooseLead) {
				if n, ok := RecogniseGooseNotice(b.Text); !ok || n.Path != o.Recovery.Locator || n.Characters <= s.Int("LARGE_TEXT_THRESHOLD") {
					t.Fatalf("goose notice %q read as %+v, %v", b.Text, n, ok)
				}
			}
		}
		if framing == 0 {
			t.Fatal("goose replaced nothing")
		}
	case "gemini-cli":
		text := o.Content[0].Text
		g, ok := RecogniseGeminiTruncation(text)
		if !ok || g.Path != o.Recovery.Locator {
			t.Fatalf("gemini notice read as %+v, %v", g, ok)
		}
		if s.String("era") != "older" {
			th := s.Int("truncateToolOutputThreshold")
			if g.First+g.Last != th || g.Omitted != int64(utf16Len(sanitize(res.Content[0].Text)))-th {
				t.Fatalf("gemini figures %+v at threshold %d", g, th)
			}
			if units := int64(utf16Len(textOfKind(o, SpanKept))); units > th {
				t.Fatalf("gemini kept %d characters over the threshold %d", units, th)
			}
			checkEnds(t, sanitize(res.Content[0].Text), o)
		}
	}
}

// checkOpenCode: the kept text is a prefix (head) or suffix (tail, shell)
// of the joined text, within both limits, and the recogniser reads back the
// file and the marker's figures.
func checkOpenCode(t testing.TB, a *Analysis, s Settings, o Outcome) {
	t.Helper()
	j := a.joined("\n\n", joinBetween)
	var preview strings.Builder
	for _, sp := range o.Spans {
		if sp.Kind == SpanKept || sp.Kind == SpanWrapper {
			if o.Content[sp.Out].Type == TypeText {
				preview.WriteString(o.Content[sp.Out].Text[sp.OutStart:sp.OutEnd])
			}
		}
	}
	p := preview.String()
	r, ok := RecogniseOpenCodeTruncation(o.Content[0].Text)
	if !ok || r.Path != o.Recovery.Locator {
		t.Fatalf("opencode notice in %q read as %+v, %v", clip(o.Content[0].Text), r, ok)
	}
	if r.Preview != p && !(r.Kind == OpenCodeShell && p == "" && r.Preview == openCodeNoOutput) {
		t.Fatalf("recognised preview %q, kept %q", clip(r.Preview), clip(p))
	}
	if r.Direction == "head" && !strings.HasPrefix(j.text, p) || r.Direction == "tail" && !strings.HasSuffix(j.text, p) {
		t.Fatalf("opencode %s preview %q is not an end of the output", r.Direction, clip(p))
	}
	if int64(len(p)) > s.Int("maxBytes") || (p != "" && int64(strings.Count(p, "\n")+1) > s.Int("maxLines")) {
		t.Fatalf("opencode kept %d bytes, %d lines over %d / %d", len(p), strings.Count(p, "\n")+1, s.Int("maxBytes"), s.Int("maxLines"))
	}
	if r.Kind == OpenCodeGeneric {
		want := int64(j.lines) - int64(strings.Count(p, "\n")+1)
		if p == "" {
			want = int64(j.lines)
		}
		if r.Unit == "bytes" {
			want = int64(len(j.text) - len(p))
		}
		if r.Removed != want {
			t.Fatalf("marker says %d %s, want %d", r.Removed, r.Unit, want)
		}
	}
}

// checkEnds: a single-text outcome's kept spans are a prefix and a suffix.
func checkEnds(t testing.TB, text string, o Outcome) {
	t.Helper()
	var ks []Span
	for _, sp := range o.Spans {
		if sp.Kind == SpanKept {
			ks = append(ks, sp)
		}
	}
	for i, sp := range ks {
		if i == 0 && sp.Start != 0 && sp.End != int64(len(text)) || i == len(ks)-1 && sp.End != int64(len(text)) && sp.Start != 0 {
			t.Fatalf("kept span %+v is neither a prefix nor a suffix", sp)
		}
	}
}

func textOfKind(o Outcome, kind string) string {
	var b strings.Builder
	for _, sp := range o.Spans {
		if sp.Kind == kind && o.Content[sp.Out].Type == TypeText {
			b.WriteString(o.Content[sp.Out].Text[sp.OutStart:sp.OutEnd])
		}
	}
	return b.String()
}

func unionLen(iv [][2]int64) int64 {
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	var n, end int64 = 0, -1
	for _, x := range iv {
		if x[0] > end {
			n += x[1] - x[0]
			end = x[1]
		} else if x[1] > end {
			n += x[1] - end
			end = x[1]
		}
	}
	return n
}

// harnessParams draws parameters the way a user might move them: small
// limits so the random results are cut, every choice.
func harnessParams(r *rand.Rand, policy string, size int) Params {
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	switch policy {
	case "opencode":
		return Params{"maxBytes": itoa(r.Intn(size + 100)), "maxLines": itoa(r.Intn(60)), "direction": pick("head", "tail"),
			"task": pick("true", "false"), "form": pick("auto", "generic", "shell")}
	case "goose":
		return Params{"LARGE_TEXT_THRESHOLD": itoa(r.Intn(size + 100)), "era": pick("current", "older")}
	}
	p := Params{"truncateToolOutputThreshold": itoa(1 + r.Intn(size+100)), "era": pick("current", "older"), "tools": pick("all", "shell")}
	p["truncateToolOutputLines"] = itoa(1 + r.Intn(40))
	return p
}

var harnessPolicies = []string{"opencode", "goose", "gemini-cli"}

// TestHarnessPolicyProperties runs the three on random results (text of
// every kind, images, one block or many) with random parameters.
func TestHarnessPolicyProperties(t *testing.T) {
	dir := t.TempDir()
	images := []Block{writePNG(t, dir, 64, 64), writePNG(t, dir, 800, 600)}
	r := rand.New(rand.NewSource(20260412))
	seen := map[string]map[string]int{}
	for trial := 0; trial < 120; trial++ {
		res := randomResult(r, images)
		if trial%2 == 0 { // one text block, the shape Gemini CLI cuts
			res = Result{Content: []Block{textBlock(randomText(r, r.Intn(6000)))}}
		}
		size := 0
		for _, b := range res.Content {
			size += len(b.Text)
		}
		for _, policy := range harnessPolicies {
			p := mustPolicy(t, policy)
			est, _ := LookupEstimator(p.Info().Estimator)
			tool := []string{"", "bash", "run_shell_command", "glob", "run_shell_command"}[r.Intn(5)]
			a, err := Analyse(res, est, "", AnalyseOptions{Call: Call{ToolName: tool, Spill: SpillRef{Locator: "/spill/" + policy}}})
			if err != nil {
				t.Fatal(err)
			}
			params := harnessParams(r, policy, size)
			s, err := p.Info().Resolve(params)
			if err != nil {
				t.Fatalf("%s %v: %v", policy, params, err)
			}
			o := a.Run(p, s)
			if seen[policy] == nil {
				seen[policy] = map[string]int{}
			}
			seen[policy][o.Status]++
			checkHarness(t, a, policy, s, o)
			if again := a.Run(p, s); !reflect.DeepEqual(again, o) {
				t.Fatalf("%s: a second decision on the same Analysis differs", policy)
			}
		}
	}
	t.Logf("statuses: %v", seen)
	for _, p := range harnessPolicies {
		if seen[p][StatusReplaced]+seen[p][StatusNoticeOnly] == 0 || seen[p][StatusWithinBudget] == 0 {
			t.Errorf("%s: the random results did not reach both sides of the limit: %v", p, seen[p])
		}
	}
}

// fuzzHarness decides data under policy with the parameters the fuzzer's
// numbers pick, and checks the outcome.
func fuzzHarness(t *testing.T, policy string, data []byte, n uint32, choice uint8, tool string) {
	res, err := ParseResult(data)
	if err != nil {
		return
	}
	p := mustPolicy(t, policy)
	est, _ := LookupEstimator(p.Info().Estimator)
	a, err := Analyse(res, est, "", AnalyseOptions{Call: Call{ToolName: tool, Spill: SpillRef{Locator: "/spill/f"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(int64(n)<<8 | int64(choice)))
	params := harnessParams(r, policy, len(data))
	s, err := p.Info().Resolve(params)
	if err != nil {
		t.Fatalf("%v: %v", params, err)
	}
	checkHarness(t, a, policy, s, a.Run(p, s))
}

func addHarnessSeeds(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"a\nb\nc\nd"}]}`), uint32(3), uint8(0), "")
	f.Add([]byte(`[{"type":"text","text":"日本語\u0301🙂 12345 \n\n  x"},{"type":"text","text":""}]`), uint32(40), uint8(1), "bash")
	f.Add([]byte(`[{"type":"text","text":"a\ud800b\n\n\n"},{"type":"image","data":"iVBORw0KGgo="}]`), uint32(7), uint8(2), "run_shell_command")
	f.Add([]byte(`[{"type":"text","text":"`+strings.Repeat("word ", 900)+`"},{"type":"resource","resource":{}}]`), uint32(300), uint8(3), "glob")
}

// FuzzOpenCode: arbitrary results and limits never break OpenCode's
// invariants, and its recogniser never panics on the text.
func FuzzOpenCode(f *testing.F) {
	addHarnessSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, n uint32, choice uint8, tool string) {
		RecogniseOpenCodeTruncation(string(data))
		fuzzHarness(t, "opencode", data, n, choice, tool)
	})
}

// FuzzGoose: the same for goose.
func FuzzGoose(f *testing.F) {
	addHarnessSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, n uint32, choice uint8, tool string) {
		RecogniseGooseNotice(string(data))
		fuzzHarness(t, "goose", data, n, choice, tool)
	})
}

// FuzzGemini: the same for Gemini CLI, both eras.
func FuzzGemini(f *testing.F) {
	addHarnessSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, n uint32, choice uint8, tool string) {
		RecogniseGeminiTruncation(string(data))
		fuzzHarness(t, "gemini-cli", data, n, choice, tool)
	})
}
