package sessions

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spillscope/retention"
)

// TestPlaceLane: results are first carried by the first call placed after
// them, compactions first seen by the call after them; a result leaves the
// context at the first call after a compaction that drops everything, or
// after what replaced it; lanes without lines are ordered by time.
func TestPlaceLane(t *testing.T) {
	call := func(line int64, at string, prompt int64) TimelineCall {
		return TimelineCall{Line: line, At: at, Prompt: prompt, Input: prompt}
	}
	res := func(id, line int64, at string, tokens int64, replacedLine int64) TimelineResult {
		return TimelineResult{ID: id, Line: line, At: at, Tokens: tokens, Until: int(replacedLine)}
	}
	tests := []struct {
		name        string
		lane        TimelineLane
		carried     []int // each result's Call
		until       []int // each result's Until
		compactions []int // each compaction's Call
		peak        int
		window      int64
		source      string
	}{
		{"by line: a result is carried by the next call, a drop ends it",
			TimelineLane{Model: "claude-sonnet-4-5",
				Calls:       []TimelineCall{call(5, "", 100), call(9, "", 300), call(20, "", 900), call(30, "", 200), call(40, "", 250)},
				Results:     []TimelineResult{res(1, 7, "", 150, 0), res(2, 8, "", 40, 0), res(3, 12, "", 500, 0), res(4, 33, "", 30, 0), res(5, 45, "", 9, 0)},
				Compactions: []TimelineCompaction{{Kind: CompactionClaude, Line: 25, DropsAll: true}}},
			[]int{1, 1, 2, 4, -1}, []int{3, 3, 3, -1, -1}, []int{3}, 2, 200_000, retention.WindowFromTable},
		{"by line: a replacement ends one result; a per-result compaction drops nothing",
			TimelineLane{Model: "deepseek-v4-flash",
				Calls: []TimelineCall{call(5, "", 100), {Line: 9, Prompt: 300, ContextWindow: 128_000}, call(20, "", 200),
					{Line: 30, Prompt: 220, ContextWindow: 1_000_000}},
				Results:     []TimelineResult{res(1, 7, "", 150, 22), res(2, 8, "", 40, 0)},
				Compactions: []TimelineCompaction{{Kind: CompactionDshPrune, Line: 21}}},
			[]int{1, 1}, []int{3, -1}, []int{3}, 1, 1_000_000, retention.WindowFromLog},
		{"by time: a database source with no lines",
			TimelineLane{Model: "gpt-5.5",
				Calls: []TimelineCall{call(0, "2026-03-02T16:00:41Z", 200), call(0, "2026-03-02T16:00:25Z", 100),
					call(0, "2026-03-02T16:01:24Z", 50), call(0, "2026-03-02T16:01:16Z", 400)},
				Results: []TimelineResult{res(1, 0, "2026-03-02T16:00:31Z", 60, 0), res(2, 0, "2026-03-02T16:00:45.5Z", 70, 0),
					res(3, 0, "", 5, 0)},
				Compactions: []TimelineCompaction{{Kind: CompactionGoose, At: "2026-03-02T16:01:16Z", DropsAll: true}}},
			[]int{1, 2, -1}, []int{3, 3, -1}, []int{3}, 2, 400_000, retention.WindowFromTable},
		{"an unknown model has no ceiling",
			TimelineLane{Model: "cli-mock", Calls: []TimelineCall{{Line: 3, Prompt: 3, Model: "cli-mock"}}},
			[]int{}, []int{}, []int{}, 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.lane
			l.Peak, l.ParentCall = -1, -1
			placeLane(&l)
			var carried, until, comps []int
			carried, until, comps = []int{}, []int{}, []int{}
			for _, r := range l.Results {
				carried = append(carried, r.Call)
				until = append(until, r.Until)
			}
			for _, c := range l.Compactions {
				comps = append(comps, c.Call)
			}
			if !reflect.DeepEqual(carried, tt.carried) || !reflect.DeepEqual(until, tt.until) || !reflect.DeepEqual(comps, tt.compactions) {
				t.Errorf("carried %v until %v compactions %v; want %v %v %v", carried, until, comps, tt.carried, tt.until, tt.compactions)
			}
			if l.Peak != tt.peak || l.ContextWindow != tt.window || l.ContextWindowSource != tt.source {
				t.Errorf("peak %d window %d (%s); want %d %d (%s)", l.Peak, l.ContextWindow, l.ContextWindowSource, tt.peak, tt.window, tt.source)
			}
			var n int
			var tok int64
			for _, c := range l.Calls {
				n += c.Carried
				tok += c.CarriedTokens
			}
			var wantN int
			var wantTok int64
			for _, r := range l.Results {
				if r.Call >= 0 {
					wantN++
					wantTok += r.Tokens
				}
			}
			if n != wantN || tok != wantTok {
				t.Errorf("calls carry %d results (%d tokens), want %d (%d)", n, tok, wantN, wantTok)
			}
		})
	}
}

