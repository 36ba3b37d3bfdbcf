package retention

import (
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// summaryOf builds res's summary on route with est (the route's estimator
// in the index) and round-trips it through its encoding.
func summaryOf(t testing.TB, res Result, route string, est Estimator, call Call) *Summary {
	t.Helper()
	a, err := Analyse(res, est, route, AnalyseOptions{Call: call})
	if err != nil {
		t.Fatal(err)
	}
	built := BuildSummary(a)
	sum, err := DecodeSummary(built.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !equalSummaries(sum, built) {
		t.Fatal("summary changed in its encoding")
	}
	return sum
}

func sketchOn(t testing.TB, sum *Summary, est Estimator, call Call) *Analysis {
	t.Helper()
	sk, err := sum.Sketch(est, call)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// figures are what a sweep reads of an outcome.
type figures struct {
	Status                      string
	Tokens                      Tokens
	OmittedBytes                int64
	OmittedImages               int
	Recovery                    Recovery
	Notice                      string
	HeadEnd, TailStart          *Position
	Budget                      *int64
	OriginalExactWhenCut, Route string
}

// figuresOf reads o as a sweep does: an original kept in place and counted
// only in part gets the exact count (exact), as the index's count replaces
// it (sessions.UseCountedTotal).
func figuresOf(o Outcome, exact int) figures {
	keeps := o.Status != StatusReplaced && o.Status != StatusNoticeOnly
	if keeps && !o.OriginalTokensExact {
		o.Tokens.Total = exact
		o.Tokens.Text = exact - o.Tokens.Images - o.Tokens.Notice
	}
	f := figures{Status: o.Status, Tokens: o.Tokens, OmittedBytes: o.OmittedBytes, OmittedImages: o.OmittedImages,
		Recovery: o.Recovery, Notice: o.Notice, HeadEnd: o.HeadEnd, TailStart: o.TailStart, Budget: o.Budget, Route: o.Route}
	if o.Status == StatusReplaced || o.Status == StatusNoticeOnly {
		// Counted early on the text, exactly on the summary: the sweep
		// reports the index's exact count, never this.
		f.OriginalExactWhenCut = ""
	}
	return f
}

// sketchResult is a result for the sketch properties: mostly one text
// block, sometimes with images around it or several texts between images,
// now and then two texts side by side (a long one and a short one after
// it more often).
func sketchResult(r *rand.Rand, images []Block) Result {
	size := func() int {
		switch r.Intn(5) {
		case 0:
			return r.Intn(40)
		case 1:
			return 4000 + r.Intn(12000)
		}
		return r.Intn(3000)
	}
	text := func() Block { return textBlock(tableText(r, size())) }
	switch r.Intn(6) {
	case 0:
		return Result{Content: []Block{images[r.Intn(len(images))], text(), images[r.Intn(len(images))]}}
	case 1:
		return Result{Content: []Block{text(), images[r.Intn(len(images))], text()}}
	case 2:
		if r.Intn(3) == 0 {
			return Result{Content: []Block{text(), text()}}
		}
	case 3:
		// A long text and a short one after it (a host's trailer): cuts
		// keep the short one whole after a tail of the long one.
		if r.Intn(2) == 0 {
			return Result{Content: []Block{textBlock(tableText(r, 4000+r.Intn(8000))), textBlock(tableText(r, 1+r.Intn(300)))}}
		}
	}
	return Result{Content: []Block{text()}}
}

// randomBudgets are budgets over the whole range: log-uniform up to past
// the result's price, and at its edges.
func randomBudgets(r *rand.Rand, total int) []int64 {
	out := []int64{int64(total), int64(total - 1), int64(total / 2), 0, 30, 60}
	for range 14 {
		out = append(out, int64(float64(total+10)*pow10(r.Float64()*3-3)*1.3))
	}
	var ok []int64
	for _, b := range out {
		if b >= 0 {
			ok = append(ok, b)
		}
	}
	return ok
}

func pow10(x float64) float64 {
	v := 1.0
	for x >= 1 {
		v *= 10
		x--
	}
	for x < 0 {
		v /= 10
		x++
	}
	// 10^x for x in [0,1) by its series is not needed to be exact: any
	// spread of budgets serves.
	return v * (1 + 9*x)
}

// The property: a decision on a sketch equals the decision on the text, for
// every policy that opts in, on every estimator a sketch supports, at random
// budgets; and the sketch declines (SketchFailed) rather than guess.
func TestSketchEqualsText(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	images := []Block{writePNG(t, dir, 64, 64), writePNG(t, dir, 800, 600), {Type: TypeImage, MimeType: "image/png", Data: b64(pngBytes(t, 20, 20))}}
	r := rand.New(rand.NewSource(20261201))
	type pair struct{ route, est, decide string }
	pairs := []pair{
		{"anthropic", EstimatorO200k, EstimatorO200k},
		{"anthropic", EstimatorO200k, EstimatorMeter},
		{"openai-tile", EstimatorCL100k, EstimatorCL100k},
		{"anthropic", EstimatorMeter, EstimatorMeter},
	}
	pol, err := LookupPolicy("dsh-tokens")
	if err != nil {
		t.Fatal(err)
	}
	decided, declined := 0, 0
	why, whyYard := map[int]int{}, 0
	for trial := range 80 {
		pr := pairs[trial%len(pairs)]
		est, err := LookupEstimator(pr.est)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := LookupEstimator(pr.decide)
		if err != nil {
			t.Fatal(err)
		}
		res := sketchResult(r, images)
		call := Call{ToolName: "Bash"}
		if r.Intn(10) == 0 {
			call.ToolName = "Read"
		}
		real, err := Analyse(res, dec, pr.route, AnalyseOptions{Call: call})
		if err != nil {
			t.Fatal(err)
		}
		sum := summaryOf(t, res, pr.route, est, call)
		sk := sketchOn(t, sum, dec, call)
		yardReal, _ := Analyse(res, est, pr.route, AnalyseOptions{Call: call})
		yardSketch := sketchOn(t, sum, est, call)
		orig, _ := real.Original()
		for _, b := range randomBudgets(r, orig.Total) {
			s, err := pol.Info().Resolve(Params{"maxInlineTokens": itoa(int(b))})
			if err != nil {
				t.Fatal(err)
			}
			want := real.Run(pol, s)
			got := sk.Run(pol, s)
			if sk.SketchFailed() {
				declined++
				why[len(res.Content)]++
				sk = sketchOn(t, sum, dec, call)
				continue
			}
			decided++
			if !reflect.DeepEqual(figuresOf(got, orig.Total), figuresOf(want, orig.Total)) {
				t.Fatalf("trial %d (%v, blocks %d) budget %d:\nsketch %+v\ntext   %+v", trial, pr, len(res.Content), b, figuresOf(got, orig.Total), figuresOf(want, orig.Total))
			}
			pw, pg := Price(want, yardReal), Price(got, yardSketch)
			if yardSketch.SketchFailed() {
				declined++
				whyYard++
				yardSketch = sketchOn(t, sum, est, call)
				continue
			}
			// Own is the outcome's Tokens, compared above.
			pw.Own, pg.Own = Tokens{}, Tokens{}
			if !reflect.DeepEqual(pw, pg) {
				t.Fatalf("trial %d (%v) budget %d: priced on %s:\nsketch %+v\ntext   %+v", trial, pr, b, est.Name(), pg, pw)
			}
		}
	}
	t.Logf("%d decisions equal, %d declined (by blocks: %v; yardstick: %d)", decided, declined, why, whyYard)
	if declined*10 > decided {
		t.Errorf("sketches declined %d of %d decisions", declined, decided+declined)
	}
}

// A cut of a long text followed by a short one keeps the short one whole
// after a tail of the long one, written as one text: a sketch prices that
// join from the long block's joined tail table, equal to the decision on
// the text at every budget and estimator, and never declines it for want
// of a table (the texts hold no piece too long to split again).
func TestSketchJoinedTail(t *testing.T) {
	skipUnderRace(t)
	r := rand.New(rand.NewSource(1201))
	pol, err := LookupPolicy("dsh-tokens")
	if err != nil {
		t.Fatal(err)
	}
	words := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(trickyAlphabet[r.Intn(len(trickyAlphabet))])
		}
		return b.String()
	}
	for _, enc := range []string{EstimatorO200k, EstimatorCL100k} {
		t.Run(enc, func(t *testing.T) {
			est, err := LookupEstimator(enc)
			if err != nil {
				t.Fatal(err)
			}
			joined := 0
			for trial := range 12 {
				// The long text ends, and the short one starts, anywhere
				// in a word, a run of white space or punctuation.
				res := Result{Content: []Block{textBlock(words(2000 + r.Intn(6000))), textBlock(words(1 + r.Intn(200)))}}
				real, err := Analyse(res, est, "anthropic", AnalyseOptions{})
				if err != nil {
					t.Fatal(err)
				}
				sum := summaryOf(t, res, "anthropic", est, Call{})
				if sum.blocks[0].joined == nil {
					t.Fatalf("trial %d: no joined tail table on the next-to-last block", trial)
				}
				orig, _ := real.Original()
				for _, b := range randomBudgets(r, orig.Total) {
					s, err := pol.Info().Resolve(Params{"maxInlineTokens": itoa(int(b))})
					if err != nil {
						t.Fatal(err)
					}
					want := real.Run(pol, s)
					sk := sketchOn(t, sum, est, Call{})
					got := sk.Run(pol, s)
					if sk.SketchFailed() {
						t.Fatalf("trial %d budget %d: the sketch declined (text: %+v)", trial, b, figuresOf(want, orig.Total))
					}
					if !reflect.DeepEqual(figuresOf(got, orig.Total), figuresOf(want, orig.Total)) {
						t.Fatalf("trial %d budget %d:\nsketch %+v\ntext   %+v", trial, b, figuresOf(got, orig.Total), figuresOf(want, orig.Total))
					}
					if want.Status == StatusReplaced && want.TailStart != nil && want.TailStart.Block == 0 {
						joined++
					}
				}
			}
			if joined < 20 {
				t.Fatalf("only %d cuts kept a tail of the long text and the short one whole", joined)
			}
			t.Logf("%d cuts priced from the joined table", joined)
		})
	}
}

// tableAlphabet adds to trickyAlphabet what reaches past a piece: white
// space runs longer than the stable margin with line breaks in them (which
// line breaks appended join from their start), runs of upper-case letters
// after a letter of both cases, and pieces too long to split again.
var tableAlphabet = append(append([]string{}, trickyAlphabet...),
	"\n    ", "\n        \n", "\t\t\t\t\t\t", "        ", "ª"+strings.Repeat("A", 9)+"d", "ºQRSTUVW ",
	strings.Repeat("x", 700), strings.Repeat(" ", 600), strings.Repeat("\n", 600), strings.Repeat("/", 300)+"a")

func tableText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if r.Intn(40) == 0 {
			b.WriteString(tableAlphabet[len(trickyAlphabet)+r.Intn(len(tableAlphabet)-len(trickyAlphabet))])
			continue
		}
		b.WriteString(trickyAlphabet[r.Intn(len(trickyAlphabet))])
	}
	return b.String()
}

