package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"spillscope/retention"
)

type compareOut struct {
	Route     string `json:"route"`
	Yardstick string `json:"yardstick"`
	Columns   []struct {
		Policy    string            `json:"policy"`
		Error     string            `json:"error"`
		Status    string            `json:"status"`
		Params    map[string]string `json:"params"`
		Content   []json.RawMessage `json:"content"`
		Spans     []retention.Span  `json:"spans"`
		Tokens    retention.Tokens  `json:"tokens"`
		Yardstick retention.Tokens  `json:"yardstick"`
		Omitted   retention.Loss    `json:"omitted"`
		Lost      retention.Loss    `json:"lost"`
		Locator   string            `json:"locator"`
	} `json:"columns"`
}

func runCompareCmd(t *testing.T, stdin string, args ...string) (int, compareOut, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}, append([]string{"compare"}, args...))
	var o compareOut
	if code == exitOK {
		if err := json.Unmarshal(out.Bytes(), &o); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out.String())
		}
	}
	return code, o, errb.String()
}

// TestCompareCommand: every column on its own estimator and on one shared
// yardstick, whose figure is the tokenizer's count of what the model sees;
// --param and --budget reach the policies under the harness's names.
func TestCompareCommand(t *testing.T) {
	text := strings.Repeat("compare this line of output\n", 4000)
	in, _ := json.Marshal([]map[string]string{{"type": "text", "text": text}})
	code, o, errs := runCompareCmd(t, string(in), "--policies", "opencode,goose,gemini-cli,dsh-tokens,dsh-pruner",
		"--param", "opencode.maxLines=100", "--param", "gemini-cli.era=current", "--budget", "3000", "--spill-path", "/spill/x.txt")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if o.Yardstick != retention.EncodingO200k || o.Route != retention.DefaultRoute || len(o.Columns) != 5 {
		t.Fatalf("route %s yardstick %s, %d columns", o.Route, o.Yardstick, len(o.Columns))
	}
	own := map[string]string{"opencode": "utf8-bytes", "goose": "code-points", "gemini-cli": "utf16-units", "dsh-tokens": "dsh-meter", "dsh-pruner": "dsh-meter"}
	for _, c := range o.Columns {
		if c.Error != "" || c.Tokens.Estimator != own[c.Policy] || c.Yardstick.Estimator != retention.EncodingO200k {
			t.Fatalf("%s: %s, own %s, yardstick %s", c.Policy, c.Error, c.Tokens.Estimator, c.Yardstick.Estimator)
		}
		var seen strings.Builder
		for _, raw := range c.Content {
			var b struct{ Text string }
			json.Unmarshal(raw, &b)
			seen.WriteString(b.Text)
		}
		n, err := retention.CountTokens(retention.EncodingO200k, seen.String())
		if err != nil || c.Yardstick.Total != n || c.Status == retention.StatusWithinBudget {
			t.Fatalf("%s %s: yardstick %d, the tokenizer counts %d", c.Policy, c.Status, c.Yardstick.Total, n)
		}
		if c.Omitted.Bytes == 0 || c.Omitted.Lines == 0 {
			t.Fatalf("%s: omitted %+v", c.Policy, c.Omitted)
		}
	}
	byPolicy := map[string]int{}
	for i, c := range o.Columns {
		byPolicy[c.Policy] = i
	}
	if p := o.Columns[byPolicy["opencode"]].Params; p["maxLines"] != "100" || p["maxBytes"] != "12000" {
		t.Fatalf("opencode params %v: want maxLines 100 and the slider's 3000 tokens as 12000 bytes", p)
	}
	if c := o.Columns[byPolicy["opencode"]]; c.Locator != "/spill/x.txt" || c.Lost.Bytes != 0 {
		t.Fatalf("opencode keeps all in %q, lost %+v", c.Locator, c.Lost)
	}
	if c := o.Columns[byPolicy["dsh-pruner"]]; c.Lost != c.Omitted {
		t.Fatalf("the pruner keeps nothing, yet lost %+v of %+v", c.Lost, c.Omitted)
	}
	if p := o.Columns[byPolicy["dsh-tokens"]].Params; p["maxInlineTokens"] != "3000" {
		t.Fatalf("dsh-tokens params %v", p)
	}
}

func TestCompareCommandErrors(t *testing.T) {
	in := `[{"type":"text","text":"x"}]`
	for _, tc := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"no policies from stdin", nil, "--policies is required", exitUsage},
		{"bad value names the parameter", []string{"--policies", "opencode", "--param", "opencode.maxLines=-1"}, "maxLines", exitUsage},
		{"unknown parameter", []string{"--policies", "goose", "--param", "goose.threshold=5"}, `no parameter "threshold"`, exitUsage},
		{"param of an absent policy", []string{"--policies", "goose", "--param", "opencode.maxLines=5"}, "not one of --policies", exitUsage},
		{"param without a policy", []string{"--policies", "goose", "--param", "maxLines=5"}, "policy.name=value", exitUsage},
		{"unknown policy", []string{"--policies", "nope"}, "unknown policy", exitUsage},
		{"bad budget", []string{"--policies", "goose", "--budget", "1.5"}, "fractional", exitUsage},
		{"bad estimator", []string{"--policies", "goose", "--estimator", "nope"}, "--estimator", exitUsage},
		{"not a result", []string{"--policies", "goose"}, "standard input", exitFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin := in
			if tc.name == "not a result" {
				stdin = "{"
			}
			code, _, errs := runCompareCmd(t, stdin, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.want)
			}
		})
	}
}