// TestInContext: the results still in the context at a call, largest
// first.
func TestInContext(t *testing.T) {
	l := TimelineLane{Results: []TimelineResult{{ID: 1, Tokens: 10, Call: 1, Until: 3}, {ID: 2, Tokens: 50, Call: 1, Until: -1},
		{ID: 3, Tokens: 30, Call: 2, Until: -1}, {ID: 4, Tokens: 99, Call: -1, Until: -1}}}
	ids := func(rs []TimelineResult) []int64 {
		out := []int64{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	for k, want := range map[int][]int64{0: {}, 1: {2, 1}, 2: {2, 3, 1}, 3: {2, 3}} {
		if got := ids(l.InContext(k)); !reflect.DeepEqual(got, want) {
			t.Errorf("in context at %d: %v, want %v", k, got, want)
		}
	}
}

// TestCalibrate: constructed lanes whose provider figures are known
// exactly give the ratio and error they were built with; a call whose
// growth is mostly typed text moves the median no more than any other; a
// call after a compaction, or with no prompt count, is left out.
func TestCalibrate(t *testing.T) {
	lane := func(prompts, outputs, added []int64, skip ...int) CalibrationLane {
		l := CalibrationLane{Prompts: prompts, Outputs: outputs, Added: added, Skip: make([]bool, len(prompts)), Exact: true}
		for _, k := range skip {
			l.Skip[k] = true
		}
		return l
	}
	tests := []struct {
		name                   string
		lanes                  []CalibrationLane
		calls                  int
		ratio, errWant, spread float64
	}{
		// Each call adds 1.25 provider tokens per estimated token beside
		// the previous output: 1000 -> +50 output +1250 -> ...
		{"every call at 1.25", []CalibrationLane{lane(
			[]int64{1000, 2300, 2850, 5400}, []int64{50, 50, 50, 50}, []int64{0, 1000, 400, 2000})}, 3, 1.25, -0.2, 0},
		{"a runs-high estimate", []CalibrationLane{lane(
			[]int64{1000, 1850, 2290}, []int64{50, 40, 0}, []int64{0, 1000, 500})}, 2, 0.8, 0.25, 0},
		{"one typed-text call among five does not move the median", []CalibrationLane{lane(
			[]int64{1000, 2000, 3000, 4000, 5000, 26000}, []int64{0, 0, 0, 0, 0, 0}, []int64{0, 1000, 1000, 1000, 1000, 1000})}, 5, 1, 0, 0},
		{"compactions, missing prompts and calls that carried nothing are left out", []CalibrationLane{lane(
			[]int64{1000, 2500, 100, 0, 900, 1400, 1500}, []int64{0, 0, 0, 0, 0, 0, 0}, []int64{0, 1000, 500, 300, 300, 250, 0}, 2)}, 2, 1.5, -1.0 / 3, 0},
		{"lanes pool", []CalibrationLane{lane([]int64{10, 1010}, []int64{0, 0}, []int64{0, 1000}), lane([]int64{10, 3010}, []int64{0, 0}, []int64{0, 1000})},
			2, 1, 0, 0},
		{"nothing to compare", []CalibrationLane{lane([]int64{0, 0}, []int64{5, 5}, []int64{0, 100})}, 0, 0, 0, 0},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Calibrate("o200k_base", tt.lanes)
			if c.Calls != tt.calls || !near(c.Ratio, tt.ratio) || !near(c.Error, tt.errWant) || !near(c.Spread, tt.spread) || !c.Exact {
				t.Errorf("calls %d ratio %v error %v spread %v exact %v; want %d %v %v %v", c.Calls, c.Ratio, c.Error, c.Spread, c.Exact,
					tt.calls, tt.ratio, tt.errWant, tt.spread)
			}
			var p, e int64
			for _, pc := range c.PerCall {
				p += pc.Provider
				e += pc.Estimated
				if pc.Provider != pc.Growth-pc.Output || !near(pc.Ratio, float64(pc.Provider)/float64(pc.Estimated)) {
					t.Errorf("per call %+v", pc)
				}
			}
			if p != c.Provider || e != c.Estimated || len(c.PerCall) != c.Calls {
				t.Errorf("sums %d %d, per call %d %d", c.Provider, c.Estimated, p, e)
			}
		})
	}
}

