package app

import (
	"context"
	"errors"
	"fmt"

	"spillscope/retention"
	"spillscope/sessions"
)

// CompareRequest compares retention policies on one result: an indexed
// result (ResultID) or pasted tool-result JSON.
type CompareRequest struct {
	ResultID int64  `json:"resultId"`
	JSON     string `json:"json"`
	// Columns are the policies compared, each with parameters under the
	// harness's own names; none compares the session's own harness's
	// policy with dsh-tokens.
	Columns []CompareColumnSpec `json:"columns"`
	// Slider is the shared budget slider in tokens: it sets each column's
	// budget parameter in its own unit (retention.SliderBudget) unless the
	// column's Params set it; nil leaves every column at its parameters.
	Slider *int64 `json:"slider"`
	Route  string `json:"route"`
	// Estimator is the yardstick every column is priced on ("" is the
	// route's).
	Estimator string `json:"estimator"`
	ToolName  string `json:"toolName"`
	// Reveal shows credential values in the columns (see ResultQuery); they
	// are masked otherwise, as in every other pane.
	Reveal bool `json:"reveal"`
}

// CompareColumnSpec is one compared policy and its raw parameters.
type CompareColumnSpec struct {
	Policy string            `json:"policy"`
	Params map[string]string `json:"params"`
}

// LossFigures are omitted parts: text bytes, lines with any part omitted,
// whole images.
type LossFigures struct {
	Bytes  int64 `json:"bytes"`
	Lines  int64 `json:"lines"`
	Images int   `json:"images"`
}

// CompareColumn is one policy's outcome as the comparison shows it.
type CompareColumn struct {
	Policy  string `json:"policy"`
	Harness string `json:"harness"`
	// Error is set, and the figures empty, when the column's parameters
	// are not valid; it names the parameter.
	Error string `json:"error"`
	// Params are the values the decision used, defaults included.
	Params map[string]string `json:"params"`
	// BudgetParam is the parameter the slider sets, in BudgetUnit, at
	// UnitsPerToken of them per slider token (0: the slider does not).
	BudgetParam   string      `json:"budgetParam"`
	BudgetUnit    string      `json:"budgetUnit"`
	UnitsPerToken int64       `json:"unitsPerToken"`
	Status        string      `json:"status"`
	Blocks        []BlockView `json:"blocks"`
	// Own is priced on the policy's own estimator (what the harness
	// believed), Yardstick on the comparison's shared one.
	Own                 TokenFigures `json:"own"`
	Yardstick           TokenFigures `json:"yardstick"`
	OriginalTokens      int          `json:"originalTokens"`
	OriginalTokensExact bool         `json:"originalTokensExact"`
	Omitted             LossFigures  `json:"omitted"`
	Lost                LossFigures  `json:"lost"`
	Recoverable         LossFigures  `json:"recoverable"`
	Locator             string       `json:"locator"`
	RecoverNote         string       `json:"recoverNote"`
	Diagnostics         []string     `json:"diagnostics"`
}

// CompareView is a comparison: the columns, all priced on Yardstick.
type CompareView struct {
	// Slider is the slider position the columns were decided at (nil: each
	// at its own budget).
	Slider    *int64          `json:"slider"`
	Route     string          `json:"route"`
	Yardstick string          `json:"yardstick"`
	Harness   string          `json:"harness"`
	Columns   []CompareColumn `json:"columns"`
}

// Compared is a comparison as the core decided it: what the window's
// Compare shows and `spillscope compare` prints.
type Compared struct {
	Route     string
	Yardstick string
	Harness   string
	Columns   []retention.Compared
	// Result is the compared result, for showing content.
	Result retention.Result
}

// maxCompareColumns bounds one comparison.
const maxCompareColumns = 12

