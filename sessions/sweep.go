package sessions

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"spillscope/retention"
)

// SweepRow is what a sweep found at one budget, over every result it read.
type SweepRow struct {
	Budget int64 `json:"budget"`
	// Results is how many tool results were considered.
	Results int `json:"results"`
	// Replaced counts results the decision would cut, notice-only included.
	Replaced int `json:"replaced"`
	// InlineTokens is what the model would see, summed over all results.
	InlineTokens int64 `json:"inlineTokens"`
	// OmittedImages counts whole images left out of the model's view.
	OmittedImages int `json:"omittedImages"`
	// Preserved counts results kept whole with a diagnostic.
	Preserved int `json:"preserved"`
	// NoticeOnly counts the replaced results that kept no preview at all.
	NoticeOnly int `json:"noticeOnly"`
	// OmittedBytes sums the text bytes left out of the model's view.
	OmittedBytes int64 `json:"omittedBytes"`
	// InlineTokensLowerBound is set when InlineTokens is a lower bound: some
	// result kept whole was neither counted by the token phase on this
	// route nor counted through by the decision (which stops once a kept
	// original exceeds the budget).
	InlineTokensLowerBound bool `json:"inlineTokensLowerBound,omitempty"`
}

// UseCountedTotal gives an outcome that keeps the original in place the
// token phase's exact count of that original, when the decision stopped
// counting early (OriginalTokensExact false) and the stored count was made
// on the route and estimator the outcome used. It reports whether what the
// model would see (o.Tokens) is still only a lower bound afterwards: the
// original stays in place and no exact count of it applies.
func UseCountedTotal(o *retention.Outcome, r ResultRow) (seenLowerBound bool) {
	keeps := o.Status != retention.StatusReplaced && o.Status != retention.StatusNoticeOnly
	if o.OriginalTokensExact {
		return false
	}
	route, _, est := routeFor(r.Route)
	if r.EstTokens == nil || o.Route != route || o.Estimator != est {
		return keeps
	}
	n := int(*r.EstTokens)
	o.OriginalTokens, o.OriginalTokensExact = n, true
	if keeps {
		o.Tokens.Total = n
		o.Tokens.Text = n - o.Tokens.Images - o.Tokens.Notice
	}
	return false
}

// AddOutcome counts one result's outcome into the row, with the index's
// exact count of an original left in place (UseCountedTotal).
func (row *SweepRow) AddOutcome(o *retention.Outcome, r ResultRow) {
	if UseCountedTotal(o, r) {
		row.InlineTokensLowerBound = true
	}
	row.Results++
	switch o.Status {
	case retention.StatusReplaced:
		row.Replaced++
	case retention.StatusNoticeOnly:
		row.Replaced++
		row.NoticeOnly++
	case retention.StatusPreserved:
		row.Preserved++
	}
	row.InlineTokens += int64(o.Tokens.Total)
	row.OmittedImages += o.OmittedImages
	row.OmittedBytes += o.OmittedBytes
}

// SweepOptions choose what a sweep covers and how it prices.
type SweepOptions struct {
	Filter ResultFilter
	// Route overrides each session's own route when set.
	Route string
	// Policy ("" is retention.DefaultPolicy) and Estimator ("" is the
	// route's) choose how every result is decided.
	Policy    string
	Estimator string
	// ReadTools are the host's read-tool names (nil: the core's list), as
	// a single re-run is given them.
	ReadTools []string
	// Workers re-running retention; 0 means every core.
	Workers int
	// Skipped, when set, hears about each result that could not be read
	// back (its file changed since indexing).
	Skipped func(ResultRow, error)
	// Stats, when set, receives how the sweep decided its results.
	Stats *SweepStats
}