// calibratedSession writes a Claude Code session whose provider figures
// are built from the estimates: each call's prompt grows by the previous
// output plus ratio times the o200k count of the results it carries (each
// text padded until its count times the ratio is whole), so the session's
// calibration on o200k_base is exactly ratio.
func calibratedSession(t testing.TB, root string, calls int, ratio float64) (path string, texts []string) {
	t.Helper()
	est, err := retention.LookupEstimator(retention.EstimatorO200k)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	prompt := int64(5000)
	ts := func(s int) string { return fmt.Sprintf("2026-01-01T00:%02d:%02d.000Z", s/60, s%60) }
	for i := range calls {
		out := int64(20 + i)
		b.WriteString(cLine(map[string]any{"type": "assistant", "sessionId": "cal", "timestamp": ts(2 * i), "requestId": fmt.Sprintf("req_%d", i),
			"cwd": "/home/u/proj", "message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "model": "claude-sonnet-4-5", "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i), "name": "Bash", "input": map[string]any{}}},
				"usage":   map[string]any{"input_tokens": 3, "output_tokens": out, "cache_read_input_tokens": prompt - 3, "cache_creation_input_tokens": 0}}}))
		if i == calls-1 {
			break
		}
		text := strings.Repeat(fmt.Sprintf("line %d of the output of command %d\n", i, i), 10+40*(i%5))
		for n := est.Count(text); math.Abs(float64(n)*ratio-math.Round(float64(n)*ratio)) > 1e-9; n = est.Count(text) {
			text += "x"
		}
		texts = append(texts, text)
		b.WriteString(cResult("cal", fmt.Sprintf("toolu_%d", i), text))
		prompt += out + int64(math.Round(float64(est.Count(text))*ratio))
	}
	path = filepath.Join(root, "projects", "-home-u-proj", "cal.jsonl")
	writeFile(t, path, b.String())
	return path, texts
}

