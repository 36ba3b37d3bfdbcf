package retention

import (
	"strconv"
	"testing"
)

// The Analysis is built once per result, estimator and route; each budget,
// policy or parameter change is then only a decision on it. These
// benchmarks compare the two on 1 MB and 10 MB results, for each estimator.

var benchEstimators = []string{EstimatorMeter, EncodingO200k, EncodingCL100k}

var benchSizes = []struct {
	name string
	n    int
}{{"1MB", 1 << 20}, {"10MB", 10 << 20}}

// BenchmarkAnalyseAndDecide is a cold start: Analyse, then dsh-tokens at the
// shipped budget (a tokenizer's tables grow on the first decision).
func BenchmarkAnalyseAndDecide(b *testing.B) {
	for _, est := range benchEstimators {
		for _, sz := range benchSizes {
			b.Run(est+"/"+sz.name, func(b *testing.B) {
				e, err := LookupEstimator(est)
				if err != nil {
					b.Fatal(err)
				}
				res := Result{Content: []Block{textBlock(benchText(sz.n))}}
				b.ReportAllocs()
				b.SetBytes(int64(sz.n))
				for b.Loop() {
					a, err := Analyse(res, e, "", AnalyseOptions{Call: Call{Spill: SpillRef{Locator: "/spill/bench.txt"}}})
					if err != nil {
						b.Fatal(err)
					}
					if o, err := a.Decide("dsh-tokens", nil); err != nil || o.Status != StatusReplaced {
						b.Fatal(err, o.Status)
					}
				}
			})
		}
	}
}

// BenchmarkDecide is one decision on a warm Analysis, cycling through 40
// budgets (300 .. 39,300 tokens) as a slider or a sweep would.
func BenchmarkDecide(b *testing.B) {
	for _, est := range benchEstimators {
		for _, sz := range benchSizes {
			b.Run(est+"/"+sz.name, func(b *testing.B) {
				e, err := LookupEstimator(est)
				if err != nil {
					b.Fatal(err)
				}
				a, err := Analyse(Result{Content: []Block{textBlock(benchText(sz.n))}}, e, "", AnalyseOptions{Call: Call{Spill: SpillRef{Locator: "/spill/bench.txt"}}})
				if err != nil {
					b.Fatal(err)
				}
				pol := mustPolicy(b, "dsh-tokens")
				settings := make([]Settings, 40)
				for i := range settings {
					if settings[i], err = pol.Info().Resolve(Params{"maxInlineTokens": strconv.Itoa(300 + 1000*i)}); err != nil {
						b.Fatal(err)
					}
					a.Run(pol, settings[i])
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if o := a.Run(pol, settings[i%len(settings)]); o.Status != StatusReplaced {
						b.Fatal(o.Status)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkDecidePolicies is each dsh policy on one warm 10 MB Analysis.
func BenchmarkDecidePolicies(b *testing.B) {
	e, _ := LookupEstimator(EstimatorMeter)
	a, err := Analyse(Result{Content: []Block{textBlock(benchText(10 << 20))}}, e, "", AnalyseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{"dsh-tokens", "dsh-bytes", "dsh-pruner"} {
		b.Run(p, func(b *testing.B) {
			pol := mustPolicy(b, p)
			s, err := pol.Info().Resolve(nil)
			if err != nil {
				b.Fatal(err)
			}
			a.Run(pol, s)
			b.ReportAllocs()
			for b.Loop() {
				if o := a.Run(pol, s); o.Status != StatusReplaced {
					b.Fatal(o.Status)
				}
			}
		})
	}
}

// BenchmarkAllPoliciesAfterAnalysis is every registered policy, at its
// harness's shipped settings, deciding on a warm Analysis of one 10 MB
// result on its own estimator; /price adds pricing the outcome on the
// o200k_base yardstick (Price), as a comparison column does.
func BenchmarkAllPoliciesAfterAnalysis(b *testing.B) {
	res := Result{Content: []Block{textBlock(benchText(10 << 20))}}
	src := Analyses(res, "", AnalyseOptions{Call: Call{ToolName: "run_shell_command", Spill: SpillRef{Locator: "/spill/bench.txt"}}})
	yard, err := src(EncodingO200k)
	if err != nil {
		b.Fatal(err)
	}
	for _, info := range Policies() {
		pol := mustPolicy(b, info.Name)
		s, err := info.Resolve(nil)
		if err != nil {
			b.Fatal(err)
		}
		a, err := src(info.Estimator)
		if err != nil {
			b.Fatal(err)
		}
		o := a.Run(pol, s) // the first decision builds what the policy keeps per Analysis
		Price(o, yard)
		b.Run(info.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := a.Run(pol, s); got.Status != o.Status {
					b.Fatal(got.Status)
				}
			}
		})
		b.Run(info.Name+"/price", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Price(a.Run(pol, s), yard)
			}
		})
	}
}

// BenchmarkAllPolicies20000Blocks is every registered policy deciding on a
// warm Analysis of a result of 20,000 small text blocks (about 1.2 MB): the
// many-parts case, where content built by concatenating each kept part onto
// the open block is quadratic. /shipped is the harness's shipped settings;
// /half a budget of about half the result, so that thousands of parts are
// kept.
func BenchmarkAllPolicies20000Blocks(b *testing.B) {
	parts := make([]Block, 20000)
	var total int
	for i := range parts {
		parts[i] = textBlock("line " + strconv.Itoa(i) + " of a result cut into many small text blocks\n")
		total += len(parts[i].Text)
	}
	src := Analyses(Result{Content: parts}, "", AnalyseOptions{Call: Call{ToolName: "run_shell_command", Spill: SpillRef{Locator: "/spill/bench.txt"}}})
	for _, info := range Policies() {
		pol := mustPolicy(b, info.Name)
		half := total / 2
		if info.Unit == "tokens" {
			half = total / 8
		}
		a, err := src(info.Estimator)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range []struct {
			name   string
			params Params
		}{{"shipped", nil}, {"half", Params{info.Budget: strconv.Itoa(half)}}} {
			s, err := info.Resolve(v.params)
			if err != nil {
				b.Fatal(err)
			}
			o := a.Run(pol, s)
			b.Run(info.Name+"/"+v.name+"/"+o.Status, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if got := a.Run(pol, s); got.Status != o.Status {
						b.Fatal(got.Status)
					}
				}
			})
		}
	}
}
