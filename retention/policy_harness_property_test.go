package retention

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// Invariants of the codex and claude-code policies on random results, at
// random settings. Each checker can fail on its own: it re-derives what the
// policy claims from the original.

// checkSpans: the spans tile every text block of the content, kept spans
// from a block are that block's bytes cut on code points, and the kept
// bytes plus the omitted bytes are the text's total (file, when kept spans
// come from a serialisation). It returns the kept original bytes.
func checkSpans(t testing.TB, res Result, o Outcome, file string) int64 {
	t.Helper()
	covered := map[int]int64{}
	var kept, total int64
	for _, b := range res.Content {
		if b.Type == TypeText {
			total += int64(len(sanitize(b.Text)))
		}
	}
	for _, sp := range o.Spans {
		out := o.Content[sp.Out]
		if out.Type != TypeText {
			continue
		}
		if sp.OutStart != covered[sp.Out] {
			t.Fatalf("span %+v leaves a gap at %d in block %d", sp, covered[sp.Out], sp.Out)
		}
		covered[sp.Out] = sp.OutEnd
		got := out.Text[sp.OutStart:sp.OutEnd]
		if sp.Kind != SpanKept {
			continue
		}
		src := file
		if sp.Block >= 0 {
			src = sanitize(res.Content[sp.Block].Text)
		}
		if sp.End > int64(len(src)) || src[sp.Start:sp.End] != got {
			t.Fatalf("kept span %+v is not the original's bytes", sp)
		}
		if (sp.Start < int64(len(src)) && !utf8.RuneStart(src[sp.Start])) || (sp.End < int64(len(src)) && !utf8.RuneStart(src[sp.End])) {
			t.Fatalf("kept span %+v cuts inside a code point", sp)
		}
		kept += sp.End - sp.Start
	}
	for i, b := range o.Content {
		if b.Type == TypeText && covered[i] != int64(len(b.Text)) {
			t.Fatalf("block %d: spans cover %d of %d bytes", i, covered[i], len(b.Text))
		}
	}
	if file != "" {
		total = int64(len(file))
	}
	if kept+o.OmittedBytes != total {
		t.Fatalf("kept %d + omitted %d != %d", kept, o.OmittedBytes, total)
	}
	return kept
}

// checkCodex: the codex policy's invariants at policy p.
func checkCodex(t testing.TB, res Result, s Settings, o Outcome) {
	t.Helper()
	p, _ := CodexPolicyFor(s)
	if o.Status == StatusWithinBudget {
		if !reflect.DeepEqual(o.Content, res.Content) {
			t.Fatal("within budget but the content changed")
		}
		return
	}
	if o.Status != StatusReplaced {
		t.Fatalf("status %s", o.Status)
	}
	if o.Recovery.Kind != RecoverNone && o.OmittedBytes > 0 || o.Recovery.LostBytes != o.OmittedBytes {
		t.Fatalf("recovery %+v for %d omitted bytes: Codex saves nothing", o.Recovery, o.OmittedBytes)
	}
	if s.Bool("mcp") {
		js, err := codexSerialise(res)
		if err != nil || int64(len(js)) <= p.ByteBudget() {
			t.Fatalf("mcp: replaced a %d-byte serialisation at %s (%v)", len(js), p, err)
		}
		kept := checkSpans(t, res, o, js)
		if kept > p.ByteBudget() || len(o.Content) != 1 {
			t.Fatalf("mcp: kept %d bytes of %s", kept, p)
		}
		return
	}
	kept := checkSpans(t, res, o, "")
	// Images keep their order and count.
	var in, out []string
	for _, b := range res.Content {
		if b.Type == TypeImage {
			in = append(in, b.Path)
		}
	}
	for _, b := range o.Content {
		if b.Type == TypeImage {
			out = append(out, b.Path)
		}
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("images %v became %v", in, out)
	}
	if s.Bool("history") {
		// Each item within what remained: the kept text costs at most the
		// budget in the policy's unit.
		cost := kept
		if p.Tokens {
			cost = 0
			for _, sp := range o.Spans {
				if sp.Kind == SpanKept && sp.Block >= 0 {
					cost += (sp.End - sp.Start + 3) / 4
				}
			}
		}
		limit := p.ByteBudget()
		if p.Tokens {
			limit = p.TokenBudget() + int64(len(res.Content)) // each item rounds up once
		}
		if cost > limit {
			t.Fatalf("history kept %d (%s) over %s", cost, p.unit(), p)
		}
		return
	}
	// The formatted form: one text under the header, prefix and suffix of
	// the joined text within floor/ceil halves of the byte budget.
	var joined strings.Builder
	for _, b := range res.Content {
		if b.Type == TypeText {
			if joined.Len() > 0 {
				joined.WriteByte('\n')
			}
			joined.WriteString(sanitize(b.Text))
		}
	}
	full := joined.String()
	text := o.Content[0].Text
	n, ok := RecogniseCodexTruncation(text)
	if !ok || n.HeaderStart != 0 || !n.Warning || n.OriginalTokens != int64(ceilDiv4(len(full))) || n.Lines != rustLines(full) || len(n.Markers) < 1 {
		t.Fatalf("header of %q not recognised with its figures: %+v", text[:min(len(text), 120)], n)
	}
	mk := n.Markers[0]
	for _, m := range n.Markers {
		if m.Start >= n.HeaderEnd && strings.HasPrefix(text[m.Start:], o.Notice) && m.End-m.Start == len(o.Notice) {
			mk = m
		}
	}
	head, tail := text[n.HeaderEnd:mk.Start], text[mk.End:]
	B := p.ByteBudget()
	if int64(len(head)) > B/2 || int64(len(tail)) > B-B/2 || !strings.HasPrefix(full, head) || !strings.HasSuffix(full, tail) ||
		len(head)+len(tail) > len(full) {
		t.Fatalf("ends of %d and %d bytes at %s of %d", len(head), len(tail), p, len(full))
	}
	if int64(len(head)) < B/2-3 && len(head) < len(full) && B > 0 {
		t.Fatalf("head of %d bytes: more than a character short of %d", len(head), B/2)
	}
	wantCount := int64(utf8.RuneCountInString(full[len(head) : len(full)-len(tail)]))
	if p.Tokens {
		wantCount = (int64(len(full)) - B + 3) / 4
		if B == 0 {
			wantCount = int64(ceilDiv4(len(full)))
		}
	}
	if mk.Count != wantCount || mk.Unit != p.unit()[:len(mk.Unit)] && !(mk.Unit == "chars" && !p.Tokens) {
		t.Fatalf("marker %+v, want %d", mk, wantCount)
	}
}

