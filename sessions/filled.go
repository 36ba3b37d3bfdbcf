package sessions

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"spillscope/retention"
)

// FilledOptions choose the call "what filled it" looks at and the policy
// it re-runs on each result still in the context there.
type FilledOptions struct {
	// Call is the index of the call in the transcript's lane; -1 is the
	// lane's peak (its largest prompt).
	Call int
	// Policy ("" is retention.DefaultPolicy, the seed's dsh-tokens) and
	// Budget (in the policy's unit) are the re-run's.
	Policy string
	Budget int64
	// Limit caps how many results, largest first, are re-run (0: all);
	// the rest are counted in Filled.Others.
	Limit     int
	ReadTools []string
}

// FilledResult is one result still in the context at the call.
type FilledResult struct {
	TimelineResult
	// Share is the result's part of the call's prompt (its tokens over
	// the prompt the provider counted).
	Share float64 `json:"share"`
	// Inline is what the policy would have left in the context of it, and
	// Saved the difference from its tokens (0 where it would keep it
	// whole), both on the route's estimator; Status the policy's outcome
	// ("" when the result could not be read back: Unread).
	Inline int64  `json:"inline"`
	Saved  int64  `json:"saved"`
	Status string `json:"status"`
	Unread bool   `json:"unread,omitempty"`
}

// Filled is what filled one call's context.
type Filled struct {
	Call   int    `json:"call"`
	At     string `json:"at"`
	Prompt int64  `json:"prompt"`
	// Results are the results still in the context there, largest first
	// (the first Limit of them); Tokens sums every result's tokens, Others
	// counts those past the limit.
	Results []FilledResult `json:"results"`
	Tokens  int64          `json:"tokens"`
	Others  int            `json:"others"`
	// Policy, Budget and Saved: the policy re-run on them and what it
	// would have saved over the listed results.
	Policy string `json:"policy"`
	Budget int64  `json:"budget"`
	Saved  int64  `json:"saved"`
}

// Filled lists the results a transcript's model still had in its context
// at one call (Timeline's InContext), with each one's share of the prompt
// and what the policy at the budget would have left of it: each result is
// read back and decided by retention.Sweep on the session's route, as a
// sweep decides it.
func (d *DB) Filled(ctx context.Context, sessionRowID int64, opts FilledOptions) (Filled, error) {
	own, _, err := d.laneRows(ctx, sessionRowID)
	if err != nil {
		return Filled{}, err
	}
	l, err := d.lane(ctx, own)
	if err != nil {
		return Filled{}, err
	}
	k := opts.Call
	if k < 0 {
		k = l.Peak
	}
	if k < 0 || k >= len(l.Calls) {
		return Filled{}, fmt.Errorf("%w: call %d of session %d (it has %d)", ErrNotFound, opts.Call, sessionRowID, len(l.Calls))
	}
	policy := opts.Policy
	if policy == "" {
		policy = retention.DefaultPolicy
	}
	f := Filled{Call: k, At: l.Calls[k].At, Prompt: l.Calls[k].Prompt, Policy: policy, Budget: opts.Budget, Results: []FilledResult{}}
	in := l.InContext(k)
	for _, r := range in {
		f.Tokens += r.Tokens
	}
	if opts.Limit > 0 && len(in) > opts.Limit {
		f.Others = len(in) - opts.Limit
		in = in[:opts.Limit]
	}
	byID := map[int64]int{}
	for i, r := range in {
		fr := FilledResult{TimelineResult: r, Unread: true}
		if f.Prompt > 0 {
			fr.Share = float64(r.Tokens) / float64(f.Prompt)
		}
		f.Results = append(f.Results, fr)
		byID[r.ID] = i
	}
	all, err := d.Results(ctx, ResultFilter{SessionRowID: sessionRowID})
	if err != nil {
		return Filled{}, err
	}
	var rows []ResultRow
	for _, r := range all {
		if _, ok := byID[r.ID]; ok {
			rows = append(rows, r)
		}
	}
	var mu sync.Mutex
	err = d.eachRow(ctx, rows, SweepOptions{}, func(r ResultRow, res retention.Result, route string) error {
		outs, err := retention.Sweep(res, []int64{opts.Budget}, retention.Options{Policy: policy, Route: route, ToolName: r.ToolName, ReadTools: opts.ReadTools})
		if err != nil {
			return err
		}
		o := outs[0]
		UseCountedTotal(&o, r)
		mu.Lock()
		defer mu.Unlock()
		fr := &f.Results[byID[r.ID]]
		fr.Unread, fr.Status = false, o.Status
		fr.Inline = int64(o.Tokens.Total)
		fr.Saved = max(int64(o.OriginalTokens)-fr.Inline, 0)
		return nil
	})
	if err != nil {
		return Filled{}, err
	}
	for _, r := range f.Results {
		f.Saved += r.Saved
	}
	sort.SliceStable(f.Results, func(i, j int) bool { return f.Results[i].Tokens > f.Results[j].Tokens })
	return f, nil
}
