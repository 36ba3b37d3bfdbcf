package app

import (
	"time"

	"spillscope/retention"
)

// Readying the open result's tables in the background.
//
// A budget's first re-run grows the token tables its cut needs, and on a
// 1 MB result a new window level costs 30-50 ms: the slowest frames of a
// budget drag were those. So once a result's Analysis is built, a copy of
// it runs every policy in the background at doubling budgets until the
// result fits whole, the yardstick pricing each outcome, and the copy, its
// tables grown for any budget, then replaces the entry's Analysis. The walk
// has its own copy so a re-run never waits behind it; the next walk cancels
// it between steps when it is another result's (a cancelled entry walks
// again when it is next asked);
// only results up to warmMaxBytes are readied; and figures do not change:
// the tables are exact counts, whichever call grows them.

// warmDelay lets the re-run's answer paint, and a quick run of changes
// (each starting a walk that cancels the last) pass, before a walk takes a
// core.
const warmDelay = 150 * time.Millisecond

// warmMaxBytes bounds the results readied: tables take some 16 bytes per
// byte of text, and the walk holds two Analyses until it swaps.
const warmMaxBytes = 2 << 20

// warmFrom is the first budget of a walk (in each policy's unit).
const warmFrom = 256

// The states of an entry's walk.
const (
	warmIdle int32 = iota
	warmRunning
	warmDone
)

// contentBytes is what a result's blocks hold: their text and image data.
func contentBytes(res retention.Result) int64 {
	var n int64
	for _, b := range res.Content {
		n += int64(len(b.Text) + len(b.Data))
	}
	return n
}

// startWarm readies c in the background, unless it is ready or readying.
// Walks run one at a time, newest result only: the Analyses of the result
// on screen (its routes and estimators) are readied in turn, and opening
// another result cancels them.
func (r *Retention) startWarm(c *cached, req RetainRequest) {
	if req.ResultID <= 0 || contentBytes(c.res) > warmMaxBytes || !c.warm.CompareAndSwap(warmIdle, warmRunning) {
		return
	}
	id := c.key.resultID
	r.cache.warmResult.Store(id)
	r.cache.warming.Add(1)
	time.AfterFunc(warmDelay, func() {
		defer r.cache.warming.Done()
		r.cache.walk.Lock()
		defer r.cache.walk.Unlock()
		if r.warm(c, id) {
			c.warm.Store(warmDone)
		} else {
			c.warm.Store(warmIdle)
		}
	})
}

// warm walks a copy of c's Analysis (and of its own yardstick) and swaps it
// in; false when another result was opened first.
func (r *Retention) warm(c *cached, id int64) bool {
	moved := func() bool { return r.cache.warmResult.Load() != id }
	if moved() {
		return false
	}
	cur := c.analysis()
	a, err := retention.Analyse(c.res, cur.Estimator(), c.key.route, retention.AnalyseOptions{Call: cur.Call()})
	if err != nil {
		return false
	}
	y := c.buildYardstick()
	for _, info := range retention.Policies() {
	walk:
		for b := int64(warmFrom); b <= retention.MaxBudget; b *= 2 {
			if moved() {
				return false
			}
			pol, s, err := settingsFor(info.Name, nil, &b)
			if err != nil {
				break
			}
			o := a.Run(pol, s)
			if y != nil {
				retention.Price(o, y)
			}
			switch o.Status {
			case retention.StatusWithinBudget, retention.StatusDisabled, retention.StatusPassThrough, retention.StatusUnsupported:
				break walk // no larger budget cuts
			}
		}
	}
	c.a.Store(a)
	if y != nil {
		c.yard.Store(y)
	}
	return true
}
