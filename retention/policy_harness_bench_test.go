package retention

import (
	"strings"
	"testing"
)

// BenchmarkDecideHarnessPolicies is each of the codex and claude-code
// policies, with their parameter variants, on one warm Analysis of a 10 MB
// result built on the policy's own estimator (target: < 5 ms a decision),
// and on a result of 20,000 small text blocks (the many-parts case that
// one text block written once keeps linear).
func BenchmarkDecideHarnessPolicies(b *testing.B) {
	big := Result{Content: []Block{textBlock(benchText(10 << 20))}}
	var parts []Block
	for i := 0; i < 20000; i++ {
		parts = append(parts, textBlock(strings.Repeat("y", 50)+"\n"))
	}
	many := Result{Content: parts}
	for _, bc := range []struct {
		name, policy, est string
		res               Result
		params            Params
	}{
		{"codex/10MB", "codex", EstimatorBytes4, big, nil},
		{"codex-bytes/10MB", "codex", EstimatorBytes4, big, Params{"mode": "bytes"}},
		{"codex-history/10MB", "codex", EstimatorBytes4, big, Params{"history": "true"}},
		{"codex-mcp/10MB", "codex", EstimatorBytes4, big, Params{"mcp": "true", "mode": "bytes", "limit": "65536"}},
		{"claude-code/10MB", "claude-code", EncodingO200k, big, nil},
		{"claude-code-bash/10MB", "claude-code", EncodingO200k, big, Params{"tool": "Bash"}},
		{"claude-code-mcp-truncate/10MB", "claude-code", EncodingO200k, big, Params{"mcp": "truncate"}},
		{"codex/20000-blocks", "codex", EstimatorBytes4, many, nil},
		{"claude-code-array/20000-blocks", "claude-code", EncodingO200k, many, nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, err := LookupEstimator(bc.est)
			if err != nil {
				b.Fatal(err)
			}
			a, err := Analyse(bc.res, e, "", AnalyseOptions{Call: Call{ToolName: "mcp__srv__tool", Spill: SpillRef{Locator: "/p/s/tool-results/toolu_b.txt"}}})
			if err != nil {
				b.Fatal(err)
			}
			pol := mustPolicy(b, bc.policy)
			s, err := pol.Info().Resolve(bc.params)
			if err != nil {
				b.Fatal(err)
			}
			if o := a.Run(pol, s); o.Status != StatusReplaced {
				b.Fatal(o.Status, o.Diagnostics)
			}
			b.ReportAllocs()
			for b.Loop() {
				a.Run(pol, s)
			}
		})
	}
}
