package app

import (
	"context"
	"fmt"

	"spillscope/sessions"
)

// ReplayRequest asks to replay an indexed result's recorded decision.
// Budget, in the policy's own unit, replays at that budget; nil tries the
// shipped default and, where that does not reproduce, searches for the
// range of budgets that does (dsh logs no budget).
type ReplayRequest struct {
	ResultID int64  `json:"resultId"`
	Budget   *int64 `json:"budget"`
}

// ReplayView is what "Replay as recorded" found, as the result view shows
// it. Reproduced says whether the replay gives the recorded model-facing
// content byte for byte; Difference, when it does not, where it first
// departs. Excerpts are masked.
type ReplayView struct {
	Replayable bool `json:"replayable"`
	// Code and Reason say why a result cannot be replayed: "no-decision",
	// "no-notice", "no-spill-file" (SpillState says why), "too-large" or
	// "nothing"; Reason in English.
	Code       string   `json:"code"`
	Reason     string   `json:"reason"`
	Reproduced bool     `json:"reproduced"`
	Policy     string   `json:"policy"`
	Tried      []string `json:"tried"`
	Estimator  string   `json:"estimator"`
	Route      string   `json:"route"`
	// Budget is the budget the reported replay ran at, in BudgetUnit;
	// BudgetSource is "given", "default" (the shipped default) or "range"
	// (searched: every budget from BudgetMin to BudgetMax reproduces).
	Budget       int64             `json:"budget"`
	BudgetUnit   string            `json:"budgetUnit"`
	BudgetSource string            `json:"budgetSource"`
	BudgetRange  *BudgetRange      `json:"budgetRange"`
	Difference   *ReplayDifference `json:"difference"`
	// SpillPath and SpillState are the spill file the original came from.
	SpillPath     string `json:"spillPath"`
	SpillState    string `json:"spillState"`
	Notice        string `json:"notice"`
	OmittedBytes  int64  `json:"omittedBytes"`
	OmittedImages int    `json:"omittedImages"`
}

// BudgetRange is a closed range of budgets.
type BudgetRange struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// ReplayDifference is where a replay first departs from the record: the
// content block, the byte offset in its text, and a masked excerpt of each
// side from there.
type ReplayDifference struct {
	Block    int    `json:"block"`
	Offset   int64  `json:"offset"`
	Reason   string `json:"reason"`
	Recorded string `json:"recorded"`
	Replayed string `json:"replayed"`
}

// Replay replays one indexed result as recorded: the policy and era its
// notice shows, the notice's locator and hint, the harness's estimator and
// the session's route, with the spill file's text as the original.
func (r *Retention) Replay(req ReplayRequest) (ReplayView, error) {
	if req.ResultID <= 0 {
		return ReplayView{}, fmt.Errorf("app: result id %d is not valid", req.ResultID)
	}
	db, err := r.store.DB()
	if err != nil {
		return ReplayView{}, err
	}
	rep, err := db.Replay(context.Background(), req.ResultID, sessions.ReplayOptions{Budget: req.Budget, Roots: r.store.Roots()})
	if err != nil {
		return ReplayView{}, err
	}
	return replayView(rep), nil
}

func replayView(rep sessions.Replay) ReplayView {
	m := rep.Summary()
	v := ReplayView{Replayable: m.Replayable, Code: m.Code, Reason: m.Reason, Reproduced: m.Reproduced, Policy: m.Policy, Tried: m.Tried,
		Estimator: m.Estimator, Route: m.Route, BudgetUnit: m.BudgetUnit, BudgetSource: m.BudgetSource, SpillPath: m.SpillPath,
		SpillState: m.SpillState, Notice: m.Notice, OmittedBytes: m.OmittedBytes, OmittedImages: m.OmittedImages}
	if m.Budget != nil {
		v.Budget = *m.Budget
	}
	if r := m.BudgetRange; r != nil {
		v.BudgetRange = &BudgetRange{Min: r.Min, Max: r.Max}
	}
	if d := m.Difference; d != nil {
		v.Difference = &ReplayDifference{Block: d.Block, Offset: d.Offset, Reason: d.Reason, Recorded: d.Recorded, Replayed: d.Replayed}
	}
	return v
}

// ReplacedView is what replaced a result on the model's surface: the kind
// ("prune", "compaction", "rewrite"), the replacing event's seq and line,
// the compaction/prune or summary event behind it (-1 for none) and a
// compaction's id; LastSeen the content the model saw last, when the
// replacement had content.
type ReplacedView struct {
	Kind         string      `json:"kind"`
	Seq          int64       `json:"seq"`
	EventSeq     int64       `json:"eventSeq"`
	Line         int64       `json:"line"`
	Ref          string      `json:"ref"`
	LastSeen     []BlockView `json:"lastSeen"`
	LastSeenGone string      `json:"lastSeenGone"`
}

func replacedView(ctx context.Context, db *sessions.DB, q ResultQuery) (*ReplacedView, error) {
	rp, err := db.Replacement(ctx, q.ID)
	if err != nil || rp == nil {
		return nil, err
	}
	v := &ReplacedView{Kind: rp.Kind, Seq: rp.Seq, EventSeq: rp.EventSeq, Line: rp.Line, Ref: rp.Ref, LastSeen: []BlockView{}, LastSeenGone: rp.LastSeenGone}
	if rp.LastSeen != nil {
		v.LastSeen, _ = blockViews(rp.LastSeen.Content, db.AttachmentDir(), q.Reveal, textPages{})
	}
	return v, nil
}
