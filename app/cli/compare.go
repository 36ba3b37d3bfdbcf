package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"spillscope/app"
	"strings"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/sessions"
)

const compareUsage = `usage: spillscope compare [--policies P,Q,...] [--param P.k=v]... [--budget N] [--route R]
                         [--estimator E] [--tool NAME] [--spill-path P] [--result ID [--db PATH] | < result.json]

Runs several retention policies on one tool result and prints one JSON object:
route, yardstick, harness and columns, one per policy, each with status,
content as the model sees it (images as {type,mimeType,path}), spans (kept,
marker, notice, wrapper, header), tokens (on the policy's own estimator: what
the harness believed), yardstick (the same content on the one yardstick every
column shares: the route's estimator, or --estimator), omitted, lost (what no
file keeps) and recoverable {bytes,lines,images}, locator, recoverNote, the
params used (defaults included) and diagnostics.

--result ID compares an indexed result as the window's "Compare policies"
does (route, tool and spill locator from the index; default policies: the
session's own harness's and dsh-tokens); without it the result is read from
standard input. --param names a policy and its parameter under the harness's
own name: --param opencode.maxLines=500 --param codex.limit=4000.
--budget N is the shared budget slider in tokens: it sets every policy's
budget parameter in its own unit (bytes and characters at 4 per token) unless
a --param sets it; without it each policy keeps its shipped budget.

Flags:
`

// compareColumn is one policy's outcome as `spillscope compare` prints it.
type compareColumn struct {
	Policy              string              `json:"policy"`
	Harness             string              `json:"harness,omitempty"`
	Error               string              `json:"error,omitempty"`
	Params              map[string]string   `json:"params,omitempty"`
	BudgetParam         string              `json:"budgetParam,omitempty"`
	BudgetUnit          string              `json:"budgetUnit,omitempty"`
	UnitsPerToken       int64               `json:"unitsPerToken"`
	Status              string              `json:"status,omitempty"`
	Content             []json.RawMessage   `json:"content,omitempty"`
	Spans               []retention.Span    `json:"spans,omitempty"`
	Notice              string              `json:"notice,omitempty"`
	Tokens              retention.Tokens    `json:"tokens"`
	Yardstick           retention.Tokens    `json:"yardstick"`
	OriginalTokens      int                 `json:"originalTokens"`
	OriginalTokensExact bool                `json:"originalTokensExact"`
	Omitted             retention.Loss      `json:"omitted"`
	Lost                retention.Loss      `json:"lost"`
	Recoverable         retention.Loss      `json:"recoverable"`
	Locator             string              `json:"locator,omitempty"`
	RecoverNote         string              `json:"recoverNote,omitempty"`
	Diagnostics         []string            `json:"diagnostics,omitempty"`
	HeadEnd             *retention.Position `json:"headEnd,omitempty"`
	TailStart           *retention.Position `json:"tailStart,omitempty"`
}

type compareOutput struct {
	Route     string          `json:"route"`
	Yardstick string          `json:"yardstick"`
	Harness   string          `json:"harness,omitempty"`
	Columns   []compareColumn `json:"columns"`
}