// Every prefix and suffix count in a table is the count of that exact
// string, and so are the joins it stores; entries too long to count are
// marked unknown, never guessed.
func TestTokenTableCountsExactStrings(t *testing.T) {
	skipUnderRace(t)
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(enc, func(t *testing.T) {
			m := mustModel(t, enc)
			r := rand.New(rand.NewSource(5))
			for trial := range 24 {
				text := tableText(r, r.Intn(1000))
				tab := buildTokenTable(newTextIndex(m, text), 1<<30)
				w := newWidthRuns(text)
				if tab.total != m.count(text) || tab.endNL != m.count(text+"\n\n") {
					t.Fatalf("trial %d: totals %d %d", trial, tab.total, tab.endNL)
				}
				known := func(v int32) bool { return v != unknownCount }
				for k := int64(0); k <= tab.kh; k++ {
					p := text[:w.offset(k)]
					if got, want := int(tab.p[k]), m.count(p); known(tab.p[k]) && got != want {
						t.Fatalf("trial %d: prefix %q counts %d, table %d", trial, p, want, got)
					}
					if got, want := int(tab.hc[k]), m.count(p+"\n\n"); known(tab.hc[k]) && got != want {
						t.Fatalf("trial %d: prefix+NL %q counts %d, table %d", trial, p, want, got)
					}
				}
				runes := int64(len([]rune(text)))
				unknown := 0
				for j := tab.jt; j <= runes; j++ {
					s := text[w.offset(j):]
					if got, want := int(tab.s[j-tab.jt]), m.count(s); known(tab.s[j-tab.jt]) && got != want {
						t.Fatalf("trial %d: suffix %q counts %d, table %d", trial, s, want, got)
					}
					if !known(tab.tg[j-tab.jt]) {
						unknown++
						continue
					}
					if got, want := int(tab.tg[j-tab.jt]), m.count(dshGapRest+s); got != want {
						t.Fatalf("trial %d: gap+suffix %q counts %d, table %d", trial, s, want, got)
					}
					e := int(tab.tg[j-tab.jt]) + tab.endNL - tab.total
					if v, ok := tab.tge[j]; ok {
						e = int(v)
					}
					if want := m.count(dshGapRest + s + "\n\n"); known(int32(e)) && e != want {
						t.Fatalf("trial %d: gap+suffix+NL %q counts %d, table %d", trial, s, want, e)
					}
				}
			}
		})
	}
}