// CompareOutcomes runs a comparison through the window's Analyses: each
// policy decides on the result's Analysis on its own estimator, kept
// between calls, and every outcome is priced on the one yardstick.
func CompareOutcomes(r *Retention, req CompareRequest) (Compared, error) {
	if len(req.Columns) > maxCompareColumns {
		return Compared{}, fmt.Errorf("app: %d columns are more than %d", len(req.Columns), maxCompareColumns)
	}
	db, err := r.store.DB()
	if err != nil {
		return Compared{}, err
	}
	base := RetainRequest{ResultID: req.ResultID, JSON: req.JSON, Route: req.Route, ToolName: req.ToolName}
	first, err := r.analysis(db, RetainRequest{ResultID: base.ResultID, JSON: base.JSON, Route: base.Route, ToolName: base.ToolName, Estimator: req.Estimator})
	if err != nil {
		return Compared{}, err
	}
	out := Compared{Route: first.key.route, Yardstick: first.analysis().Estimator().Name(), Result: first.res}
	if first.row != nil {
		out.Harness = first.row.Harness
	}
	cols := req.Columns
	if len(cols) == 0 {
		for _, p := range sessions.ComparePolicies(out.Harness) {
			cols = append(cols, CompareColumnSpec{Policy: p})
		}
	}
	specs := make([]retention.CompareSpec, len(cols))
	for i, c := range cols {
		specs[i] = retention.CompareSpec{Policy: c.Policy, Params: c.Params, SliderTokens: req.Slider}
	}
	src := r.source(db, base)
	var adjust func(*retention.Outcome)
	if first.row != nil {
		row := *first.row
		adjust = func(o *retention.Outcome) { sessions.UseCountedTotal(o, row) }
	}
	out.Columns, err = retention.Compare(src, out.Yardstick, specs, adjust)
	return out, err
}

// source is the AnalysisSource of one request's result over the window's
// cache: each estimator's Analysis built once and kept.
func (r *Retention) source(db *sessions.DB, base RetainRequest) retention.AnalysisSource {
	return func(est string) (*retention.Analysis, error) {
		b := base
		b.Estimator = est
		c, err := r.analysis(db, b)
		if err != nil {
			return nil, err
		}
		return c.analysis(), nil
	}
}

// Compare shows policies side by side on one result, each column on its own
// estimator and on the shared yardstick, with what it omits, what a file
// keeps and what is lost.
func (r *Retention) Compare(req CompareRequest) (CompareView, error) {
	if req.ResultID <= 0 && req.JSON == "" {
		return CompareView{}, errors.New("app: give a result id or tool-result JSON")
	}
	c, err := CompareOutcomes(r, req)
	if err != nil {
		return CompareView{}, err
	}
	db, err := r.store.DB()
	if err != nil {
		return CompareView{}, err
	}
	v := CompareView{Slider: req.Slider, Route: c.Route, Yardstick: c.Yardstick, Harness: c.Harness, Columns: make([]CompareColumn, len(c.Columns))}
	for i, col := range c.Columns {
		v.Columns[i] = compareColumn(col, c.Result, db.AttachmentDir(), req.Reveal)
	}
	return v, nil
}

func compareColumn(c retention.Compared, res retention.Result, attachDir string, reveal bool) CompareColumn {
	col := CompareColumn{Policy: c.Policy, Error: c.Error, Params: c.Params, Diagnostics: []string{}}
	if c.Error != "" {
		return col
	}
	info := c.Info
	col.Harness, col.BudgetParam, col.BudgetUnit = info.Harness, info.Budget, info.Unit
	col.UnitsPerToken, col.RecoverNote = retention.UnitsPerToken(info.Unit), info.RecoverNote
	p := projection(c.Outcome, res, attachDir, reveal, nil)
	col.Status, col.Blocks, col.Diagnostics = p.Status, p.Blocks, p.Diagnostics
	col.Own = tokenFigures(c.Priced.Own)
	col.Yardstick = tokenFigures(c.Priced.Yardstick)
	col.OriginalTokens, col.OriginalTokensExact = c.Outcome.OriginalTokens, c.Outcome.OriginalTokensExact
	col.Omitted, col.Lost, col.Recoverable = lossFigures(c.Priced.Omitted), lossFigures(c.Priced.Lost), lossFigures(c.Priced.Recoverable)
	col.Locator = c.Priced.Locator
	return col
}

func tokenFigures(t retention.Tokens) TokenFigures {
	return TokenFigures{Estimator: t.Estimator, Total: t.Total, Text: t.Text, Images: t.Images, Notice: t.Notice}
}

func lossFigures(l retention.Loss) LossFigures {
	return LossFigures{Bytes: l.Bytes, Lines: l.Lines, Images: l.Images}
}

