package sessions

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"spillscope/retention"
)

// What a sweep cuts: the results a budget replaces, one row each, and how
// they fare at a second budget. The rows come from the same decisions the
// sweep's totals count (from summaries where they can, else read back), so
// a cut list sums to its sweep row.

// CutsQuery asks which results a sweep cuts at Budget, and, with Against
// set, how each fares there ("what 4,000 cuts that 8,000 keeps").
type CutsQuery struct {
	// Policy ("" is retention.DefaultPolicy) and Params (its other
	// parameters) decide; Budget and Against are in the policy's unit.
	Policy  string
	Params  retention.Params
	Budget  int64
	Against *int64
	// Series decides as SweepPolicies does, on the policy's own estimator,
	// with tokens on the yardstick (SweepOptions.Estimator); otherwise as
	// Sweep does, on SweepOptions.Estimator.
	Series bool
}

// CutFigures is what the decision did to one result at one budget.
type CutFigures struct {
	Budget int64  `json:"budget"`
	Status string `json:"status"`
	// Cut is set for a replaced or notice-only result.
	Cut bool `json:"cut"`
	// TokensAfter is what the model sees (on the yardstick for a series),
	// a lower bound when TokensAfterLowerBound is set.
	TokensAfter           int64 `json:"tokensAfter"`
	TokensAfterLowerBound bool  `json:"tokensAfterLowerBound,omitempty"`
	OmittedBytes          int64 `json:"omittedBytes"`
	OmittedImages         int   `json:"omittedImages"`
	// Lost* are what no file keeps; Recoverable says a file keeps the rest
	// of what the model does not see (at Locator, when the decision names
	// one).
	LostBytes   int64 `json:"lostBytes"`
	LostLines   int64 `json:"lostLines"`
	LostImages  int   `json:"lostImages"`
	Recoverable bool  `json:"recoverable"`
}

// Changes between the two budgets of a CutRow.
const (
	// CutOnlyHere: cut at Budget, kept whole at Against.
	CutOnlyHere = "only"
	// CutDeeper: cut at both, with less left at Budget.
	CutDeeper = "deeper"
	// CutSame: cut at both, the same tokens left.
	CutSame = "same"
)

// CutRow is one result cut at the query's budget.
type CutRow struct {
	ResultID     int64  `json:"resultId"`
	SessionRowID int64  `json:"sessionRowId"`
	SessionID    string `json:"sessionId"`
	Project      string `json:"project"`
	ToolName     string `json:"toolName"`
	// TokensBefore is the original result's price (on the yardstick for a
	// series); exact unless TokensBeforeExact is false (then a lower
	// bound).
	TokensBefore      int64       `json:"tokensBefore"`
	TokensBeforeExact bool        `json:"tokensBeforeExact"`
	At                CutFigures  `json:"at"`
	Against           *CutFigures `json:"against,omitempty"`
	// Change compares At with Against (CutOnlyHere, CutDeeper, CutSame).
	Change string `json:"change,omitempty"`
}

// CutList is every result cut at one budget.
type CutList struct {
	Policy  string `json:"policy"`
	Budget  int64  `json:"budget"`
	Against *int64 `json:"against,omitempty"`
	// Unit is the budget's unit; Estimator what TokensAfter is counted on
	// ("each route's" when results differ).
	Unit      string `json:"unit"`
	Estimator string `json:"estimator"`
	// Results is how many results were decided; Rows the cut ones, those
	// Against keeps first, then the most tokens before.
	Results int      `json:"results"`
	Rows    []CutRow `json:"rows"`
	// Only counts the rows cut at Budget that Against keeps whole.
	Only  int        `json:"only"`
	Stats SweepStats `json:"stats"`
}

// FiguresOf reads one outcome as a cut list does: o as decided (on r's
// route), p its pricing on the yardstick. With series the tokens are the
// yardstick's; otherwise the outcome's own, with the index's exact count of
// an original left in place (UseCountedTotal). It changes o.
func FiguresOf(o *retention.Outcome, p retention.Priced, r ResultRow, series bool) CutFigures {
	f := CutFigures{Status: o.Status, Cut: o.Status == retention.StatusReplaced || o.Status == retention.StatusNoticeOnly,
		OmittedBytes: o.OmittedBytes, OmittedImages: o.OmittedImages,
		LostBytes: p.Lost.Bytes, LostLines: p.Lost.Lines, LostImages: p.Lost.Images,
		Recoverable: o.Recovery.Kind == retention.RecoverFile}
	if o.Budget != nil {
		f.Budget = *o.Budget
	}
	if series {
		f.TokensAfter = int64(p.Yardstick.Total)
		return f
	}
	f.TokensAfterLowerBound = UseCountedTotal(o, r)
	f.TokensAfter = int64(o.Tokens.Total)
	return f
}

// CutDecider decides results as a cut list does: the query's policy at
// its budgets, each result priced on a yardstick.
type CutDecider struct {
	q        CutsQuery
	pol      retention.Policy
	info     retention.PolicyInfo
	settings []retention.Settings
}