// The split facts the sketch relies on: a piece boundary before the gap's
// "[" after "\n\n", and before the notice's "(" after "\n\n".
func TestJoinBoundaries(t *testing.T) {
	skipUnderRace(t)
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		m := mustModel(t, enc)
		r := rand.New(rand.NewSource(3))
		for range 400 {
			a, b := randomText(r, r.Intn(60)), randomText(r, r.Intn(60))
			if got, want := m.count(a+DshGap+b), m.count(a+"\n\n")+m.count(dshGapRest+b); got != want {
				t.Fatalf("%s: %q + gap + %q: %d, split %d", enc, a, b, got, want)
			}
			n := FormatSpillNotice(ExactOmission(int64(r.Intn(1e9))), SpillRef{}, r.Intn(3))
			if got, want := m.count(a+noticeSep+n), m.count(a+noticeSep)+m.count(n); got != want {
				t.Fatalf("%s: %q + notice: %d, split %d", enc, a, got, want)
			}
		}
	}
}

func TestWidthRuns(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for range 50 {
		text := randomText(r, r.Intn(300))
		w := newWidthRuns(text)
		k, u := int64(0), int64(0)
		for i := 0; i <= len(text); i++ {
			start := i == len(text) || text[i]&0xC0 != 0x80
			if got := i == len(text) || w.runeStart(int64(i)); got != start {
				t.Fatalf("%q: runeStart(%d) = %v", text, i, got)
			}
			if !start {
				continue
			}
			if w.runeIndex(int64(i)) != k || w.offset(k) != int64(i) || w.unitsBefore(k) != u {
				t.Fatalf("%q: byte %d rune %d units %d: got %d %d %d", text, i, k, u, w.runeIndex(int64(i)), w.offset(k), w.unitsBefore(k))
			}
			if i < len(text) {
				u += int64(utf16Len(string([]rune(text[i:])[0])))
				k++
			}
		}
		for limit := int64(-1); limit <= u+2; limit++ {
			want := int64(0)
			for kk := int64(0); kk <= k; kk++ {
				if w.unitsBefore(kk) <= limit {
					want = kk
				}
			}
			if got := w.maxRunesWithin(limit); got != want && limit > 0 {
				t.Fatalf("%q: maxRunesWithin(%d) = %d, want %d", text, limit, got, want)
			}
			wantS := k
			for j := k; j >= 0; j-- {
				if u-w.unitsBefore(j) <= limit {
					wantS = j
				}
			}
			if got := w.minRuneWithinSuffix(limit); got != wantS && limit >= 0 {
				t.Fatalf("%q: minRuneWithinSuffix(%d) = %d, want %d", text, limit, got, wantS)
			}
		}
	}
}

