package retention

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Replaying a recorded decision: run the policy the record shows on the
// original, with the recorded spill locator and the harness's estimator,
// and say whether that reproduces what the model saw byte for byte. dsh logs
// no budget, so the shipped default is tried first; where it does not
// reproduce, the budgets that do are searched for. The outcome is piecewise
// constant in the budget and, between the budgets where the notice stops
// fitting and where the whole result fits, the omitted bytes and images only
// fall as the budget grows, so two bisections on them bound the range.

// ReplayInput is a recorded decision to reproduce.
type ReplayInput struct {
	// Recorded is the model-facing content the record holds.
	Recorded []Block
	// Original is the complete result (for dsh-bytes, the spill file's
	// text as one text block).
	Original Result
	// Policy names the policy and era ("" is DefaultPolicy); Params are its
	// parameters other than the budget.
	Policy string
	Params Params
	// Budget in the policy's unit; nil tries the shipped default and then
	// searches.
	Budget *int64
	// Estimator ("" is the policy's own) and Route ("" is DefaultRoute).
	Estimator string
	Route     string
	// Call is the host's context. An empty Spill takes the locator and hint
	// of the recorded notice.
	Call        Call
	HandlePaths map[int]string
}

// Where a replay's budget came from.
const (
	BudgetGiven   = "given"
	BudgetDefault = "default"
	BudgetRange   = "range"
)

// BudgetSpan is a closed range of budgets.
type BudgetSpan struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// Difference is where a replay first departs from the record: the content
// block, the byte offset in its text, and a short excerpt of each side from
// there.
type Difference struct {
	Block    int    `json:"block"`
	Offset   int64  `json:"offset"`
	Recorded string `json:"recorded"`
	Replayed string `json:"replayed"`
	Reason   string `json:"reason"`
}

// ReplayReport says whether a replay reproduced the record.
type ReplayReport struct {
	Reproduced bool `json:"reproduced"`
	// Budget is the budget the reported outcome was decided at, and
	// BudgetSource where it came from (BudgetGiven, BudgetDefault or
	// BudgetRange).
	Budget       int64  `json:"budget"`
	BudgetSource string `json:"budgetSource"`
	// Range is every budget that reproduces the record, when it was
	// searched for and found.
	Range *BudgetSpan `json:"range,omitempty"`
	// Difference is set when the outcome at Budget differs from the record.
	Difference *Difference `json:"difference,omitempty"`
	Outcome    Outcome     `json:"outcome"`
}

// Replay runs in and compares the outcome with the record. The error is for
// invalid options only.
func Replay(in ReplayInput) (ReplayReport, error) {
	pol, err := LookupPolicy(in.Policy)
	if err != nil {
		return ReplayReport{}, err
	}
	info := pol.Info()
	if in.Estimator == "" {
		in.Estimator = info.Estimator
	}
	est, err := EstimatorFor(in.Estimator, in.Route)
	if err != nil {
		return ReplayReport{}, err
	}
	notice, hasNotice := recordedNotice(in.Recorded)
	if in.Call.Spill.Locator == "" && hasNotice {
		in.Call.Spill = SpillRef{Locator: notice.Path, Hint: notice.Hint}
	}
	a, err := Analyse(in.Original, est, in.Route, AnalyseOptions{Call: in.Call, HandlePaths: in.HandlePaths})
	if err != nil {
		return ReplayReport{}, err
	}
	decide := func(b int64) (Outcome, error) {
		p := Params{}
		for k, v := range in.Params {
			p[k] = v
		}
		if info.Budget != "" {
			p[info.Budget] = strconv.FormatInt(b, 10)
		}
		s, err := info.Resolve(p)
		if err != nil {
			return Outcome{}, err
		}
		return a.Run(pol, s), nil
	}
	rep := ReplayReport{BudgetSource: BudgetGiven}
	if in.Budget != nil {
		rep.Budget = *in.Budget
	} else {
		rep.BudgetSource = BudgetDefault
		for _, d := range info.Params {
			if d.Name == info.Budget {
				if rep.Budget, err = strconv.ParseInt(d.Default, 10, 64); err != nil {
					return ReplayReport{}, fmt.Errorf("retention: %s: default %s %q: %w", info.Name, d.Name, d.Default, err)
				}
			}
		}
	}
	o, err := decide(rep.Budget)
	if err != nil {
		return ReplayReport{}, err
	}
	rep.Outcome, rep.Difference = o, CompareContent(in.Recorded, o.Content)
	rep.Reproduced = rep.Difference == nil
	if rep.Reproduced || in.Budget != nil || !hasNotice || info.Budget == "" {
		return rep, nil
	}
	span, ok := searchBudgets(decide, in.Recorded, notice)
	if !ok {
		return rep, nil
	}
	o, _ = decide(span.Min)
	return ReplayReport{Reproduced: true, Budget: span.Min, BudgetSource: BudgetRange, Range: &span, Outcome: o}, nil
}