// Sweep re-runs the retention decision on every selected result at each
// budget and returns one row per budget in the order given. A result's
// notice names the file a re-run of it names (ReviewLocator), as the
// window's result view has it, so a result's figures are the same there. Each result is
// decided from its sweep summary where it has a current one that can decide
// it exactly, and otherwise read back from its source with images as stored
// attachment paths and decided on its text (one retention.Sweep per result:
// tokenised once for all budgets); both give the same figures.
func (d *DB) Sweep(ctx context.Context, budgets []int64, opts SweepOptions) ([]SweepRow, error) {
	out := make([]SweepRow, len(budgets))
	for i, b := range budgets {
		out[i].Budget = b
	}
	ro := retention.Options{Policy: opts.Policy, Estimator: opts.Estimator, ReadTools: opts.ReadTools}
	settings := make([]retention.Settings, len(budgets))
	var pol retention.Policy
	for i := range budgets {
		var err error
		if pol, settings[i], err = ro.Settings(&budgets[i]); err != nil {
			return nil, fmt.Errorf("sessions: sweep at %d: %w", budgets[i], err)
		}
	}
	// Budgets in ascending order: under a budget-monotone policy a result
	// within one budget is decided once for every larger one.
	order := make([]int, len(budgets))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(budgets[x], budgets[y]) })
	var mu sync.Mutex
	add := func(outs []retention.Outcome, r ResultRow) {
		mu.Lock()
		defer mu.Unlock()
		for i := range outs {
			out[i].AddOutcome(&outs[i], r)
		}
	}
	sketch := func(r ResultRow, sum *retention.Summary, route string) bool {
		est, err := retention.EstimatorFor(opts.Estimator, route)
		if err != nil {
			return false
		}
		sk, err := sum.Sketch(est, retention.Call{ToolName: r.ToolName, ReadTools: opts.ReadTools, Spill: retention.SpillRef{Locator: ReviewLocator(r)}})
		if err != nil {
			return false
		}
		// The outcomes are summed into the rows before the next result
		// needs a slice: one per worker is reused, not 40 per result.
		bp := outsPool.Get().(*[]retention.Outcome)
		defer outsPool.Put(bp)
		if len(*bp) < len(settings) {
			*bp = make([]retention.Outcome, len(settings))
		}
		outs := (*bp)[:len(settings)]
		var same *retention.Outcome
		for _, i := range order {
			if same != nil {
				outs[i] = *same
				outs[i].Budget = &budgets[i]
				continue
			}
			if outs[i] = sk.Run(pol, settings[i]); sk.SketchFailed() {
				return false
			}
			if retention.SameAbove(pol, outs[i]) {
				same = &outs[i]
			}
		}
		add(outs, r)
		return true
	}
	exact := func(r ResultRow, res retention.Result, route string) error {
		o := ro
		o.Route, o.ToolName, o.SpillPath = route, r.ToolName, ReviewLocator(r)
		outs, err := retention.Sweep(res, budgets, o)
		if err != nil {
			return err
		}
		add(outs, r)
		return nil
	}
	if err := d.eachResult(ctx, opts, sketch, exact); err != nil {
		return nil, err
	}
	return out, nil
}

// outsPool holds the outcome slices a sketched result is decided into.
var outsPool = sync.Pool{New: func() any { return new([]retention.Outcome) }}

// eachResult decides every result opts selects, on opts.Workers
// goroutines: through sketch from its summary when it has a current one on
// the route it is priced on and sketch takes it (returns true), else
// through exact on its content read back from its source. Both run
// concurrently. A result that cannot be read back goes to opts.Skipped; the
// first error exact returns is the sweep's error, naming the result.
// opts.Stats, when set, receives how the results were decided.
func (d *DB) eachResult(ctx context.Context, opts SweepOptions, sketch func(r ResultRow, sum *retention.Summary, route string) bool,
	exact func(r ResultRow, res retention.Result, route string) error) error {
	return d.decideRows(ctx, opts, func(fn func(ResultRow, storedSummary)) error {
		return d.eachSweepRow(ctx, opts.Filter, fn)
	}, sketch, exact)
}

// eachRow reads every one of rows (already listed; opts.Filter unused)
// back from its source, on opts.Workers goroutines, and calls fn with it
// and the route it is priced on; fn runs concurrently, with eachResult's
// rules for unreadable results and errors.
func (d *DB) eachRow(ctx context.Context, rows []ResultRow, opts SweepOptions, fn func(r ResultRow, res retention.Result, route string) error) error {
	return d.decideRows(ctx, opts, func(emit func(ResultRow, storedSummary)) error {
		for _, r := range rows {
			emit(r, storedSummary{})
		}
		return nil
	}, nil, fn)
}

