package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"spillscope/app"
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
	stats := fs.Bool("stats", false, "print how the results were decided (from their summaries or read back) to stderr")
	cutsFlag := fs.String("cuts", "", "print the results cut at this budget (one JSON object, the window's cut list) instead of the totals")
	againstFlag := fs.String("against", "", "with --cuts: compare with this budget (what --cuts cuts that --against keeps first)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: spillscope sweep --budgets LIST [--policy P] [--estimator E] [--route R] [--db PATH] [--session ID] [--stats]")
		fmt.Fprintln(env.Stderr, "       spillscope sweep --cuts B [--against A] [--policy P] [--estimator E] [--route R] [--db PATH] [--session ID]")
		fmt.Fprintln(env.Stderr, "Re-runs retention on every indexed tool result at each budget; prints one JSON object per budget.")
		fmt.Fprintln(env.Stderr, "With --cuts it prints the results cut at budget B instead, and with --against how each fares at A.")
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
	var cuts, against *int64
	for _, f := range []struct {
		name, text string
		dst        **int64
	}{{"--cuts", *cutsFlag, &cuts}, {"--against", *againstFlag, &against}} {
		if f.text == "" {
			continue
		}
		b, err := app.ParseBudgets(f.text)
		if err != nil || len(b) != 1 {
			fmt.Fprintf(env.Stderr, "spillscope sweep: %s wants one budget, not %q\n", f.name, f.text)
			return exitUsage
		}
		*f.dst = &b[0]
	}
	if against != nil && cuts == nil {
		fmt.Fprintln(env.Stderr, "spillscope sweep: --against needs --cuts")
		return exitUsage
	}
	var budgets []int64
	if cuts == nil || *budgetsFlag != "" {
		var err error
		if budgets, err = app.ParseBudgets(*budgetsFlag); err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sweep: %v\n", err)
			return exitUsage
		}
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
	var st sessions.SweepStats
	opts := sessions.SweepOptions{
		Stats:     &st,
		Filter:    sessions.ResultFilter{SessionID: *session},
		Route:     *route,
		Policy:    *policy,
		Estimator: *estimator,
		Skipped: func(r sessions.ResultRow, err error) {
			skipped++
			fmt.Fprintf(env.Stderr, "spillscope sweep: skipped %s line %d: %v\n", r.Path, r.Line, err)
		},
	}
	if cuts != nil {
		list, err := db.SweepCuts(context.Background(), sessions.CutsQuery{Policy: *policy, Budget: *cuts, Against: against}, opts)
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sweep: %v\n", err)
			return exitFail
		}
		st = list.Stats
		if err := writeJSON(env.Stdout, list); err != nil {
			return exitFail
		}
	} else {
		rows, err := db.Sweep(context.Background(), budgets, opts)
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sweep: %v\n", err)
			return exitFail
		}
		for _, r := range rows {
			if err := writeJSON(env.Stdout, r); err != nil {
				return exitFail
			}
		}
	}
	if skipped > 0 {
		fmt.Fprintf(env.Stderr, "spillscope sweep: %d results could not be read back; run index again\n", skipped)
	}
	if *stats {
		fmt.Fprintf(env.Stderr, "spillscope sweep: %d results: %d from their summaries, %d read back (%d without a summary, %d declined by theirs)\n",
			st.Results, st.Summarised, st.NoSummary+st.Declined, st.NoSummary, st.Declined)
	}
	return exitOK
}