// checkClaude: the claude-code policy's invariants.
func checkClaude(t testing.TB, res Result, s Settings, locator string, o Outcome) {
	t.Helper()
	if o.Status == StatusWithinBudget || o.Status == StatusPassThrough || o.Status == StatusPreserved {
		if !reflect.DeepEqual(o.Content, res.Content) {
			t.Fatalf("%s but the content changed", o.Status)
		}
		return
	}
	if o.Status != StatusReplaced {
		t.Fatalf("status %s", o.Status)
	}
	if len(o.Content) != 1 || o.Content[0].Type != TypeText {
		t.Fatalf("persisted content %+v", o.Content)
	}
	text := o.Content[0].Text
	p, ok := RecogniseClaudePersistedOutput(text)
	if !ok || p.Start != 0 || p.End != len(text) || p.Path != locator {
		t.Fatalf("wrapper not recognised in %q: %+v", text[:min(200, len(text))], p)
	}
	units := int64(utf16Len(o.CompleteFile))
	if p.SizeMin > units || p.SizeMax < units {
		t.Fatalf("size %s does not cover the file's %d units", p.Size, units)
	}
	preview := text[p.PreviewStart:p.PreviewEnd]
	exact := strings.TrimSuffix(preview, string(utf8.RuneError))
	if !strings.HasPrefix(o.CompleteFile, exact) || utf16Len(preview) > ClaudePreviewChars || p.More != (units > ClaudePreviewChars) {
		t.Fatalf("preview of %d units (more %v) is not the file's start", utf16Len(preview), p.More)
	}
	// Nothing beyond the wrapper is added: the content is the preview and
	// the fixed texts around it.
	if len(text)-len(preview) != len(ClaudePersistedMessage(units, locator, "", p.More)) {
		t.Fatalf("content is %d bytes around a %d-byte preview", len(text), len(preview))
	}
	if o.Recovery.Kind != RecoverFile || o.Recovery.Locator != locator || o.Recovery.LostBytes != 0 {
		t.Fatalf("recovery %+v", o.Recovery)
	}
	size := ClaudeMessageSize(res)
	threshold, _ := s.Budget()
	if tool := s.String("tool"); tool == "Bash" {
		threshold = min(threshold, ClaudeBashResultChars)
	}
	if size <= threshold {
		t.Fatalf("persisted %d characters at threshold %d", size, threshold)
	}
	file := ""
	for _, sp := range o.Spans {
		if sp.Kind == SpanKept && sp.Block < 0 {
			file = o.CompleteFile // a preview of the .json file
		}
	}
	checkSpans(t, res, o, file)
}

// harnessVariants are the policy and parameter variants the property and
// fuzz tests run.
var harnessVariants = []struct {
	name   string
	params Params
}{
	{"codex", Params{"mode": "tokens"}},
	{"codex", Params{"mode": "bytes"}},
	{"codex", Params{"mode": "tokens", "history": "true"}},
	{"codex", Params{"mode": "bytes", "history": "true"}},
	{"codex", Params{"mode": "bytes", "mcp": "true"}},
	{"claude-code", Params{}},
	{"claude-code", Params{"tool": "Bash"}},
	{"claude-code", Params{"content": "array"}},
}