// decideRows is eachResult over the rows list hands it (with their stored
// summaries); a nil sketch reads every result back.
func (d *DB) decideRows(ctx context.Context, opts SweepOptions, list func(func(ResultRow, storedSummary)) error,
	sketch func(r ResultRow, sum *retention.Summary, route string) bool,
	exact func(r ResultRow, res retention.Result, route string) error) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	type job struct {
		r ResultRow
		s storedSummary
	}
	var mu sync.Mutex
	var firstErr error
	var stats SweepStats
	pending := make([]job, 0, 64)
	decideOne := func(jb job, st *SweepStats, buf *retention.SummaryBuffers) {
		r := jb.r
		route := opts.Route
		if route == "" {
			route = r.Route
		}
		if sketch == nil {
			st.NoSummary++
		} else if sum, ok := jb.s.current(r, route, buf); ok {
			if sketch(r, sum, route) {
				st.Summarised++
				st.Results++
				return
			}
			st.Declined++
		} else {
			st.NoSummary++
		}
		full, res, err := d.LoadResult(ctx, r.ID)
		if err != nil {
			if opts.Skipped != nil {
				if full.ID == 0 {
					full = r
				}
				mu.Lock()
				opts.Skipped(full, err)
				mu.Unlock()
			}
			return
		}
		if err := exact(r, res, route); err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = fmt.Errorf("sessions: sweep result %d: %w", r.ID, err)
			}
			mu.Unlock()
			return
		}
		st.Results++
	}
	// Results go to the workers in batches: most are decided in
	// microseconds, less than handing one over costs.
	jobs := make(chan []job, 4)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st SweepStats
			buf := new(retention.SummaryBuffers)
			for batch := range jobs {
				for _, jb := range batch {
					decideOne(jb, &st, buf)
				}
			}
			mu.Lock()
			stats.Results += st.Results
			stats.Summarised += st.Summarised
			stats.NoSummary += st.NoSummary
			stats.Declined += st.Declined
			mu.Unlock()
		}()
	}
	err := list(func(r ResultRow, s storedSummary) {
		if ctx.Err() != nil {
			return
		}
		pending = append(pending, job{r, s})
		if len(pending) == cap(pending) {
			jobs <- pending
			pending = make([]job, 0, cap(pending))
		}
	})
	if len(pending) > 0 && ctx.Err() == nil {
		jobs <- pending
	}
	close(jobs)
	wg.Wait()
	if opts.Stats != nil {
		*opts.Stats = stats
	}
	if err != nil {
		return err
	}
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// SweepSpec is one series of a multi-policy sweep: a policy, its other
// parameters under the harness's own names, and the budgets (in its unit)
// it is decided at.
type SweepSpec struct {
	Policy  string
	Params  retention.Params
	Budgets []int64
}

// SeriesRow is a SweepRow on the policy's own estimator plus the one
// yardstick: the same outcomes priced on the shared estimator, and what no
// file keeps.
type SeriesRow struct {
	SweepRow
	// Error is set, and the figures empty, when the policy's parameters
	// cannot hold at this budget (dsh-pruner's head and tail over its
	// threshold, or a parameter no budget makes valid); it names the
	// parameter, as a comparison column's does.
	Error string `json:"error,omitempty"`
	// YardstickTokens is what the model would see, on the yardstick.
	YardstickTokens int64 `json:"yardstickTokens"`
	// LostBytes, LostLines and LostImages are what is omitted and kept by
	// no file: gone for good.
	LostBytes  int64 `json:"lostBytes"`
	LostLines  int64 `json:"lostLines"`
	LostImages int   `json:"lostImages"`
}

// AddPriced counts one result's outcome and its pricing on the yardstick.
func (row *SeriesRow) AddPriced(o *retention.Outcome, p retention.Priced, r ResultRow) {
	row.AddOutcome(o, r)
	row.YardstickTokens += int64(p.Yardstick.Total)
	row.LostBytes += p.Lost.Bytes
	row.LostLines += p.Lost.Lines
	row.LostImages += p.Lost.Images
}

// YardstickPerRoute names the yardstick of a series over results whose
// routes price text on different estimators (each result's route's).
const YardstickPerRoute = "each route's"

// SweepSeries is one policy's series.
type SweepSeries struct {
	Policy string `json:"policy"`
	// Estimator is the policy's own, which InlineTokens use; Yardstick the
	// shared one of YardstickTokens.
	Estimator string      `json:"estimator"`
	Yardstick string      `json:"yardstick"`
	Rows      []SeriesRow `json:"rows"`
}

