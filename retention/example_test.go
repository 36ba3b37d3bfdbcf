package retention_test

import (
	"fmt"
	"strings"

	"spillscope/retention"
)

func ExampleRetain() {
	var lines []string
	for i := 1; i <= 2000; i++ {
		lines = append(lines, fmt.Sprintf("row %d: ok", i))
	}
	res := retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: strings.Join(lines, "\n")}}}
	budget := int64(120)
	out, err := retention.Retain(res, retention.Options{Budget: &budget, Estimator: retention.EstimatorMeter, SpillPath: "/spill/abc.txt"})
	if err != nil {
		panic(err)
	}
	text := out.Content[0].Text
	fmt.Println(out.Policy, out.Status, out.Tokens.Estimator, out.Tokens.Total <= 120)
	fmt.Println(strings.HasPrefix(text, "row 1: ok\nrow 2: ok"))
	fmt.Println(strings.Contains(text, "\n\n[...]\n\n"), strings.Contains(text, "row 2000: ok\n\n(Omitted "))
	fmt.Println(strings.HasSuffix(text, out.Notice))
	// Output:
	// dsh-tokens replaced dsh-meter true
	// true
	// true true
	// true
}

func ExampleSweep() {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 500)
	res := retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: text}}}
	outs, err := retention.Sweep(res, []int64{10, 39, 200, 100000}, retention.Options{Estimator: retention.EstimatorMeter, SpillPath: "/spill/fox.txt"})
	if err != nil {
		panic(err)
	}
	for _, o := range outs {
		fmt.Println(o.Status)
	}
	// Output:
	// preserved
	// notice_only
	// replaced
	// within_budget
}

func ExampleAnalyse() {
	est, err := retention.LookupEstimator(retention.EstimatorMeter)
	if err != nil {
		panic(err)
	}
	res := retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: strings.Repeat("x", 4000)}}}
	a, err := retention.Analyse(res, est, "deepseek-v4.1", retention.AnalyseOptions{
		Call: retention.Call{ToolName: "bash", Spill: retention.SpillRef{Locator: "/tmp/dsh-spill-a1/session-5e53dc8acfe4/2ce9d7a31a38-bash.txt"}},
	})
	if err != nil {
		panic(err)
	}
	// One Analysis, any policy and budget.
	for _, run := range []struct {
		policy string
		params retention.Params
	}{
		{"dsh-tokens", retention.Params{"maxInlineTokens": "300"}},
		{"dsh-bytes", retention.Params{"maxInlineBytes": "800"}},
		{"dsh-pruner", retention.Params{"thresholdChars": "1000", "headChars": "100", "tailChars": "50"}},
	} {
		o, err := a.Decide(run.policy, run.params)
		if err != nil {
			panic(err)
		}
		fmt.Println(o.Policy, o.Status, o.OmittedBytes, o.Recovery.Kind, o.Tokens.Total, o.Tokens.Estimator)
	}
	// Output:
	// dsh-tokens replaced 3064 file 287 dsh-meter
	// dsh-bytes replaced 3385 file 204 dsh-meter
	// dsh-pruner replaced 3850 none 52 dsh-meter
}

func ExampleFormatSpillNotice() {
	ref := retention.SpillRef{Locator: "/tmp/dsh-spill-x/session-5e53dc8acfe4/2ce9d7a31a38-web_fetch.txt"}
	fmt.Println(retention.FormatSpillNotice(retention.ExactOmission(48213), ref, 0))
	fmt.Println(retention.FormatSpillNotice(retention.ExactOmission(1200), ref, 2))
	// Output:
	// (Omitted 48213 bytes. Full formatted result stored at: /tmp/dsh-spill-x/session-5e53dc8acfe4/2ce9d7a31a38-web_fetch.txt. Use read with offset/limit, or grep this path to search within it.)
	// (Omitted 1200 bytes. Omitted 2 images. Full formatted result stored at: /tmp/dsh-spill-x/session-5e53dc8acfe4/2ce9d7a31a38-web_fetch.txt. Use read with offset/limit, or grep this path to search within it.)
}

func ExampleRecogniseNotice() {
	recorded := "first lines\nlast lines\n\n(Omitted 5120 bytes. Omitted 1 images. Full formatted result stored at: /tmp/s/x.txt. Use read with offset/limit, or grep this path to search within it.)"
	m, ok := retention.RecogniseNotice(recorded)
	fmt.Println(ok, m.Kind, m.OmittedBytes, m.OmittedImages, m.Path)
	fmt.Println(retention.HasSpillNotice(recorded, retention.EraBytes), retention.HasSpillNotice(recorded, retention.EraTokens))
	_, ok = retention.RecogniseNotice("no notice here")
	fmt.Println(ok)
	// Output:
	// true dsh-tokens 5120 1 /tmp/s/x.txt
	// false true
	// false
}

func ExampleReplay() {
	full := "SPILL_START-" + strings.Repeat("x", 2000) + "-SPILL_END"
	locator := "/tmp/dsh-acp-snap-ee77dff02/session-5e53dc8acfe4/2ce9d7a31a38-bash.txt"
	cap := int64(800)
	rec, err := retention.Retain(retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: full}}},
		retention.Options{Policy: "dsh-bytes", Budget: &cap, Estimator: retention.EstimatorMeter, SpillPath: locator})
	if err != nil {
		panic(err)
	}
	// The log holds what the model saw but not the cap: replay searches.
	rep, err := retention.Replay(retention.ReplayInput{
		Recorded: rec.Content, Policy: "dsh-bytes",
		Original: retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: full}}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(rec.Notice[:20], rep.Reproduced, rep.BudgetSource, rep.Range.Min <= cap && cap <= rep.Range.Max)
	// Output:
	// (Omitted 1417 bytes. true range true
}

func ExampleValidateBudget() {
	for _, v := range []float64{12500, -1, 0.5, 1 << 53} {
		b, err := retention.ValidateBudget(v)
		fmt.Println(b, err)
	}
	// Output:
	// 12500 <nil>
	// 0 retention: invalid budget: -1 is negative
	// 0 retention: invalid budget: 0.5 is fractional
	// 0 retention: invalid budget: 9007199254740992 is above the largest safe integer 9007199254740991
}

func ExampleCountTokens() {
	n, err := retention.CountTokens(retention.EncodingO200k, "hello world")
	fmt.Println(n, err)
	// Output:
	// 2 <nil>
}

func ExamplePolicies() {
	for _, p := range retention.Policies() {
		fmt.Println(p.Name, p.Budget, p.Unit, p.Params[0].Default, p.Estimator, p.Recoverable)
	}
	// Output:
	// claude-code threshold chars 50000 o200k_base file
	// codex limit tokens 10000 bytes4 none
	// dsh-bytes maxInlineBytes bytes 50000 dsh-meter file
	// dsh-pruner thresholdChars code points 8192 dsh-meter none
	// dsh-tokens maxInlineTokens tokens 12500 dsh-meter file
}