func TestLinesOutsideAt(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for range 300 {
		text := randomText(r, 1+r.Intn(200))
		var nl []int64
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' {
				nl = append(nl, int64(i))
			}
		}
		var kept [][2]int64
		for range r.Intn(3) {
			a := int64(r.Intn(len(text) + 1))
			b := a + int64(r.Intn(len(text)-int(a)+1))
			kept = append(kept, [2]int64{a, b})
		}
		k2 := append([][2]int64{}, kept...)
		if got, want := linesOutsideAt(int64(len(text)), nl, kept), linesOutside(text, k2); got != want {
			t.Fatalf("%q kept %v: %d, want %d", text, kept, got, want)
		}
	}
}

// A summary decodes to itself; bytes that are not a summary are an error.
func TestSummaryEncoding(t *testing.T) {
	est, _ := LookupEstimator(EstimatorO200k)
	a, err := Analyse(Result{Content: []Block{textBlock("hello\nworld é 🙂"), {Type: "audio", Raw: []byte(`{"type":"audio"}`)}}}, est, "anthropic", AnalyseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := BuildSummary(a)
	got, err := DecodeSummary(s.Encode())
	if err != nil || !equalSummaries(got, s) {
		t.Fatalf("round trip: %v", err)
	}
	for _, bad := range [][]byte{nil, []byte("not zstd"), s.Encode()[:5]} {
		if _, err := DecodeSummary(bad); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

// BenchmarkBuildSummary: summarising a 100 KB text block on o200k_base
// (what the index's summary phase spends per result), against counting it.
func BenchmarkBuildSummary(b *testing.B) {
	text := benchText(100_000)
	est, _ := LookupEstimator(EstimatorO200k)
	res := Result{Content: []Block{textBlock(text)}}
	b.Run("summary", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			a, _ := Analyse(res, est, "anthropic", AnalyseOptions{})
			BuildSummary(a)
		}
	})
	b.Run("count", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			est.Count(text)
		}
	})
}

