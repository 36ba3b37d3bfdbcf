package sessions

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"spillscope/retention"
)

// Calibration: between two consecutive calls of a lane the prompt grows by
// what was added to the context: the previous call's output, the results
// of the tools it called, and any text the user or the harness added. The
// provider counted all of it; the estimators count the results. So for
// each call that first carried results, the provider's figure for them is
// the prompt's growth less the previous output, and the estimate is the
// estimators' count of those results; their ratio says how far the
// estimate is from what the provider counted, on this session, on this
// model's tokenizer.
//
// The session's ratio is the median of the calls' ratios, each weighted by
// its estimate: the calls that added most decide it, and a call whose
// growth is mostly typed text or an injected reminder (which no estimate
// here covers) moves it no more than any other single call. A call after a
// compaction, or after something replaced a result, is left out (the
// prompt shrank for reasons the estimate does not see), as are calls with
// no prompt count (Copilot CLI records output only).

// CalibrationCall is one call's comparison.
type CalibrationCall struct {
	// Lane is 0 for the session's own transcript, i for its i-th subagent;
	// Call the later call's index in that lane.
	Lane int `json:"lane"`
	Call int `json:"call"`
	// Growth is the prompt's growth from the previous call, Output that
	// call's output; Provider is Growth less Output: what the provider
	// counted of what was added besides it.
	Growth   int64 `json:"growth"`
	Output   int64 `json:"output"`
	Provider int64 `json:"provider"`
	// Estimated is the estimate of the results this call first carried.
	Estimated int64   `json:"estimated"`
	Ratio     float64 `json:"ratio"`
}

// Calibration is one estimator's comparison over a session.
type Calibration struct {
	Estimator string `json:"estimator"`
	// Calls is how many calls compared; Provider and Estimated sum their
	// figures.
	Calls     int   `json:"calls"`
	Provider  int64 `json:"provider"`
	Estimated int64 `json:"estimated"`
	// Ratio is the provider's figure per estimated token (the calls'
	// median, weighted by their estimates); 0 when no call compared.
	// Corrected figures are estimates times Ratio (the window applies it).
	Ratio float64 `json:"ratio"`
	// Error is how far the estimate is from the provider's count at that
	// ratio: 1/Ratio - 1 (-0.12: the estimate runs 12% low).
	Error float64 `json:"error"`
	// Spread is the calls' weighted median distance from Ratio, relative
	// to it: how far one call's estimate typically strays.
	Spread float64 `json:"spread"`
	// Exact is false when some estimate compared was still the size-based
	// approximation (the token phase had not counted it yet).
	Exact bool `json:"exact"`
	// Unread counts results that could not be read back to count (their
	// source changed since indexing); their calls are left out.
	Unread  int               `json:"unread,omitempty"`
	PerCall []CalibrationCall `json:"perCall"`
}

// CalibrationLane is one lane's figures for Calibrate, by call: its
// prompt and output, the estimate of the results it first carried, and
// whether the context shrank or is unknown before it (Skip).
type CalibrationLane struct {
	Prompts, Outputs, Added []int64
	Skip                    []bool
	// Exact is false when some of Added is approximated.
	Exact bool
}

// Calibrate compares the lanes' growth with the estimates on estimator.
func Calibrate(estimator string, lanes []CalibrationLane) Calibration {
	c := Calibration{Estimator: estimator, Exact: true, PerCall: []CalibrationCall{}}
	for li, l := range lanes {
		counted := false
		for k := 1; k < len(l.Prompts); k++ {
			if l.Skip[k] || l.Added[k] <= 0 || l.Prompts[k] <= 0 || l.Prompts[k-1] <= 0 {
				continue
			}
			g := l.Prompts[k] - l.Prompts[k-1]
			pc := CalibrationCall{Lane: li, Call: k, Growth: g, Output: l.Outputs[k-1], Provider: g - l.Outputs[k-1], Estimated: l.Added[k]}
			pc.Ratio = float64(pc.Provider) / float64(pc.Estimated)
			c.PerCall = append(c.PerCall, pc)
			c.Provider += pc.Provider
			c.Estimated += pc.Estimated
			counted = true
		}
		if counted && !l.Exact {
			c.Exact = false
		}
	}
	c.Calls = len(c.PerCall)
	if c.Calls == 0 {
		return c
	}
	ratios := make([]weighted, len(c.PerCall))
	for i, pc := range c.PerCall {
		ratios[i] = weighted{pc.Ratio, float64(pc.Estimated)}
	}
	c.Ratio = weightedMedian(ratios)
	if c.Ratio > 0 {
		c.Error = 1/c.Ratio - 1
		for i := range ratios {
			ratios[i].v = math.Abs(ratios[i].v/c.Ratio - 1)
		}
		c.Spread = weightedMedian(ratios)
	}
	return c
}

type weighted struct{ v, w float64 }

