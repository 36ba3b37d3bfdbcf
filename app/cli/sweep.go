package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"spillscope/app"
	"strings"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/sessions"
)

// runSweep re-runs retention on indexed results at each budget and prints
// one JSON object per budget.
func runSweep(env Env, args []string) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	budgetsFlag := fs.String("budgets", "", "comma-separated token budgets (maxInlineTokens), e.g. 1000,4000,16000")
	route := fs.String("route", "", "image-pricing route for every result (default: each session's own)")
	policy := fs.String("policy", retention.DefaultPolicy, "retention policy: "+policyNames()+"; --budgets are in its unit")
	estimator := fs.String("estimator", "", "text estimator: "+strings.Join(retention.EstimatorNames(), ", ")+" (default: each route's)")
	dbPath := fs.String("db", "", "database file (default: the app's own)")
	session := fs.String("session", "", "only this session id (the harness's id, subagents included)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: spillscope sweep --budgets LIST [--policy P] [--estimator E] [--route R] [--db PATH] [--session ID]")
		fmt.Fprintln(env.Stderr, "Re-runs retention on every indexed tool result at each budget; prints one JSON object per budget.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "spillscope sweep: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	budgets, err := app.ParseBudgets(*budgetsFlag)
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope sweep: %v\n", err)
		return exitUsage
	}
	if *route != "" {
		if _, err := imagecost.Lookup(*route); err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sweep: --route: %v\n", err)
			return exitUsage
		}
	}
	if _, err := retention.LookupPolicy(*policy); err != nil {
		fmt.Fprintf(env.Stderr, "spillscope sweep: --policy: %v\n", err)
		return exitUsage
	}
	if *estimator != "" {
		if _, err := retention.LookupEstimator(*estimator); err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sweep: --estimator: %v\n", err)
			return exitUsage
		}
	}
	path, err := dbPathOf(env, *dbPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope sweep: %v\n", err)
		return exitFail
	}
	db, err := sessions.Open(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope sweep: %v\n", err)
		return exitFail
	}
	defer db.Close()
	skipped := 0
	rows, err := db.Sweep(context.Background(), budgets, sessions.SweepOptions{
		Filter:    sessions.ResultFilter{SessionID: *session},
		Route:     *route,
		Policy:    *policy,
		Estimator: *estimator,
		Skipped: func(r sessions.ResultRow, err error) {
			skipped++
			fmt.Fprintf(env.Stderr, "spillscope sweep: skipped %s line %d: %v\n", r.Path, r.Line, err)
		},
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope sweep: %v\n", err)
		return exitFail
	}
	for _, r := range rows {
		if err := writeJSON(env.Stdout, r); err != nil {
			return exitFail
		}
	}
	if skipped > 0 {
		fmt.Fprintf(env.Stderr, "spillscope sweep: %d results could not be read back; run index again\n", skipped)
	}
	return exitOK
}
