package sessions

import (
	"context"
	"fmt"
	"runtime"
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
}

// Sweep re-runs the retention decision on every selected result at each
// budget (one retention.Sweep per result: tokenised once for all budgets)
// and returns one row per budget in the order given. Results are read back
// from their source files with images as stored attachment paths.
func (d *DB) Sweep(ctx context.Context, budgets []int64, opts SweepOptions) ([]SweepRow, error) {
	rows, err := d.Results(ctx, opts.Filter)
	if err != nil {
		return nil, err
	}
	out := make([]SweepRow, len(budgets))
	for i, b := range budgets {
		out[i].Budget = b
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var mu sync.Mutex
	var firstErr error
	jobs := make(chan ResultRow)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				_, res, err := d.LoadResult(ctx, r.ID)
				if err != nil {
					if opts.Skipped != nil {
						mu.Lock()
						opts.Skipped(r, err)
						mu.Unlock()
					}
					continue
				}
				route := opts.Route
				if route == "" {
					route = r.Route
				}
				outs, err := retention.Sweep(res, budgets, retention.Options{Policy: opts.Policy, Estimator: opts.Estimator, Route: route, ToolName: r.ToolName, ReadTools: opts.ReadTools})
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("sessions: sweep result %d: %w", r.ID, err)
					}
					mu.Unlock()
					continue
				}
				for i := range outs {
					o := &outs[i]
					if UseCountedTotal(o, r) {
						out[i].InlineTokensLowerBound = true
					}
					row := &out[i]
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
				mu.Unlock()
			}
		}()
	}
	for _, r := range rows {
		if ctx.Err() != nil {
			break
		}
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, ctx.Err()
}