// SweepPoliciesRequest sweeps several policies over one scope: a result
// (ResultID), a session (SessionID) or the whole index (both 0). Budgets
// are positions of the shared slider in tokens, each mapped to every
// policy's budget parameter in its own unit.
type SweepPoliciesRequest struct {
	ResultID  int64               `json:"resultId"`
	SessionID int64               `json:"sessionId"`
	Budgets   []int64             `json:"budgets"`
	Columns   []CompareColumnSpec `json:"columns"`
	Route     string              `json:"route"`
	// Estimator is the yardstick ("" is each result's route's).
	Estimator string `json:"estimator"`
}

// SeriesRow is one budget of one policy's series.
type SeriesRow struct {
	// Slider is the shared slider position (tokens); Budget its mapping in
	// the policy's unit.
	Slider        int64 `json:"slider"`
	Budget        int64 `json:"budget"`
	Results       int   `json:"results"`
	Replaced      int   `json:"replaced"`
	NoticeOnly    int   `json:"noticeOnly"`
	Preserved     int   `json:"preserved"`
	InlineTokens  int64 `json:"inlineTokens"`
	OmittedBytes  int64 `json:"omittedBytes"`
	OmittedImages int   `json:"omittedImages"`
	// YardstickTokens is InlineTokens on the shared yardstick; Lost* what
	// no file keeps.
	YardstickTokens        int64 `json:"yardstickTokens"`
	LostBytes              int64 `json:"lostBytes"`
	LostLines              int64 `json:"lostLines"`
	LostImages             int   `json:"lostImages"`
	InlineTokensLowerBound bool  `json:"inlineTokensLowerBound"`
	// Error is set, and the figures empty, when the policy's parameters
	// cannot hold at this point; it names the parameter, as a Compare
	// column's Error does.
	Error string `json:"error,omitempty"`
}

// SweepSeries is one policy's series over the scope.
type SweepSeries struct {
	Policy      string      `json:"policy"`
	Estimator   string      `json:"estimator"`
	Yardstick   string      `json:"yardstick"`
	BudgetParam string      `json:"budgetParam"`
	BudgetUnit  string      `json:"budgetUnit"`
	Rows        []SeriesRow `json:"rows"`
}

// SweepPolicies sweeps several policies over one scope and returns one
// series each, every outcome priced on the one yardstick: a result through
// the window's Analyses, a session or the whole index through
// sessions.DB.SweepPolicies.
func (r *Retention) SweepPolicies(req SweepPoliciesRequest) ([]SweepSeries, error) {
	if len(req.Budgets) == 0 {
		return nil, errors.New("app: give at least one budget")
	}
	if len(req.Budgets) > 1000 || len(req.Columns) > maxCompareColumns {
		return nil, fmt.Errorf("app: %d budgets and %d policies are more than 1000 and %d", len(req.Budgets), len(req.Columns), maxCompareColumns)
	}
	if len(req.Columns) == 0 {
		return nil, errors.New("app: give at least one policy")
	}
	specs := make([]sessions.SweepSpec, len(req.Columns))
	out := make([]SweepSeries, len(req.Columns))
	for i, c := range req.Columns {
		pol, err := retention.LookupPolicy(c.Policy)
		if err != nil {
			return nil, err
		}
		info := pol.Info()
		specs[i] = sessions.SweepSpec{Policy: info.Name, Params: c.Params}
		for _, t := range req.Budgets {
			v, ok := retention.SliderBudget(info, t)
			if !ok {
				return nil, fmt.Errorf("app: the slider sets no budget of %s (%s in %s)", info.Name, info.Budget, info.Unit)
			}
			specs[i].Budgets = append(specs[i].Budgets, v)
		}
		out[i] = SweepSeries{Policy: info.Name, Estimator: info.Estimator, BudgetParam: info.Budget, BudgetUnit: info.Unit}
	}
	db, err := r.store.DB()
	if err != nil {
		return nil, err
	}
	var got []sessions.SweepSeries
	if req.ResultID > 0 {
		got, err = r.sweepResult(db, req, specs)
	} else {
		got, err = db.SweepPolicies(context.Background(), specs, sessions.SweepOptions{
			Filter: sessions.ResultFilter{SessionRowID: req.SessionID}, Route: req.Route, Estimator: req.Estimator,
		})
	}
	if err != nil {
		return nil, err
	}
	for i, g := range got {
		out[i].Yardstick = g.Yardstick
		for j, row := range g.Rows {
			out[i].Rows = append(out[i].Rows, SeriesRow{Slider: req.Budgets[j], Budget: row.Budget, Error: row.Error, Results: row.Results,
				Replaced: row.Replaced, NoticeOnly: row.NoticeOnly, Preserved: row.Preserved, InlineTokens: row.InlineTokens,
				OmittedBytes: row.OmittedBytes, OmittedImages: row.OmittedImages, YardstickTokens: row.YardstickTokens,
				LostBytes: row.LostBytes, LostLines: row.LostLines, LostImages: row.LostImages, InlineTokensLowerBound: row.InlineTokensLowerBound})
		}
	}
	return out, nil
}