// SweepPolicies re-runs several policies on every selected result, each at
// its own budgets, and returns one series per spec in the order given. Each
// result is read once; each policy decides on the result's Analysis on its
// own estimator, and every outcome is priced with retention.Price on the
// yardstick (opts.Estimator, "" for each result's route's). A budget the
// spec's parameters cannot hold at gives that point its Error; the other
// points and series go on. opts.Policy is not used.
func (d *DB) SweepPolicies(ctx context.Context, specs []SweepSpec, opts SweepOptions) ([]SweepSeries, error) {
	type prepared struct {
		pol      retention.Policy
		settings []retention.Settings // one per budget; zero where the point has an Error
	}
	preps := make([]prepared, len(specs))
	out := make([]SweepSeries, len(specs))
	for i, sp := range specs {
		pol, err := retention.LookupPolicy(sp.Policy)
		if err != nil {
			return nil, err
		}
		info := pol.Info()
		preps[i].pol = pol
		out[i] = SweepSeries{Policy: info.Name, Estimator: info.Estimator, Rows: make([]SeriesRow, len(sp.Budgets))}
		for j, b := range sp.Budgets {
			o := retention.Options{Policy: info.Name, Params: sp.Params}
			_, s, err := o.Settings(&b)
			if err != nil {
				out[i].Rows[j].Error = err.Error()
			}
			preps[i].settings = append(preps[i].settings, s)
			out[i].Rows[j].Budget = b
		}
	}
	type counted struct {
		o retention.Outcome
		p retention.Priced
	}
	var mu sync.Mutex
	add := func(got [][]*counted, yard string, r ResultRow) {
		mu.Lock()
		defer mu.Unlock()
		for i := range got {
			switch out[i].Yardstick {
			case "", yard:
				out[i].Yardstick = yard
			default:
				out[i].Yardstick = YardstickPerRoute
			}
			for j, c := range got[i] {
				if c != nil {
					out[i].Rows[j].AddPriced(&c.o, c.p, r)
				}
			}
		}
	}
	// decide runs every spec on one result's Analyses; ok is false when a
	// sketch among them could not decide exactly.
	decide := func(src retention.AnalysisSource) (got [][]*counted, yard string, ok bool, err error) {
		ya, err := src(opts.Estimator)
		if err != nil {
			return nil, "", false, err
		}
		got = make([][]*counted, len(preps))
		for i, pr := range preps {
			a, err := src(pr.pol.Info().Estimator)
			if err != nil {
				return nil, "", false, err
			}
			got[i] = make([]*counted, len(pr.settings))
			for j, s := range pr.settings {
				if out[i].Rows[j].Error != "" {
					continue
				}
				o := a.Run(pr.pol, s)
				got[i][j] = &counted{o, retention.Price(o, ya)}
				if a.SketchFailed() || ya.SketchFailed() {
					return nil, "", false, nil
				}
			}
		}
		return got, ya.Estimator().Name(), true, nil
	}
	sketch := func(r ResultRow, sum *retention.Summary, route string) bool {
		src := sketchSource(sum, route, retention.Call{ToolName: r.ToolName, Spill: retention.SpillRef{Locator: ReviewLocator(r)}})
		got, yard, ok, err := decide(src)
		if err != nil || !ok {
			return false
		}
		add(got, yard, r)
		return true
	}
	exact := func(r ResultRow, res retention.Result, route string) error {
		got, yard, _, err := decide(retention.Analyses(res, route, retention.AnalyseOptions{Call: retention.Call{ToolName: r.ToolName, Spill: retention.SpillRef{Locator: ReviewLocator(r)}}}))
		if err != nil {
			return err
		}
		add(got, yard, r)
		return nil
	}
	if err := d.eachResult(ctx, opts, sketch, exact); err != nil {
		return nil, err
	}
	return out, nil
}

// sketchSource builds a result's Analyses from its summary, one per
// estimator the route resolves it to, each built once.
func sketchSource(sum *retention.Summary, route string, call retention.Call) func(estimator string) (*retention.Analysis, error) {
	built := map[string]*retention.Analysis{}
	return func(estimator string) (*retention.Analysis, error) {
		est, err := retention.EstimatorFor(estimator, route)
		if err != nil {
			return nil, err
		}
		if a, ok := built[est.Name()]; ok {
			return a, nil
		}
		a, err := sum.Sketch(est, call)
		if err != nil {
			return nil, err
		}
		built[est.Name()] = a
		return a, nil
	}
}