// recordedNotice is the notice closing the recorded content's last text.
func recordedNotice(blocks []Block) (NoticeMatch, bool) {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].Type == TypeText {
			return RecogniseNotice(blocks[i].Text)
		}
	}
	return NoticeMatch{}, false
}

// searchBudgets finds the budgets whose outcome is the record, by bisection
// on the omitted counts the recorded notice states.
func searchBudgets(decide func(int64) (Outcome, error), recorded []Block, n NoticeMatch) (BudgetSpan, bool) {
	wantBytes, wantImages := n.OmittedBytes, n.OmittedImages
	cuts := func(o Outcome) bool { return o.Status == StatusReplaced || o.Status == StatusNoticeOnly }
	// reached: the budget keeps at least as much as the record (or all).
	reached := func(b int64) bool {
		o, err := decide(b)
		if err != nil {
			return false
		}
		if o.Status == StatusWithinBudget {
			return true
		}
		return cuts(o) && o.OmittedBytes <= wantBytes && o.OmittedImages <= wantImages
	}
	// short: the budget keeps at most as much as the record (or cannot cut).
	short := func(b int64) bool {
		o, err := decide(b)
		if err != nil {
			return false
		}
		if o.Status == StatusPreserved {
			return true
		}
		return cuts(o) && o.OmittedBytes >= wantBytes && o.OmittedImages >= wantImages
	}
	lo := firstTrue(reached, 0, MaxBudget)
	hi := lastTrue(short, 0, MaxBudget)
	if lo < 0 || hi < 0 || lo > hi {
		return BudgetSpan{}, false
	}
	same := func(b int64) bool {
		o, err := decide(b)
		return err == nil && CompareContent(recorded, o.Content) == nil
	}
	if !same(lo) {
		return BudgetSpan{}, false
	}
	if !same(hi) {
		// Not constant over the bounds (a tokenizer's counts need not be
		// monotone): keep the reproducing stretch that starts at lo.
		hi = lastTrue(func(b int64) bool { return b <= lo || same(b) }, lo, hi)
	}
	return BudgetSpan{Min: lo, Max: hi}, true
}

// firstTrue is the smallest b in [lo, hi] with f(b), f monotone false then
// true; -1 if none.
func firstTrue(f func(int64) bool, lo, hi int64) int64 {
	if !f(hi) {
		return -1
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if f(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// lastTrue is the largest b in [lo, hi] with f(b), f monotone true then
// false; -1 if none.
func lastTrue(f func(int64) bool, lo, hi int64) int64 {
	if !f(lo) {
		return -1
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if f(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// excerptBytes bounds each side of a Difference.
const excerptBytes = 48

// CompareContent is nil when replayed is recorded byte for byte, else the
// first difference. Text compares by bytes; an image matches an image at
// the same position whose path is the same or unknown on either side.
func CompareContent(recorded, replayed []Block) *Difference {
	for i := 0; i < max(len(recorded), len(replayed)); i++ {
		switch {
		case i >= len(recorded):
			return &Difference{Block: i, Reason: "the replay has more blocks than the record", Replayed: excerpt(replayed[i], 0)}
		case i >= len(replayed):
			return &Difference{Block: i, Reason: "the record has more blocks than the replay", Recorded: excerpt(recorded[i], 0)}
		}
		r, p := recorded[i], replayed[i]
		if r.Type != p.Type {
			return &Difference{Block: i, Reason: fmt.Sprintf("block type %q in the record, %q in the replay", r.Type, p.Type),
				Recorded: excerpt(r, 0), Replayed: excerpt(p, 0)}
		}
		switch r.Type {
		case TypeText:
			if r.Text == p.Text {
				continue
			}
			k := 0
			for k < len(r.Text) && k < len(p.Text) && r.Text[k] == p.Text[k] {
				k++
			}
			for k > 0 && (k < len(r.Text) && !utf8.RuneStart(r.Text[k]) || k < len(p.Text) && !utf8.RuneStart(p.Text[k])) {
				k--
			}
			reason := "the texts differ"
			switch {
			case k == len(r.Text):
				reason = "the replay's text is longer"
			case k == len(p.Text):
				reason = "the record's text is longer"
			}
			return &Difference{Block: i, Offset: int64(k), Reason: reason, Recorded: excerpt(r, k), Replayed: excerpt(p, k)}
		case TypeImage:
			if r.Path != "" && p.Path != "" && r.Path != p.Path {
				return &Difference{Block: i, Reason: "a different image", Recorded: r.Path, Replayed: p.Path}
			}
		default:
			if string(r.Raw) != string(p.Raw) {
				return &Difference{Block: i, Reason: "the blocks differ", Recorded: string(r.Raw), Replayed: string(p.Raw)}
			}
		}
	}
	return nil
}

// excerpt is up to excerptBytes of a block's text from offset k, on code
// points.
func excerpt(b Block, k int) string {
	if b.Type != TypeText {
		return "[" + b.Type + "]"
	}
	s := b.Text[min(k, len(b.Text)):]
	if len(s) <= excerptBytes {
		return s
	}
	end := excerptBytes
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}