// NewCutDecider resolves the query's policy and parameters at its budgets;
// the error names a bad one.
func NewCutDecider(q CutsQuery) (*CutDecider, error) {
	budgets := []int64{q.Budget}
	if q.Against != nil {
		budgets = append(budgets, *q.Against)
	}
	ro := retention.Options{Policy: q.Policy, Params: q.Params}
	c := &CutDecider{q: q, settings: make([]retention.Settings, len(budgets))}
	for i := range budgets {
		var err error
		if c.pol, c.settings[i], err = ro.Settings(&budgets[i]); err != nil {
			return nil, fmt.Errorf("sessions: cuts at %d: %w", budgets[i], err)
		}
	}
	c.info = c.pol.Info()
	return c, nil
}

// Call is the host's context a result is decided in: as Sweep gives it
// (with the read tools) or as SweepPolicies does, the notice naming the
// re-run's file (ReviewLocator).
func (c *CutDecider) Call(r ResultRow, readTools []string) retention.Call {
	spill := retention.SpillRef{Locator: ReviewLocator(r)}
	if c.q.Series {
		return retention.Call{ToolName: r.ToolName, Spill: spill}
	}
	return retention.Call{ToolName: r.ToolName, ReadTools: readTools, Spill: spill}
}

// Row decides r on its Analyses (src; yardstick is the estimator its
// tokens are counted on, "" for the route's). ok is false when a sketch
// among them could not decide exactly.
func (c *CutDecider) Row(r ResultRow, src retention.AnalysisSource, yardstick string) (row CutRow, ok bool, err error) {
	row = CutRow{ResultID: r.ID, SessionRowID: r.SessionRowID, SessionID: r.SessionID, Project: r.Project, ToolName: r.ToolName}
	yard, err := src(yardstick)
	if err != nil {
		return row, false, err
	}
	a := yard
	if c.q.Series {
		if a, err = src(c.info.Estimator); err != nil {
			return row, false, err
		}
	}
	figs := make([]CutFigures, len(c.settings))
	for i, s := range c.settings {
		o := a.Run(c.pol, s)
		p := retention.Price(o, yard)
		if a.SketchFailed() || yard.SketchFailed() {
			return row, false, nil
		}
		figs[i] = FiguresOf(&o, p, r, c.q.Series)
		if i == 0 {
			row.TokensBefore, row.TokensBeforeExact = int64(o.OriginalTokens), o.OriginalTokensExact
		}
	}
	if c.q.Series {
		t, exact := yard.Original()
		if yard.SketchFailed() {
			return row, false, nil
		}
		row.TokensBefore, row.TokensBeforeExact = int64(t.Total), exact
	}
	row.At = figs[0]
	if len(figs) > 1 {
		row.Against = &figs[1]
		switch {
		case !figs[1].Cut:
			row.Change = CutOnlyHere
		case figs[0].TokensAfter < figs[1].TokensAfter:
			row.Change = CutDeeper
		default:
			row.Change = CutSame
		}
	}
	return row, true, nil
}

// List is an empty cut list for the query; Add counts decided rows into
// it and Finish orders it.
func (c *CutDecider) List() CutList {
	return CutList{Policy: c.info.Name, Budget: c.q.Budget, Against: c.q.Against, Unit: c.info.Unit, Rows: []CutRow{}}
}

// Add counts one decided row (its tokens on yardstick) into l.
func (l *CutList) Add(row CutRow, yardstick string) {
	l.Results++
	switch l.Estimator {
	case "", yardstick:
		l.Estimator = yardstick
	default:
		l.Estimator = YardstickPerRoute
	}
	if row.At.Cut {
		l.Rows = append(l.Rows, row)
	}
}

// Finish orders the rows (what Against keeps first, then the most tokens
// before) and counts them.
func (l *CutList) Finish() {
	rank := map[string]int{CutOnlyHere: 0, CutDeeper: 1, CutSame: 2}
	slices.SortFunc(l.Rows, func(x, y CutRow) int {
		return cmp.Or(cmp.Compare(rank[x.Change], rank[y.Change]), cmp.Compare(y.TokensBefore, x.TokensBefore), cmp.Compare(x.ResultID, y.ResultID))
	})
	l.Only = 0
	for _, r := range l.Rows {
		if r.Change == CutOnlyHere {
			l.Only++
		}
	}
}

// SweepCuts decides every result opts selects at q.Budget (and q.Against)
// and lists the ones cut at q.Budget.
func (d *DB) SweepCuts(ctx context.Context, q CutsQuery, opts SweepOptions) (CutList, error) {
	c, err := NewCutDecider(q)
	if err != nil {
		return CutList{}, err
	}
	out := c.List()
	var mu sync.Mutex
	add := func(row CutRow, route string) {
		yard := ""
		if e, err := retention.EstimatorFor(opts.Estimator, route); err == nil {
			yard = e.Name()
		}
		mu.Lock()
		defer mu.Unlock()
		out.Add(row, yard)
	}
	sketch := func(r ResultRow, sum *retention.Summary, route string) bool {
		src := sketchSource(sum, route, c.Call(r, opts.ReadTools))
		row, ok, err := c.Row(r, src, opts.Estimator)
		if err != nil || !ok {
			return false
		}
		add(row, route)
		return true
	}
	exact := func(r ResultRow, res retention.Result, route string) error {
		row, _, err := c.Row(r, retention.Analyses(res, route, retention.AnalyseOptions{Call: c.Call(r, opts.ReadTools)}), opts.Estimator)
		if err != nil {
			return err
		}
		add(row, route)
		return nil
	}
	opts.Stats = &out.Stats
	if err := d.eachResult(ctx, opts, sketch, exact); err != nil {
		return CutList{}, err
	}
	out.Finish()
	return out, nil
}