// footerTokens prices every notice as counting it does.
func TestFooterTokens(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		est, _ := LookupEstimator(enc)
		m := est.(tiktokenEstimator).m
		for n := 1; n <= 3; n++ {
			for v := range int(pow10i(n)) {
				g := strconv.Itoa(v)
				g = strings.Repeat("0", n-len(g)) + g
				if got, want := m.digitGroup(g), m.pieceTokens(g); got != want {
					t.Fatalf("%s: digits %q: %d, counted %d", enc, g, got, want)
				}
			}
		}
		// The default reference, a spill path as sweeps name them, and
		// one whose path holds digits, spaces and a bracket.
		refs := []SpillRef{{}, {Locator: DshSpillLocator("/home/u/.local/share/spillscope/review", "sess-1", "0a1b2c3d4e5f", "Bash")},
			{Locator: "/tmp/run 2026/(1)/tool-00123.txt", Hint: "Open it."}}
		for i := range 3000 {
			ref := refs[i%len(refs)]
			a, _ := Analyse(Result{Content: []Block{textBlock("x")}}, est, "anthropic", AnalyseOptions{Call: Call{Spill: ref}})
			a.sketch = &sketchState{}
			n := int64(r.Intn(10)) * pow10i(r.Intn(13))
			n += int64(r.Intn(1000))
			pl := &sketchPlan{r: retained{omittedBytes: n, omittedImages: []int{0, 0, 1, 2, 9, 10, 123, 1000, 10007}[r.Intn(9)]}}
			pl.footer = FormatSpillNotice(ExactOmission(n), ref, pl.r.omittedImages)
			if got, want := a.footerTokens(pl), est.Count(pl.footer); got != want {
				t.Fatalf("%s: %q: %d, counted %d", enc, pl.footer, got, want)
			}
			if got, want := a.sepTokens(noticeSep, pl), est.Count(noticeSep+pl.footer); got != want {
				t.Fatalf("%s: sep + %q: %d, counted %d", enc, pl.footer, got, want)
			}
		}
	}
}

func pow10i(k int) int64 {
	v := int64(1)
	for range k {
		v *= 10
	}
	return v
}

// SameAbove holds: once a budget-monotone policy keeps a result within its
// budget, every larger budget gives the same outcome but for the budget.
func TestSameAbove(t *testing.T) {
	dir := t.TempDir()
	images := []Block{writePNG(t, dir, 64, 64), {Type: TypeImage, MimeType: "image/png", Data: b64(pngBytes(t, 20, 20))}}
	r := rand.New(rand.NewSource(21))
	for _, name := range []string{"dsh-tokens"} {
		pol, _ := LookupPolicy(name)
		for trial := range 40 {
			res := sketchResult(r, images)
			for _, en := range []string{EstimatorO200k, EstimatorMeter} {
				est, _ := LookupEstimator(en)
				a, _ := Analyse(res, est, "anthropic", AnalyseOptions{Call: Call{ToolName: []string{"Bash", "Read"}[r.Intn(2)]}})
				orig, _ := a.Original()
				var same *Outcome
				for b := int64(0); b <= int64(orig.Total)+40; b += 1 + int64(r.Intn(1+orig.Total/20)) {
					s, _ := pol.Info().Resolve(Params{pol.Info().Budget: itoa(int(b))})
					o := a.Run(pol, s)
					if same != nil {
						want := *same
						want.Budget = o.Budget
						if !reflect.DeepEqual(o, want) {
							t.Fatalf("%s trial %d at %d: %s then %+v", name, trial, b, same.Status, o.Status)
						}
					}
					if same == nil && SameAbove(pol, o) {
						same = &o
					}
				}
			}
		}
	}
}