// runCompare compares policies on one result.
func runCompare(env Env, args []string) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	params := app.PolicyParams{}
	policies := fs.String("policies", "", "comma-separated policies: "+policyNames()+" (default with --result: the session's harness's and dsh-tokens)")
	fs.Var(params, "param", "a policy parameter policy.name=value (repeatable), under the harness's own name")
	budgetText := fs.String("budget", "", "the shared budget slider in tokens, mapped to each policy's budget in its unit")
	route := fs.String("route", "", "image pricing route: "+strings.Join(imagecost.RouteNames(), ", ")+" (default: the session's, or "+retention.DefaultRoute+")")
	estimator := fs.String("estimator", "", "the yardstick every column is priced on: "+strings.Join(retention.EstimatorNames(), ", ")+" (default: the route's)")
	resultID := fs.Int64("result", 0, "an indexed result's id (as the window shows it)")
	dbPath := fs.String("db", "", "database file (default: the app's own)")
	tool := fs.String("tool", "", "the tool that produced the result (default with --result: the recorded one)")
	spillPath := fs.String("spill-path", "", "the locator notices name (standard input only; --result uses the record's)")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, compareUsage)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		return exitOK
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "spillscope compare: "+format+"\n", a...)
		if code == exitUsage {
			fmt.Fprintln(env.Stderr, "Run 'spillscope compare -h' for usage.")
		}
		return code
	}
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if fs.NArg() > 0 {
		return fail(exitUsage, "unexpected argument %q", fs.Arg(0))
	}
	var slider *int64
	if *budgetText != "" {
		n, err := parseBudget(*budgetText)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		slider = &n
	}
	var names []string
	for _, p := range strings.Split(*policies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			names = append(names, p)
		}
	}
	for pol := range params {
		if !slices.Contains(names, pol) && *policies != "" {
			return fail(exitUsage, "--param %s.…: %s is not one of --policies", pol, pol)
		}
	}
	if *route != "" {
		if _, err := imagecost.Lookup(*route); err != nil {
			return fail(exitUsage, "--route: %v", err)
		}
	}
	if *estimator != "" {
		if _, err := retention.LookupEstimator(*estimator); err != nil {
			return fail(exitUsage, "--estimator: %v", err)
		}
	}
	if len(names) == 0 && *resultID == 0 {
		return fail(exitUsage, "--policies is required when the result comes from standard input")
	}
	specs := func(names []string) ([]retention.CompareSpec, error) {
		out := make([]retention.CompareSpec, len(names))
		for i, n := range names {
			out[i] = retention.CompareSpec{Policy: n, Params: params[n], SliderTokens: slider}
			if _, _, err := out[i].Resolve(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var out compareOutput
	var res retention.Result
	var cols []retention.Compared
	if *resultID > 0 {
		if *spillPath != "" {
			return fail(exitUsage, "--spill-path: a compared indexed result names its own spill locator")
		}
		path, err := dbPathOf(env, *dbPath)
		if err != nil {
			return fail(exitFail, "%v", err)
		}
		db, err := sessions.Open(path)
		if err != nil {
			return fail(exitFail, "%v", err)
		}
		defer db.Close()
		row, r, err := db.LoadResult(context.Background(), *resultID)
		if err != nil {
			return fail(exitFail, "--result %d: %v", *resultID, err)
		}
		res = r
		if len(names) == 0 {
			names = sessions.ComparePolicies(row.Harness)
		}
		sp, err := specs(names)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		rt := sessions.ReviewRoute(row, *route)
		call := retention.Call{ToolName: orDefault(*tool, row.ToolName), Spill: retention.SpillRef{Locator: sessions.ReviewLocator(row)}}
		src := retention.Analyses(res, rt, retention.AnalyseOptions{Call: call})
		if cols, err = retention.Compare(src, *estimator, sp, func(o *retention.Outcome) { sessions.UseCountedTotal(o, row) }); err != nil {
			return fail(exitFail, "%v", err)
		}
		out.Route, out.Harness = orDefault(rt, retention.DefaultRoute), row.Harness
	} else {
		sp, err := specs(names)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		input, err := io.ReadAll(env.Stdin)
		if err != nil {
			return fail(exitFail, "reading standard input: %v", err)
		}
		if res, err = retention.ParseResult(input); err != nil {
			return fail(exitFail, "standard input: %v", err)
		}
		rt := orDefault(*route, retention.DefaultRoute)
		call := retention.Call{ToolName: *tool, Spill: retention.SpillRef{Locator: *spillPath}}
		if cols, err = retention.Compare(retention.Analyses(res, rt, retention.AnalyseOptions{Call: call}), *estimator, sp, nil); err != nil {
			return fail(exitFail, "%v", err)
		}
		out.Route = rt
	}
	for _, c := range cols {
		out.Columns = append(out.Columns, compareColumnOf(c))
		if c.Error == "" {
			out.Yardstick = c.Priced.Yardstick.Estimator
		}
	}
	if err := writeJSON(env.Stdout, out); err != nil {
		return fail(exitFail, "%v", err)
	}
	return exitOK
}

func compareColumnOf(c retention.Compared) compareColumn {
	if c.Error != "" {
		return compareColumn{Policy: c.Policy, Error: c.Error}
	}
	o := c.Outcome
	content := make([]json.RawMessage, len(o.Content))
	for i, b := range o.Content {
		content[i] = blockJSON(b)
	}
	return compareColumn{
		Policy: c.Policy, Harness: c.Info.Harness, Params: c.Params, BudgetParam: c.Info.Budget, BudgetUnit: c.Info.Unit,
		UnitsPerToken: retention.UnitsPerToken(c.Info.Unit), Status: o.Status, Content: content, Spans: o.Spans, Notice: o.Notice,
		Tokens: c.Priced.Own, Yardstick: c.Priced.Yardstick, OriginalTokens: o.OriginalTokens, OriginalTokensExact: o.OriginalTokensExact,
		Omitted: c.Priced.Omitted, Lost: c.Priced.Lost, Recoverable: c.Priced.Recoverable, Locator: c.Priced.Locator,
		RecoverNote: c.Info.RecoverNote, Diagnostics: o.Diagnostics, HeadEnd: o.HeadEnd, TailStart: o.TailStart,
	}
}
