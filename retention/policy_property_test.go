package retention

import (
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkBytes asserts the byte era's invariants: one text block within the
// cap and smaller than the original, a kept prefix and suffix of the joined
// text cut on code points, kept + omitted = total, the notice recognised by
// both eras.
func checkBytes(t testing.TB, res Result, cap int64, o Outcome) {
	t.Helper()
	if o.Status != StatusReplaced && o.Status != StatusNoticeOnly {
		return
	}
	var flat strings.Builder
	for _, b := range res.Content {
		flat.WriteString(sanitize(b.Text))
	}
	full := flat.String()
	if len(o.Content) != 1 || o.Content[0].Type != TypeText {
		t.Fatalf("byte era content %+v", o.Content)
	}
	text := o.Content[0].Text
	if int64(len(text)) > cap || len(text) >= len(full) {
		t.Fatalf("replacement %d bytes, cap %d, original %d", len(text), cap, len(full))
	}
	if !HasSpillNotice(text, EraBytes) || !strings.HasSuffix(text, o.Notice) {
		t.Fatalf("notice not recognised in %q", text)
	}
	preview := strings.TrimSuffix(strings.TrimSuffix(text, o.Notice), "\n\n")
	var kept int64
	head := true
	var headLen int
	for _, sp := range o.Spans {
		if sp.Kind != SpanKept {
			continue
		}
		kept += sp.End - sp.Start
		s := sanitize(res.Content[sp.Block].Text)
		if (sp.Start < int64(len(s)) && !utf8.RuneStart(s[sp.Start])) || (sp.End < int64(len(s)) && !utf8.RuneStart(s[sp.End])) {
			t.Fatalf("span %+v cuts inside a code point", sp)
		}
		if head && sp.OutStart == int64(headLen) && strings.HasPrefix(full, preview[:sp.OutEnd]) {
			headLen = int(sp.OutEnd)
			continue
		}
		head = false
	}
	if !strings.HasPrefix(full, preview[:headLen]) || !strings.HasSuffix(full, preview[headLen:]) {
		t.Fatalf("preview %q is not a prefix %d and a suffix of the original", preview, headLen)
	}
	if kept+o.OmittedBytes != int64(len(full)) || int64(len(preview)) != kept {
		t.Fatalf("kept %d + omitted %d != %d", kept, o.OmittedBytes, len(full))
	}
}

// checkPruned asserts the pruner's: at most thresholdChars code points of
// text, a kept head and tail around one marker, non-text blocks in order.
func checkPruned(t testing.TB, res Result, s Settings, o Outcome) {
	t.Helper()
	if o.Status != StatusReplaced {
		return
	}
	points := 0
	for _, b := range o.Content {
		if b.Type == TypeText {
			points += utf8.RuneCountInString(b.Text)
		}
	}
	if int64(points) > s.Int("thresholdChars") {
		t.Fatalf("%d code points over %d", points, s.Int("thresholdChars"))
	}
	markers, kept := 0, int64(0)
	for _, sp := range o.Spans {
		switch sp.Kind {
		case SpanMarker:
			markers++
		case SpanKept:
			if res.Content[sp.Block].Type == TypeText {
				kept += sp.End - sp.Start
				src := sanitize(res.Content[sp.Block].Text)
				if src[sp.Start:sp.End] != o.Content[sp.Out].Text[sp.OutStart:sp.OutEnd] {
					t.Fatalf("span %+v is not the original", sp)
				}
			}
		}
	}
	var total int64
	for _, b := range res.Content {
		total += int64(len(sanitize(b.Text)))
	}
	if markers != 1 || kept+o.OmittedBytes != total {
		t.Fatalf("%d markers, kept %d + omitted %d != %d", markers, kept, o.OmittedBytes, total)
	}
}

// TestPolicyProperties: every policy on random results at random budgets
// keeps its invariants, and a sweep equals single runs.
func TestPolicyProperties(t *testing.T) {
	dir := t.TempDir()
	images := []Block{writePNG(t, dir, 64, 64), writePNG(t, dir, 800, 600)}
	r := rand.New(rand.NewSource(20261201))
	seen := map[string]map[string]int{}
	for trial := 0; trial < 40; trial++ {
		res := randomResult(r, images)
		if trial%3 == 0 { // text only, so the byte era cuts too
			var text []Block
			for _, b := range res.Content {
				if b.Type == TypeText {
					text = append(text, b)
				}
			}
			res.Content = append(text, textBlock(randomText(r, 9000)))
		}
		for _, pc := range []struct{ policy, est, route string }{
			{"dsh-tokens", EstimatorMeter, "deepseek-v4.1"},
			{"dsh-tokens", EstimatorMeter, "anthropic"},
			{"dsh-bytes", EstimatorMeter, ""},
			{"dsh-pruner", EstimatorMeter, ""},
		} {
			opts := Options{Policy: pc.policy, Estimator: pc.est, Route: pc.route, SpillPath: testSpill}
			if pc.policy == "dsh-pruner" {
				opts.Params = Params{"headChars": "300", "tailChars": "200"}
			}
			var size int64
			for _, b := range res.Content {
				size += int64(len(b.Text))
			}
			budgets := []int64{0, int64(r.Intn(400)), int64(r.Intn(4000)), size / 3, size, size + 1}
			if pc.policy == "dsh-pruner" {
				budgets = []int64{600, int64(600 + r.Intn(3000)), max(600, size/2), max(600, size)}
			}
			sweep, err := Sweep(res, budgets, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range budgets {
				o := opts
				o.Budget = &budgets[i]
				single := mustRetain(t, res, o)
				if seen[pc.policy] == nil {
					seen[pc.policy] = map[string]int{}
				}
				seen[pc.policy][single.Status]++
				if !reflect.DeepEqual(single, sweep[i]) {
					t.Fatalf("trial %d %s budget %d: sweep differs from a single run", trial, pc.policy, b)
				}
				switch pc.policy {
				case "dsh-tokens":
					checkReplacement(t, res, o, single)
					if single.OriginalTokensExact && int64(single.OriginalTokens) <= b && single.Status != StatusWithinBudget && single.Status != StatusPreserved {
						t.Fatalf("trial %d: %d tokens within %d but %s", trial, single.OriginalTokens, b, single.Status)
					}
				case "dsh-bytes":
					checkBytes(t, res, b, single)
				case "dsh-pruner":
					_, s, _ := o.Settings(&budgets[i])
					checkPruned(t, res, s, single)
				}
			}
		}
	}
	t.Logf("statuses: %v", seen)
	for p, st := range seen {
		if st[StatusReplaced] == 0 {
			t.Errorf("%s never replaced a result: %v", p, st)
		}
	}
}

// FuzzPolicies feeds arbitrary tool-result JSON and budgets to every policy:
// no panic, and every replacement keeps its invariants.
func FuzzPolicies(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hello world"}]}`), uint16(3), uint8(0))
	f.Add([]byte(`[{"type":"text","text":"日本語\u0301🙂 12345 \n\n  x"},{"type":"text","text":""}]`), uint16(40), uint8(1))
	f.Add([]byte(`[{"type":"text","text":"a\ud800b"},{"type":"image","data":"iVBORw0KGgo="}]`), uint16(60), uint8(2))
	f.Add([]byte(`[{"type":"text","text":"`+strings.Repeat("word ", 900)+`"},{"type":"resource","resource":{}}]`), uint16(300), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, b uint16, which uint8) {
		res, err := ParseResult(data)
		if err != nil {
			return
		}
		policy := []string{"dsh-tokens", "dsh-bytes", "dsh-pruner"}[int(which)%3]
		bud := int64(b)
		opts := Options{Policy: policy, Budget: &bud, Estimator: EstimatorMeter, SpillPath: testSpill}
		if policy == "dsh-pruner" {
			opts.Params = Params{"headChars": "10", "tailChars": "10"}
			bud += 60
		}
		o, err := Retain(res, opts)
		if err != nil {
			t.Fatalf("Retain: %v", err)
		}
		switch policy {
		case "dsh-tokens":
			checkReplacement(t, res, opts, o)
		case "dsh-bytes":
			checkBytes(t, res, bud, o)
		default:
			_, s, _ := opts.Settings(&bud)
			checkPruned(t, res, s, o)
		}
	})
}

// One Analysis shared by goroutines deciding at different budgets (the
// window and a sweep at once): each gets what a sequential run gets. Run
// under -race.
func TestAnalysisConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	res := Result{Content: []Block{textBlock(randomText(r, 80000)), textBlock(randomText(r, 9000))}}
	for _, est := range []string{EstimatorMeter, EncodingO200k} {
		e, err := LookupEstimator(est)
		if err != nil {
			t.Fatal(err)
		}
		budgets := []string{"300", "1200", "5000", "12500", "40"}
		want := make([]Outcome, len(budgets))
		for i, b := range budgets {
			a, _ := Analyse(res, e, "", AnalyseOptions{})
			want[i], _ = a.Decide("dsh-tokens", Params{"maxInlineTokens": b})
		}
		shared, _ := Analyse(res, e, "", AnalyseOptions{})
		done := make(chan error, 16)
		for g := 0; g < 16; g++ {
			go func(g int) {
				i := g % len(budgets)
				got, err := shared.Decide("dsh-tokens", Params{"maxInlineTokens": budgets[i]})
				if err == nil && !reflect.DeepEqual(got, want[i]) {
					err = errors.New(est + ": a concurrent decision differs from a sequential one at " + budgets[i])
				}
				done <- err
			}(g)
		}
		for g := 0; g < 16; g++ {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Repricing an outcome on the estimator it was decided on gives its own
// figures; on another estimator, what that estimator counts.
func TestRepriceYardstick(t *testing.T) {
	dir := t.TempDir()
	res := Result{Content: []Block{textBlock(strings.Repeat("yard stick line 7\n", 2000)), writePNG(t, dir, 300, 200), textBlock("end")}}
	meter, _ := LookupEstimator(EstimatorMeter)
	o200k, _ := LookupEstimator(EncodingO200k)
	for _, policy := range []string{"dsh-tokens", "dsh-pruner"} {
		a, _ := Analyse(res, meter, "deepseek-v4.1", AnalyseOptions{Call: Call{Spill: SpillRef{Locator: testSpill}}})
		p := Params{"maxInlineTokens": "900"}
		if policy == "dsh-pruner" {
			p = Params{"thresholdChars": "2000", "headChars": "500", "tailChars": "500"}
		}
		o, err := a.Decide(policy, p)
		if err != nil || o.Status != StatusReplaced {
			t.Fatalf("%s: %v %s", policy, err, o.Status)
		}
		if got := a.Reprice(o); got != o.Tokens {
			t.Errorf("%s: repriced on its own estimator %+v, outcome %+v", policy, got, o.Tokens)
		}
		y, _ := Analyse(res, o200k, "deepseek-v4.1", AnalyseOptions{Call: Call{Spill: SpillRef{Locator: testSpill}}})
		got := y.Reprice(o)
		if want := estimate(t, o.Content, "deepseek-v4.1", EncodingO200k); got.Total != want || got.Estimator != EncodingO200k {
			t.Errorf("%s: yardstick %+v, want a total of %d", policy, got, want)
		}
	}
}