// TestCalibrateSession: a constructed session's calibration on o200k_base
// comes out as constructed, from the stored counts (the timeline's) and
// from counting every result again (every estimator's).
func TestCalibrateSession(t *testing.T) {
	root := t.TempDir()
	_, texts := calibratedSession(t, root, 8, 1.25)
	d := openTemp(t)
	index(t, d, root)
	if err := d.Enrich(t.Context(), EnrichOptions{SkipSearch: true}); err != nil {
		t.Fatal(err)
	}
	s := onlySession(t, d)
	tl, err := d.Timeline(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Calls) != 8 || len(tl.Results) != len(texts) || tl.Peak != 7 || tl.ContextWindowSource != retention.WindowFromTable {
		t.Fatalf("timeline %d calls %d results peak %d window %s", len(tl.Calls), len(tl.Results), tl.Peak, tl.ContextWindowSource)
	}
	check := func(what string, c Calibration) {
		t.Helper()
		if c.Estimator != retention.EstimatorO200k || c.Calls != len(texts) || c.Ratio != 1.25 || math.Abs(c.Error+0.2) > 1e-12 || c.Spread != 0 || !c.Exact {
			t.Errorf("%s: %+v", what, c)
		}
	}
	check("stored counts", tl.Calibration)
	all, err := d.CalibrateSession(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range all {
		seen[c.Estimator] = true
		if c.Estimator == retention.EstimatorO200k {
			check("counted again", c)
		} else if c.Calls != len(texts) || c.Ratio <= 0 {
			t.Errorf("%s: %+v", c.Estimator, c)
		}
	}
	for _, n := range retention.EstimatorNames() {
		if seen[n] != retention.CountsTokens(n) {
			t.Errorf("estimator %s calibrated: %v", n, seen[n])
		}
	}
}

// TestFilled: at the peak every result is still in the context, largest
// first, each with its share of the prompt and what dsh-tokens at the
// budget would have left of it.
func TestFilled(t *testing.T) {
	root := t.TempDir()
	calibratedSession(t, root, 8, 1.25)
	d := openTemp(t)
	index(t, d, root)
	if err := d.Enrich(t.Context(), EnrichOptions{SkipSearch: true}); err != nil {
		t.Fatal(err)
	}
	s := onlySession(t, d)
	tl, _ := d.Timeline(t.Context(), s.ID)
	const budget = 300
	f, err := d.Filled(t.Context(), s.ID, FilledOptions{Call: -1, Budget: budget, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if f.Call != tl.Peak || f.Prompt != tl.Calls[tl.Peak].Prompt || len(f.Results) != 5 || f.Others != len(tl.Results)-5 || f.Policy != retention.DefaultPolicy {
		t.Fatalf("filled %+v", f)
	}
	var all int64
	for _, r := range tl.Results {
		all += r.Tokens
	}
	var saved int64
	for i, r := range f.Results {
		if i > 0 && r.Tokens > f.Results[i-1].Tokens {
			t.Errorf("result %d not largest first", i)
		}
		if r.Unread || math.Abs(r.Share-float64(r.Tokens)/float64(f.Prompt)) > 1e-12 {
			t.Errorf("result %+v", r)
		}
		// Over the budget the policy cuts it to about the budget; under
		// it the result stays whole.
		if r.Tokens > budget && (r.Status != retention.StatusReplaced || r.Saved <= 0 || r.Inline >= r.Tokens) {
			t.Errorf("result of %d tokens: %s, inline %d, saved %d", r.Tokens, r.Status, r.Inline, r.Saved)
		}
		if r.Tokens <= budget && (r.Saved != 0 || r.Inline != r.Tokens) {
			t.Errorf("small result of %d tokens: %s, inline %d, saved %d", r.Tokens, r.Status, r.Inline, r.Saved)
		}
		saved += r.Saved
	}
	if f.Tokens != all || f.Saved != saved {
		t.Errorf("tokens %d (want %d), saved %d (want %d)", f.Tokens, all, f.Saved, saved)
	}
	if _, err := d.Filled(t.Context(), s.ID, FilledOptions{Call: 99}); err == nil {
		t.Error("a call past the last one was accepted")
	}
}

// BenchmarkTimeline10k: the timeline of a 10,000-call session (a result
// carried by every call) builds from the index.
func BenchmarkTimeline10k(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	for i := range 10_000 {
		sb.WriteString(cAssistant("big", fmt.Sprintf("msg_%d", i), fmt.Sprintf("req_%d", i), fmt.Sprintf("toolu_%d", i), "Bash", 20))
		sb.WriteString(cResult("big", fmt.Sprintf("toolu_%d", i), fmt.Sprintf("output %d", i)))
	}
	writeFile(b, filepath.Join(root, "projects", "-home-u-proj", "big.jsonl"), sb.String())
	d := openTemp(b)
	index(b, d, root)
	s, err := d.BrowseSessions(b.Context(), SessionFilter{})
	if err != nil || len(s) != 1 {
		b.Fatal(s, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		tl, err := d.Timeline(b.Context(), s[0].ID)
		if err != nil || len(tl.Calls) != 10_000 || len(tl.Results) != 10_000 {
			b.Fatal(len(tl.Calls), err)
		}
	}
}