// sweepResult is SweepPolicies on one result, from the window's Analyses.
func (r *Retention) sweepResult(db *sessions.DB, req SweepPoliciesRequest, specs []sessions.SweepSpec) ([]sessions.SweepSeries, error) {
	src := r.source(db, RetainRequest{ResultID: req.ResultID, Route: req.Route})
	first, err := r.analysis(db, RetainRequest{ResultID: req.ResultID, Route: req.Route, Estimator: req.Estimator})
	if err != nil {
		return nil, err
	}
	yard := first.analysis().Estimator().Name()
	out := make([]sessions.SweepSeries, len(specs))
	for i, sp := range specs {
		out[i] = sessions.SweepSeries{Policy: sp.Policy, Yardstick: yard, Rows: make([]sessions.SeriesRow, len(sp.Budgets))}
		for j, b := range sp.Budgets {
			params := retention.Params{}
			for k, v := range sp.Params {
				params[k] = v
			}
			pol, _ := retention.LookupPolicy(sp.Policy)
			params[pol.Info().Budget] = fmt.Sprint(b)
			cols, err := retention.Compare(src, yard, []retention.CompareSpec{{Policy: sp.Policy, Params: params}}, nil)
			if err != nil {
				return nil, err
			}
			out[i].Rows[j].Budget = b
			if cols[0].Error != "" {
				out[i].Rows[j].Error = cols[0].Error
				continue
			}
			out[i].Rows[j].AddPriced(&cols[0].Outcome, cols[0].Priced, *first.row)
		}
	}
	return out, nil
}

// SweepCutsRequest lists what one budget of a sweep cuts, over the sweep's
// scope: a result (ResultID), a session (SessionID) or the whole index (both
// 0). Budget and Against are in the policy's unit.
type SweepCutsRequest struct {
	ResultID  int64             `json:"resultId"`
	SessionID int64             `json:"sessionId"`
	Budget    int64             `json:"budget"`
	Against   *int64            `json:"against"`
	Route     string            `json:"route"`
	Policy    string            `json:"policy"`
	Params    map[string]string `json:"params"`
	Estimator string            `json:"estimator"`
	// Series lists a SweepPolicies series' cuts: decided on the policy's
	// own estimator, tokens on the yardstick (Estimator); otherwise as
	// Sweep decides.
	Series bool `json:"series"`
}

// SweepCuts lists the results a sweep's budget cuts (tool, session, tokens
// before and after, what is lost and whether a file keeps it), and with
// Against how each fares at another budget, through
// sessions.DB.SweepCuts; the CLI's `sweep --cuts` prints the same list.
func (r *Retention) SweepCuts(req SweepCutsRequest) (sessions.CutList, error) {
	q := sessions.CutsQuery{Policy: req.Policy, Params: req.Params, Budget: req.Budget, Against: req.Against, Series: req.Series}
	c, err := sessions.NewCutDecider(q)
	if err != nil {
		return sessions.CutList{}, err
	}
	db, err := r.store.DB()
	if err != nil {
		return sessions.CutList{}, err
	}
	if req.ResultID <= 0 {
		return db.SweepCuts(context.Background(), q, sessions.SweepOptions{
			Filter: sessions.ResultFilter{SessionRowID: req.SessionID}, Route: req.Route, Estimator: req.Estimator,
			ReadTools: r.store.ReadTools(),
		})
	}
	first, err := r.analysis(db, RetainRequest{ResultID: req.ResultID, Route: req.Route, Estimator: req.Estimator})
	if err != nil {
		return sessions.CutList{}, err
	}
	row, _, err := c.Row(*first.row, r.source(db, RetainRequest{ResultID: req.ResultID, Route: req.Route}), req.Estimator)
	if err != nil {
		return sessions.CutList{}, err
	}
	out := c.List()
	out.Add(row, first.analysis().Estimator().Name())
	out.Finish()
	return out, nil
}