// TestHarnessPolicyProperties: codex and claude-code on random results at
// random settings keep their invariants, and a sweep equals single runs.
func TestHarnessPolicyProperties(t *testing.T) {
	dir := t.TempDir()
	images := []Block{writePNG(t, dir, 64, 64), writePNG(t, dir, 300, 200)}
	r := rand.New(rand.NewSource(20260712))
	seen := map[string]map[string]int{}
	count := func(name, status string) {
		if seen[name] == nil {
			seen[name] = map[string]int{}
		}
		seen[name][status]++
	}
	for trial := 0; trial < 60; trial++ {
		res := randomResult(r, images)
		if trial%3 == 0 {
			var text []Block
			for _, b := range res.Content {
				if b.Type == TypeText {
					text = append(text, b)
				}
			}
			res.Content = append(text, textBlock(randomText(r, 40000+r.Intn(40000))))
		}
		var size int64
		for _, b := range res.Content {
			size += int64(len(b.Text))
		}
		budgets := []int64{0, 1, int64(r.Intn(400)), int64(r.Intn(8000)), size / 5, size + 1}
		for _, pc := range harnessVariants {
			locator := "/p/s/tool-results/toolu_r.txt"
			if pc.params["content"] == "array" {
				locator = "/p/s/tool-results/toolu_r.json"
			}
			opts := Options{Policy: pc.name, Params: pc.params, Estimator: EstimatorBytes4, SpillPath: locator}
			sweep, err := Sweep(res, budgets, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range budgets {
				o := opts
				o.Budget = &budgets[i]
				single := mustRetain(t, res, o)
				if !reflect.DeepEqual(single, sweep[i]) {
					t.Fatalf("trial %d %s %v at %d: a sweep differs from a single run", trial, pc.name, pc.params, budgets[i])
				}
				_, s, _ := o.Settings(o.Budget)
				key := fmt.Sprint(pc.name, pc.params)
				count(key, single.Status)
				if pc.name == "codex" {
					checkCodex(t, res, s, single)
				} else {
					checkClaude(t, res, s, locator, single)
				}
			}
		}
	}
	t.Logf("statuses: %v", seen)
	for k, st := range seen {
		if st[StatusReplaced] == 0 {
			t.Errorf("%s never replaced a result: %v", k, st)
		}
	}
}

// FuzzHarnessPolicies feeds arbitrary tool-result JSON and budgets to the
// codex and claude-code policies: no panic, and every outcome keeps the
// invariants.
func FuzzHarnessPolicies(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hello world\nsecond"}]}`), uint16(3), uint8(0))
	f.Add([]byte(`[{"type":"text","text":"日本語\u0301🙂 12345 \n\n  x"},{"type":"text","text":""}]`), uint16(2), uint8(1))
	f.Add([]byte(`[{"type":"text","text":"a\ud800b"},{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]`), uint16(1), uint8(2))
	f.Add([]byte(`{"content":[{"type":"text","text":"`+strings.Repeat("word\n", 900)+`"},{"type":"resource","resource":{}}],"isError":true}`), uint16(300), uint8(4))
	f.Add([]byte(`[{"type":"text","text":"`+strings.Repeat("😀", 700)+`"}]`), uint16(5), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, b uint16, which uint8) {
		res, err := ParseResult(data)
		if err != nil {
			return
		}
		v := harnessVariants[int(which)%len(harnessVariants)]
		bud := int64(b)
		locator := "/p/s/tool-results/toolu_f.txt"
		if v.params["content"] == "array" {
			locator = "/p/s/tool-results/toolu_f.json"
		}
		opts := Options{Policy: v.name, Params: v.params, Budget: &bud, Estimator: EstimatorBytes4, SpillPath: locator}
		o, err := Retain(res, opts)
		if err != nil {
			t.Fatalf("Retain: %v", err)
		}
		_, s, _ := opts.Settings(&bud)
		if v.name == "codex" {
			checkCodex(t, res, s, o)
		} else {
			checkClaude(t, res, s, locator, o)
		}
	})
}