// weightedMedian is the value at which half the weight lies on either
// side: the lower one when a value's weight ends exactly at the half.
func weightedMedian(xs []weighted) float64 {
	sort.Slice(xs, func(i, j int) bool { return xs[i].v < xs[j].v })
	var total float64
	for _, x := range xs {
		total += x.w
	}
	var acc float64
	for _, x := range xs {
		acc += x.w
		if acc >= total/2 {
			return x.v
		}
	}
	return xs[len(xs)-1].v
}

// calibrationLanes turns a timeline's lanes into Calibrate's input, each
// result priced by tokens (its figure, and whether that is exact; ok
// false for a result that could not be priced, which leaves its call out).
func calibrationLanes(t Timeline, tokens func(TimelineResult) (n int64, exact bool, ok bool)) []CalibrationLane {
	lanes := append([]TimelineLane{t.TimelineLane}, t.Subagents...)
	out := make([]CalibrationLane, len(lanes))
	for li, l := range lanes {
		n := len(l.Calls)
		cl := CalibrationLane{Prompts: make([]int64, n), Outputs: make([]int64, n), Added: make([]int64, n), Skip: make([]bool, n), Exact: true}
		for k, c := range l.Calls {
			cl.Prompts[k], cl.Outputs[k] = c.Prompt, c.Output
		}
		for _, c := range l.Compactions {
			if c.Call >= 0 {
				cl.Skip[c.Call] = true
			}
		}
		for _, r := range l.Results {
			if r.Until >= 0 {
				cl.Skip[r.Until] = true
			}
			if r.Call < 0 {
				continue
			}
			v, exact, ok := tokens(r)
			if !ok {
				cl.Skip[r.Call] = true
				continue
			}
			cl.Added[r.Call] += v
			if !exact {
				cl.Exact = false
			}
		}
		out[li] = cl
	}
	return out
}

// CalibrateSession compares a session's growth with every token estimator
// (retention.CountsTokens) on each transcript's route: each result of its
// lanes is read back once and counted as the token phase counts it
// (priceContent), on each estimator in turn.
func (d *DB) CalibrateSession(ctx context.Context, sessionRowID int64) ([]Calibration, error) {
	t, err := d.Timeline(ctx, sessionRowID)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range retention.EstimatorNames() {
		if retention.CountsTokens(n) {
			names = append(names, n)
		}
	}
	ests := make([]retention.Estimator, len(names))
	for i, n := range names {
		if ests[i], err = retention.LookupEstimator(n); err != nil {
			return nil, err
		}
	}
	lanes := append([]TimelineLane{t.TimelineLane}, t.Subagents...)
	var rows []ResultRow
	for _, l := range lanes {
		lr, err := d.Results(ctx, ResultFilter{SessionRowID: l.SessionRowID})
		if err != nil {
			return nil, err
		}
		rows = append(rows, lr...)
	}
	imgs, err := d.sessionAttachments(ctx, lanes)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	counts := map[int64][]int64{}
	err = d.eachRow(ctx, rows, SweepOptions{}, func(r ResultRow, res retention.Result, route string) error {
		_, rt, _ := routeFor(route)
		n := make([]int64, len(ests))
		for i, e := range ests {
			text, image := priceContent(res.Content, e, rt, imgs[r.ID])
			n[i] = text + image
		}
		mu.Lock()
		counts[r.ID] = n
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sessions: calibrate session %d: %w", sessionRowID, err)
	}
	out := make([]Calibration, len(names))
	for i, name := range names {
		out[i] = Calibrate(name, calibrationLanes(t, func(r TimelineResult) (int64, bool, bool) {
			n, ok := counts[r.ID]
			if !ok {
				return 0, false, false
			}
			return n[i], true, true
		}))
		out[i].Unread = len(rows) - len(counts)
	}
	return out, nil
}

// sessionAttachments maps the lanes' results to their stored images by
// block index, for pricing.
func (d *DB) sessionAttachments(ctx context.Context, lanes []TimelineLane) (map[int64]map[int]Attachment, error) {
	out := map[int64]map[int]Attachment{}
	for _, l := range lanes {
		rows, err := d.db.QueryContext(ctx, `SELECT ra.result_id, ra.block_index, a.sha256, a.media_type, a.width, a.height FROM result_attachments ra
JOIN attachments a ON a.sha256 = ra.sha256 JOIN tool_results r ON r.id = ra.result_id WHERE r.session_id = ?`, l.SessionRowID)
		if err != nil {
			return nil, fmt.Errorf("sessions: attachments of session %d: %w", l.SessionRowID, err)
		}
		for rows.Next() {
			var id int64
			var bi int
			var a Attachment
			if err := rows.Scan(&id, &bi, &a.SHA256, &a.MediaType, &a.Width, &a.Height); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sessions: attachments of session %d: %w", l.SessionRowID, err)
			}
			if out[id] == nil {
				out[id] = map[int]Attachment{}
			}
			out[id][bi] = a
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
