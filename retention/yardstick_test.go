package retention

import (
	"math/rand"
	"strings"
	"testing"
)

// bruteLinesOutside counts, byte by byte, the lines holding a byte outside
// every kept interval.
func bruteLinesOutside(text string, kept [][2]int64) int64 {
	in := make([]bool, len(text))
	for _, k := range kept {
		for i := k[0]; i < k[1]; i++ {
			in[i] = true
		}
	}
	var n int64
	line, hit := 0, false
	for i := 0; i < len(text); i++ {
		if !in[i] {
			hit = true
		}
		if text[i] == '\n' || i == len(text)-1 {
			if hit {
				n++
			}
			line++
			hit = false
		}
	}
	return n
}

func TestLinesOutside(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for trial := 0; trial < 500; trial++ {
		var b strings.Builder
		for n := r.Intn(60); n > 0; n-- {
			if r.Intn(4) == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte('a' + byte(r.Intn(3)))
			}
		}
		text := b.String()
		if text == "" {
			continue
		}
		var kept [][2]int64
		at := int64(0)
		for at < int64(len(text)) && r.Intn(3) > 0 {
			s := at + int64(r.Intn(len(text)-int(at)+1))
			e := s + int64(r.Intn(len(text)-int(s)+1))
			kept = append(kept, [2]int64{s, e})
			at = e
		}
		if got, want := linesOutside(text, append([][2]int64{}, kept...)), bruteLinesOutside(text, kept); got != want {
			t.Fatalf("%q kept %v: %d lines outside, want %d", text, kept, got, want)
		}
	}
}

// TestPriceOneYardstick: every registered policy's outcome, priced with
// Price, has its own figure on its own estimator and a yardstick figure on
// the shared one, equal to an independent recount of what the model sees;
// what it omits is lost or recoverable as its recovery says.
func TestPriceOneYardstick(t *testing.T) {
	dir := t.TempDir()
	res := Result{Content: []Block{
		textBlock(strings.Repeat("yard stick line, with words\n", 3000)),
		writePNG(t, dir, 300, 200),
		textBlock(strings.Repeat("tail ✓\n", 400)),
	}}
	const route = "anthropic"
	src := Analyses(res, route, AnalyseOptions{Call: Call{ToolName: "run_shell_command", Spill: SpillRef{Locator: testSpill}}})
	yard, err := src("")
	if err != nil {
		t.Fatal(err)
	}
	var specs []CompareSpec
	slider := int64(2000)
	for _, info := range Policies() {
		specs = append(specs, CompareSpec{Policy: info.Name, SliderTokens: &slider})
	}
	cols, err := Compare(src, "", specs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cols {
		t.Run(c.Policy, func(t *testing.T) {
			if c.Error != "" {
				t.Fatal(c.Error)
			}
			p := c.Priced
			if p.Own != c.Outcome.Tokens || p.Own.Estimator != c.Info.Estimator {
				t.Fatalf("own %+v, outcome %+v, policy estimator %s", p.Own, c.Outcome.Tokens, c.Info.Estimator)
			}
			if p.Yardstick.Estimator != yard.Estimator().Name() {
				t.Fatalf("yardstick on %s, want %s", p.Yardstick.Estimator, yard.Estimator().Name())
			}
			if want := estimate(t, c.Outcome.Content, route, yard.Estimator().Name()); p.Yardstick.Total != want {
				t.Fatalf("yardstick %d, an independent recount %d", p.Yardstick.Total, want)
			}
			own, _ := src(c.Info.Estimator)
			if again := Price(c.Outcome, own); again.Yardstick != c.Outcome.Tokens {
				t.Fatalf("on its own estimator the yardstick is %+v, not its own %+v", again.Yardstick, c.Outcome.Tokens)
			}
			if p.Lost.Bytes+p.Recoverable.Bytes != p.Omitted.Bytes || p.Lost.Images+p.Recoverable.Images != p.Omitted.Images {
				t.Fatalf("lost %+v + recoverable %+v != omitted %+v", p.Lost, p.Recoverable, p.Omitted)
			}
			switch c.Outcome.Recovery.Kind {
			case RecoverNone:
				if p.Lost != p.Omitted {
					t.Fatalf("nothing recoverable, yet lost %+v of %+v", p.Lost, p.Omitted)
				}
			case RecoverFile:
				if p.Lost.Bytes != 0 || p.Locator != testSpill {
					t.Fatalf("a file keeps it all, yet lost %+v at %q", p.Lost, p.Locator)
				}
			}
			if p.Omitted.Bytes > 0 && p.Omitted.Lines == 0 {
				t.Fatalf("%d bytes omitted on no line", p.Omitted.Bytes)
			}
			if v, ok := SliderBudget(c.Info, slider); ok && c.Params[c.Info.Budget] != itoa(int(v)) {
				t.Fatalf("slider %d mapped to %s=%s, want %d", slider, c.Info.Budget, c.Params[c.Info.Budget], v)
			}
		})
	}
}

// TestCompareBadParam: a bad value fails its column only, naming the
// parameter.
func TestCompareBadParam(t *testing.T) {
	src := Analyses(Result{Content: []Block{textBlock("x")}}, "", AnalyseOptions{})
	cols, err := Compare(src, "", []CompareSpec{
		{Policy: "opencode", Params: Params{"maxLines": "-3"}},
		{Policy: "goose", Params: Params{"era": "newest"}},
		{Policy: "gemini-cli", Params: Params{"truncateToolOutputThreshold": "1.5"}},
		{Policy: "dsh-tokens"},
		{Policy: "no-such"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"maxLines", "era", "truncateToolOutputThreshold", "", "unknown policy"} {
		if want == "" {
			if cols[i].Error != "" || cols[i].Outcome.Status == "" {
				t.Errorf("column %d: %q", i, cols[i].Error)
			}
			continue
		}
		if !strings.Contains(cols[i].Error, want) {
			t.Errorf("column %d: error %q does not name %s", i, cols[i].Error, want)
		}
	}
}

func TestSliderBudget(t *testing.T) {
	for _, tc := range []struct {
		policy string
		tokens int64
		want   int64
		ok     bool
	}{
		{"dsh-tokens", 3000, 3000, true},
		{"dsh-bytes", 3000, 12000, true},
		{"opencode", 12800, 51200, true},
		{"goose", 50000, 200000, true},
		{"gemini-cli", 10000, 40000, true},
		{"dsh-pruner", 2048, 8192, true},
		{"opencode", MaxBudget, MaxBudget, true},
	} {
		got, ok := SliderBudget(mustPolicy(t, tc.policy).Info(), tc.tokens)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s at %d tokens: %d %v, want %d %v", tc.policy, tc.tokens, got, ok, tc.want, tc.ok)
		}
	}
}