// FuzzHarnessRecognisers: the recognisers never panic, stay inside the
// text, and find what the formatters write after any prefix.
func FuzzHarnessRecognisers(f *testing.F) {
	f.Add("Chunk ID: x\nOriginal token count: 12\nOutput:\nWarning: truncated output (original token count: 12)\nTotal output lines: 3\n\nab…2 tokens truncated…cd", "", int64(5))
	f.Add("<persisted-output>\nOutput too large (1KB). Full output saved to: /a\n\nPreview (first 2KB):\nx\n...\n</persisted-output>", "pre", int64(1500))
	f.Add("result (1,234 characters across 2 lines) exceeds maximum allowed tokens. Output has been saved to /x.", "", int64(0))
	f.Add("MCP tool \"t\" response (99 tokens) exceeds maximum allowed tokens (10)", "…9 chars truncated…", int64(99999999))
	f.Fuzz(func(t *testing.T, text, path string, n int64) {
		if c, ok := RecogniseCodexTruncation(text); ok {
			if c.HeaderEnd > len(text) {
				t.Fatal("header past the end")
			}
			for _, m := range c.Markers {
				if m.Start < 0 || m.End > len(text) || m.Start >= m.End {
					t.Fatalf("marker %+v", m)
				}
			}
		}
		if p, ok := RecogniseClaudePersistedOutput(text); ok && (p.End > len(text) || p.PreviewEnd < p.PreviewStart) {
			t.Fatalf("wrapper %+v", p)
		}
		if r, ok := RecogniseClaudeTokenLimit(text); ok && r.End > len(text) {
			t.Fatalf("limit %+v", r)
		}
		if s, ok := RecogniseClaudeMCPSaved(text); ok && s.End > len(text) {
			t.Fatalf("saved %+v", s)
		}
		RecogniseClaudeMCPTruncated(text)
		RecogniseCodexPersistenceCut(text)
		ParseClaudeSize(text)
		if n < 0 {
			n = -n
		}
		if n < 0 || strings.ContainsAny(path, "\n") {
			return
		}
		msg := ClaudePersistedMessage(n, path, text, true)
		if p, ok := RecogniseClaudePersistedOutput(msg); !ok || (!strings.Contains(path+text, ClaudePersistedOpen) && (p.Path != path || msg[p.PreviewStart:p.PreviewEnd] != text)) {
			t.Fatalf("own wrapper not recognised: %+v", p)
		}
		if lo, hi := ParseClaudeSize(ClaudeFormatSize(n)); n < lo || n > hi {
			t.Fatalf("size %d -> %q -> [%d, %d]", n, ClaudeFormatSize(n), lo, hi)
		}
		h := CodexHeader(n, n/3) + "x" + codexMarker(n%2 == 0, n) + "y"
		if c, ok := RecogniseCodexTruncation(h); !ok || !c.Warning || c.Lines != n/3 || c.OriginalTokens != (n+3)/4 || len(c.Markers) != 1 || c.Markers[0].Count != n {
			t.Fatalf("own header not recognised: %+v", c)
		}
	})
}

// utf16Len counts eight bytes at a time; it must agree with encoding the
// text as UTF-16 at every length and alignment.
func TestUTF16LenWords(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 2000; i++ {
		s := randomText(r, r.Intn(80))
		if i%3 == 0 {
			s = strings.Repeat("a", r.Intn(17)) + s
		}
		if got, want := utf16Len(s), len(utf16.Encode([]rune(s))); got != want {
			t.Fatalf("utf16Len(%q) = %d, want %d", s, got, want)
		}
	}
}

// One Analysis shared by goroutines running codex and claude-code at
// different settings (the window and a comparison at once): each gets what
// a sequential run gets, and what the policies derive and keep on the
// Analysis is built once. Run under -race.
func TestHarnessPoliciesConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	res := Result{Content: []Block{textBlock(randomText(r, 90000)), textBlock(randomText(r, 9000))}}
	e, _ := LookupEstimator(EstimatorBytes4)
	runs := []struct {
		policy string
		params Params
	}{
		{"codex", Params{"limit": "3000"}},
		{"codex", Params{"limit": "3000", "mcp": "true"}},
		{"codex", Params{"limit": "900", "history": "true"}},
		{"claude-code", Params{"threshold": "20000"}},
		{"claude-code", Params{"content": "array"}},
	}
	want := make([]Outcome, len(runs))
	for i, rc := range runs {
		a, _ := Analyse(res, e, "", AnalyseOptions{})
		want[i], _ = a.Decide(rc.policy, rc.params)
	}
	shared, _ := Analyse(res, e, "", AnalyseOptions{})
	done := make(chan string, 20)
	for g := 0; g < 20; g++ {
		go func(g int) {
			rc := runs[g%len(runs)]
			got, err := shared.Decide(rc.policy, rc.params)
			switch {
			case err != nil:
				done <- err.Error()
			case !reflect.DeepEqual(got, want[g%len(runs)]):
				done <- fmt.Sprintf("%s %v: a concurrent decision differs from a sequential one", rc.policy, rc.params)
			default:
				done <- ""
			}
		}(g)
	}
	for g := 0; g < 20; g++ {
		if msg := <-done; msg != "" {
			t.Fatal(msg)
		}
	}
}
