package app

import (
	"sync/atomic"
	"time"

	"spillscope/retention"
)

// Readying the open result's tables in the background.
//
// A budget's first re-run grows the token tables its cut needs, and on a
// 1 MB result a new window level costs 30-50 ms: the slowest frames of a
// budget drag were those, and a policy's first pick (15-30 ms on a slower
// machine). So once a result's Analysis is built, a copy of it runs every
// policy in the background at its shipped budget, then a second copy at
// doubling budgets until the result fits whole, a copy of the yardstick
// pricing each outcome, and each pass's copies then replace the entry's.
// The walk has its copies so a re-run never waits behind a step (one on
// the live Analysis held it for 200 ms under load), steps only once the
// window has asked nothing for warmQuiet (on two cores a step takes a core
// from the re-runs and the page; a thread of the lowest priority was tried
// and stalls the whole process: the collector's stop waits for that thread
// to be scheduled), the next walk cancels it between steps (a cancelled
// entry walks again when it is next asked), only results up to
// warmMaxBytes are readied, and figures do not change: the tables are
// exact counts, whichever call grows them.

// warmDelay lets the re-run's answer paint before a walk starts.
const warmDelay = 150 * time.Millisecond

// warmQuiet is how long the window must have asked nothing before the walk
// takes its next step: longer than the gaps of a drag, of a quick run of
// changes and of an opening's paint (at 50 ms steps beside opens made them
// slower), shorter than a pause to read the result.
const warmQuiet = 100 * time.Millisecond

// warmMaxBytes bounds the results readied: tables take some 16 bytes per
// byte of text, a walk grows them for every budget, and it holds two
// Analyses until it swaps.
const warmMaxBytes = 2 << 20

// warmFrom is the first budget of a walk (in each policy's unit).
const warmFrom = 256

// The states of an entry's walk.
const (
	warmIdle int32 = iota
	warmRunning
	warmDone
)

// lastCall is when the window last called a result binding (Unix
// nanoseconds): a walk waits for warmQuiet after it.
var lastCall atomic.Int64

// noteCall records a call from the window.
func noteCall() { lastCall.Store(time.Now().UnixNano()) }

// contentBytes is what a result's blocks hold: their text and image data.
func contentBytes(res retention.Result) int64 {
	var n int64
	for _, b := range res.Content {
		n += int64(len(b.Text) + len(b.Data))
	}
	return n
}

// startWarm readies c in the background, unless it is ready or readying.
// One walk runs at a time, for the Analysis asked for last: a newer walk
// cancels it.
func (r *Retention) startWarm(c *cached, req RetainRequest) {
	// Paged requests are the window's result view; the CLI and exports ask
	// once and have no later change to ready.
	if !req.Paged || req.ResultID <= 0 || contentBytes(c.res) > warmMaxBytes || !c.warm.CompareAndSwap(warmIdle, warmRunning) {
		return
	}
	gen := r.cache.warmGen.Add(1)
	policy := orDefault(req.Policy, retention.DefaultPolicy)
	r.cache.warming.Add(1)
	time.AfterFunc(warmDelay, func() {
		defer r.cache.warming.Done()
		r.cache.walk.Lock()
		defer r.cache.walk.Unlock()
		if r.warm(c, policy, gen) {
			c.warm.Store(warmDone)
		} else {
			c.warm.Store(warmIdle)
		}
	})
}

// quiet waits until the window has asked nothing for warmQuiet; false when
// a newer walk started meanwhile.
func (r *Retention) quiet(gen int64) bool {
	for {
		if r.cache.warmGen.Load() != gen {
			return false
		}
		since := time.Since(time.Unix(0, lastCall.Load()))
		if since >= warmQuiet {
			return true
		}
		time.Sleep(warmQuiet - since)
	}
}

// warm readies c in two passes, each on copies of c's Analysis and of its
// yardstick that it swaps in when done; false when a newer walk started
// first. The first pass runs every policy once at its shipped settings,
// the policy asked for first: a policy switch asks for those, and the pass
// is a handful of steps, so it is in place a few hundred milliseconds after
// the result opens. The second walks each policy at doubling budgets until
// the result fits whole, for a budget drag or a typed budget, after the
// shipped settings again (its copy replaces the first pass's). A swapped-in
// copy is never stepped again: the second pass makes copies of its own.
func (r *Retention) warm(c *cached, policy string, gen int64) bool {
	var infos []retention.PolicyInfo // the policy asked for first
	for _, info := range retention.Policies() {
		if info.Name == policy {
			infos = append([]retention.PolicyInfo{info}, infos...)
		} else {
			infos = append(infos, info)
		}
	}
	shipped := func(a, y *retention.Analysis) bool {
		for _, info := range infos {
			b, ok := shippedBudget(info)
			if !ok {
				continue
			}
			if !r.quiet(gen) {
				return false
			}
			if pol, s, err := settingsFor(info.Name, nil, &b); err == nil {
				runPriced(a, y, pol, s)
			}
		}
		return true
	}
	doubling := func(a, y *retention.Analysis) bool {
		if !shipped(a, y) { // this copy replaces the first pass's
			return false
		}
		for _, info := range infos {
			name := info.Name
		walk:
			for b := int64(warmFrom); b <= retention.MaxBudget; b *= 2 {
				if !r.quiet(gen) {
					return false
				}
				pol, s, err := settingsFor(name, nil, &b)
				if err != nil {
					break
				}
				switch runPriced(a, y, pol, s).Status {
				case retention.StatusWithinBudget, retention.StatusDisabled, retention.StatusPassThrough, retention.StatusUnsupported:
					break walk // no larger budget cuts
				}
			}
		}
		return true
	}
	for pass, run := range []func(a, y *retention.Analysis) bool{shipped, doubling} {
		if !r.quiet(gen) {
			return false
		}
		cur := c.analysis()
		a, err := retention.Analyse(c.res, cur.Estimator(), c.key.route, retention.AnalyseOptions{Call: cur.Call()})
		if err != nil {
			return false
		}
		y := c.buildYardstick()
		if !run(a, y) {
			return false
		}
		c.a.Store(a)
		if y != nil {
			c.yard.Store(y)
		}
		if r.cache.warmed != nil {
			r.cache.warmed(c, pass)
		}
	}
	return true
}

// runPriced decides pol on a and prices the outcome on the yardstick y when
// there is one, as a re-run would, so both grow the tables that re-run needs.
func runPriced(a, y *retention.Analysis, pol retention.Policy, s retention.Settings) retention.Outcome {
	o := a.Run(pol, s)
	if y != nil {
		retention.Price(o, y)
	}
	return o
}
