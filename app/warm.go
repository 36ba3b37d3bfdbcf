package app

import (
	"time"

	"spillscope/retention"
)

// Readying the open result's tables in the background.
//
// A budget's first re-run grows the token tables its cut needs, and on a
// 1 MB result a new window level costs 30-50 ms: the slowest frames of a
// budget drag were those. So once a result's Analysis is built, the
// policy it was asked for runs in the background at doubling budgets until
// the result fits whole, the yardstick pricing each outcome, and every
// level a later budget reaches is then ready. Only the newest result is
// readied (opening another cancels the walk between steps), the tables are
// the ones the re-runs would build anyway (bounded as retention bounds
// them), and figures do not change: the tables are exact counts, whichever
// call grows them.

// warmDelay lets the opening re-run's answer paint before the walk takes
// a core.
const warmDelay = 150 * time.Millisecond

// warmMaxBytes bounds the results readied: above it a walk to the largest
// budgets would build tables of hundreds of megabytes (retention bounds
// them per cut, not per walk), and their first re-runs stay as they were.
const warmMaxBytes = 4 << 20

// warmFrom is the first budget of the walk (in the policy's unit).
const warmFrom = 256

// startWarm readies c for req's policy once per policy, in the background.
func (r *Retention) startWarm(c *cached, req RetainRequest) {
	if req.ResultID <= 0 || c.weight() > warmMaxBytes {
		return
	}
	if _, done := c.warmed.LoadOrStore(req.Policy, true); done {
		return
	}
	gen := r.cache.warmGen.Add(1)
	r.cache.warming.Add(1)
	time.AfterFunc(warmDelay, func() {
		defer r.cache.warming.Done()
		r.warm(c, req, gen)
	})
}

// warm walks the budgets while no newer walk has started.
func (r *Retention) warm(c *cached, req RetainRequest, gen int64) {
	for b := int64(warmFrom); b <= retention.MaxBudget; b *= 2 {
		if r.cache.warmGen.Load() != gen {
			return
		}
		pol, s, err := settingsFor(req.Policy, req.Params, &b)
		if err != nil {
			return
		}
		o := c.a.Run(pol, s)
		if y := c.yardstick(); y != nil {
			retention.Price(o, y)
		}
		switch o.Status {
		case retention.StatusWithinBudget, retention.StatusDisabled, retention.StatusPassThrough, retention.StatusUnsupported:
			return // no larger budget cuts
		}
	}
}
