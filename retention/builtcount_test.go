package retention

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// joinText is random text that exercises the split's joins: runs of spaces,
// tabs and newlines, contractions, digits, punctuation, CJK and emoji.
func joinText(r *rand.Rand, n int) string {
	parts := []string{"word", "Word", " ", "  ", "   ", "\n", "\n\n", " \n", "\t", "'s", "'re", "123", "45678", "...", "[...]",
		"}{", "{\"k\": 1}", "路径", "中文字", "😀", "é", "\r\n", "-", "/", "x", "The", " the", " a"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(parts[r.Intn(len(parts))])
	}
	return b.String()
}

// runeAt moves i back to a rune start of s.
func runeAt(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// TestCountRunsIsTheWholeCount checks the tabled count of written text
// against counting it whole, on both encodings: heads and tails with every
// kind of join, and ranges from the middle of a text.
func TestCountRunsIsTheWholeCount(t *testing.T) {
	joins := []string{"", " ", "\n", "\n\n[...]\n\n", "x", "  \n", "'s", "😀", "\n\n[Output truncated: 123 bytes]", " 中"}
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(enc, func(t *testing.T) {
			m, err := getModel(enc)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewSource(7))
			for trial := range 60 {
				text := joinText(r, 8192+r.Intn(40000))
				x := newTextIndex(m, text)
				h := runeAt(text, r.Intn(len(text)))
				j := runeAt(text, h+r.Intn(len(text)-h+1))
				gap, end := joins[r.Intn(len(joins))], joins[r.Intn(len(joins))]
				x.cover(0, h)
				x.cover(j, len(text))
				written := text[:h] + gap + text[j:] + end
				runs := []keptRun{{x: x, o: 0, s: 0, e: h}, {x: x, o: h + len(gap), s: j, e: len(text)}}
				if got, want := countRuns(m, written, runs), m.count(written); got != want {
					t.Fatalf("trial %d: head %d, tail from %d of %d bytes, gap %q, end %q: tabled %d, whole %d", trial, h, j, len(text), gap, end, got, want)
				}
				// A range from the middle, inside both tables.
				x.growHeadTo(len(text))
				x.buildTail(runeAt(text, r.Intn(len(text)/2)))
				a := runeAt(text, x.tbase+r.Intn(len(text)-x.tbase))
				b := runeAt(text, a+r.Intn(len(text)-a+1))
				lead := joins[r.Intn(len(joins))]
				written = lead + text[a:b] + end
				runs = []keptRun{{x: x, o: len(lead), s: a, e: b}}
				if got, want := countRuns(m, written, runs), m.count(written); got != want {
					t.Fatalf("trial %d: range %d:%d of %d bytes, lead %q, end %q: tabled %d, whole %d", trial, a, b, len(text), lead, end, got, want)
				}
			}
		})
	}
}

// TestWrittenCountMatchesCounting runs the policies that write content at
// many budgets over a text large enough for the tables and checks that every
// written text block counts as counting it whole, on the policy's own
// estimator and on a yardstick.
func TestWrittenCountMatchesCounting(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	res := Result{Content: []Block{textBlock(joinText(r, 300_000)), textBlock(joinText(r, 20_000))}}
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		est, err := LookupEstimator(enc)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Analyse(res, est, "", AnalyseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, pol := range []string{"dsh-tokens", "dsh-bytes", "codex", "opencode", "goose"} {
			t.Run(enc+"/"+pol, func(t *testing.T) {
				tabled := 0
				for b := int64(600); b < 400_000; b = b * 3 / 2 {
					p, s, err := Options{Policy: pol}.Settings(&b)
					if err != nil {
						t.Fatal(err)
					}
					o := a.Run(p, s)
					for i, blk := range o.Content {
						if blk.Type != TypeText {
							continue
						}
						if n, ok := a.countWritten(o.Content, o.Spans, i); ok {
							tabled++
							if want := est.Count(blk.Text); n != want {
								t.Fatalf("budget %d: block %d of %d bytes: tabled %d, whole %d", b, i, len(blk.Text), n, want)
							}
						}
					}
					// The same outcome on the other encoding's Analysis (a yardstick).
					if got, want := yardOf(t, res, enc).Reprice(o), repriceWhole(t, o, enc); got != want {
						t.Fatalf("budget %d: yardstick %+v, counted whole %+v", b, got, want)
					}
				}
				t.Logf("%d blocks read from tables", tabled)
				if tabled == 0 {
					t.Fatal("no written block was read from the tables: the test checks nothing")
				}
			})
		}
	}
}

var yards = map[string]*Analysis{}

// yardOf is one Analysis of res on the other encoding, kept across budgets
// as the window keeps its yardstick.
func yardOf(t *testing.T, res Result, enc string) *Analysis {
	other := EncodingCL100k
	if enc == EncodingCL100k {
		other = EncodingO200k
	}
	if y, ok := yards[other]; ok {
		return y
	}
	est, err := LookupEstimator(other)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Analyse(res, est, "", AnalyseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yards[other] = y
	return y
}

// repriceWhole is Reprice on a fresh Analysis whose tables hold nothing yet
// beyond what Analyse builds, with every text block counted whole.
func repriceWhole(t *testing.T, o Outcome, enc string) Tokens {
	other := EncodingCL100k
	if enc == EncodingCL100k {
		other = EncodingO200k
	}
	est, err := LookupEstimator(other)
	if err != nil {
		t.Fatal(err)
	}
	var tk Tokens
	tk.Estimator = est.Name()
	notice := map[int]string{}
	for _, sp := range o.Spans {
		if sp.Kind == SpanNotice && o.Content[sp.Out].Type == TypeText {
			notice[sp.Out] = o.Content[sp.Out].Text[sp.OutStart:sp.OutEnd]
		}
	}
	for i, b := range o.Content {
		if b.Type != TypeText {
			continue
		}
		n := est.Count(b.Text)
		if nt, ok := notice[i]; ok {
			k := min(est.Count(nt), n)
			tk.Notice += k
			n -= k
		}
		tk.Text += n
	}
	tk.Total = tk.Text + tk.Images + tk.Notice
	return tk
}
