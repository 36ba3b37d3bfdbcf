package sessions

import (
	"context"
	"fmt"
	"io"

	"spillscope/retention"
	"spillscope/retention/links"
)

// Replaying a recorded decision: a harness whose log holds what its own
// spill policy made of a result (dsh logs the cut copy, and the complete
// result is the spill file its notice names) says how to run that policy
// again; the index supplies the record, the spill file through the file
// rule, and stored copies of the images the file names. The outcome says
// whether the replay reproduces the record byte for byte, and where it
// first differs.

// Replayer is a harness that can replay its recorded retention decisions.
type Replayer interface {
	// ReplayInputs are the replays to try for one recorded result, best
	// first: the policy and era its notice shows (and, where the notice
	// alone cannot tell, the other), the original, the host's context and
	// the route. The first that reproduces the record is the answer.
	ReplayInputs(r RecordedResult) ([]retention.ReplayInput, error)
}

// RecordedResult is what a replay starts from.
type RecordedResult struct {
	Row ResultRow
	// Recorded is the content as the index reads it back (images at their
	// stored copies).
	Recorded retention.Result
	// Spill is the file rule's verdict on the spill file; Text its text
	// when it exists. Original, when set, stands for the complete result
	// instead (given by the caller).
	Spill    FileCheck
	Text     string
	Original *retention.Result
	Ref      SessionRef
	// Image reads an image a spill file names through the session's file
	// rule into the attachment store, and returns the stored copy's path.
	Image func(path string) (string, error)
	// Budget is the budget to replay at; nil tries the shipped default
	// and then searches for the range that reproduces.
	Budget *int64
}

// ReplayOptions tune a replay.
type ReplayOptions struct {
	// Budget in the policy's own unit; nil: see RecordedResult.Budget.
	Budget *int64
	// Roots are the configured session roots (spill files kept under one
	// are found there).
	Roots []string
	// Original is the complete result when the caller has it from
	// elsewhere (the spill file was swept, a test rebuilt it).
	Original *retention.Result
}

// Why a result cannot be replayed (Replay.Code): stable, the window
// translates them.
const (
	// ReplayNoDecision: the result's harness records no decision to replay.
	ReplayNoDecision = "no-decision"
	// ReplayNoNotice: the result holds no spill notice.
	ReplayNoNotice = "no-notice"
	// ReplayNoSpillFile: the spill file is not there to read (SpillState
	// says why: missing, outside, other-session, unreadable).
	ReplayNoSpillFile = "no-spill-file"
	// ReplayTooLarge: the spill file is over the size read for a replay.
	ReplayTooLarge = "too-large"
	// ReplayNothing: the harness found nothing to run.
	ReplayNothing = "nothing"
)

// CanReplay says whether results of a harness can be replayed as
// recorded (when they hold a notice).
func CanReplay(harness string) bool {
	h, ok := LookupHarness(harness)
	if !ok {
		return false
	}
	_, ok = h.(Replayer)
	return ok
}

// Replay is what a replay found.
type Replay struct {
	// Replayable is false when there is nothing to replay from; Code and
	// Reason then say why (no notice, the spill file missing, a harness
	// that records no decision).
	Replayable bool   `json:"replayable"`
	Code       string `json:"code,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Policy is the policy and era the reported replay ran; Tried every
	// policy tried, in order.
	Policy string   `json:"policy,omitempty"`
	Tried  []string `json:"tried,omitempty"`
	// SpillPath and SpillState are the spill file the original came from.
	SpillPath  string                 `json:"spillPath,omitempty"`
	SpillState string                 `json:"spillState,omitempty"`
	Report     retention.ReplayReport `json:"report"`
}

// maxReplayFile bounds a spill file read whole for a replay.
const maxReplayFile = 1 << 30

// Replay replays the recorded decision of one indexed result.
func (d *DB) Replay(ctx context.Context, id int64, opts ReplayOptions) (Replay, error) {
	row, rec, err := d.LoadResult(ctx, id)
	if err != nil {
		return Replay{}, err
	}
	h, err := harnessFor(row.Harness)
	if err != nil {
		return Replay{}, err
	}
	rp, ok := h.(Replayer)
	if !ok {
		return Replay{Code: ReplayNoDecision, Reason: fmt.Sprintf("%s records no retention decision to replay", h.Label())}, nil
	}
	if row.Spill == nil {
		return Replay{Code: ReplayNoNotice, Reason: "the result holds no spill notice: its harness did not cut it"}, nil
	}
	ref := d.sessionRef(row.Harness, row.Path, row.Root, row.SessionID, opts.Roots)
	r := RecordedResult{Row: row, Recorded: rec, Original: opts.Original, Ref: ref, Budget: opts.Budget}
	r.Image = func(path string) (string, error) {
		data, err := RuleFor(ref, "").ReadAllowed(path, maxImageFile)
		if err != nil {
			return "", err
		}
		_, stored, err := StoreAttachment(d.attaches, data, StoreOptions{KeepUnknown: true})
		return stored, err
	}
	out := Replay{SpillPath: row.Spill.Path}
	if opts.Original == nil {
		sf, err := d.OpenSpill(ctx, id, opts.Roots)
		if err != nil {
			return Replay{}, err
		}
		r.Spill, out.SpillPath, out.SpillState = sf.FileCheck, sf.Path, sf.State
		if sf.File == nil {
			out.Code, out.Reason = ReplayNoSpillFile, "the complete result is not there to replay from: the spill file "+spillStateText(sf.FileCheck)
			return out, nil
		}
		text, err := io.ReadAll(io.LimitReader(sf.File, maxReplayFile+1))
		sf.File.Close()
		if err != nil {
			return Replay{}, fmt.Errorf("sessions: replay %d: spill file: %w", id, err)
		}
		if len(text) > maxReplayFile {
			out.Code, out.Reason = ReplayTooLarge, fmt.Sprintf("the spill file is over %d bytes", maxReplayFile)
			return out, nil
		}
		r.Text = string(text)
	}
	inputs, err := rp.ReplayInputs(r)
	if err != nil {
		return Replay{}, err
	}
	if len(inputs) == 0 {
		out.Code, out.Reason = ReplayNothing, "nothing to replay"
		return out, nil
	}
	out.Replayable = true
	for i, in := range inputs {
		if err := ctx.Err(); err != nil {
			return Replay{}, err
		}
		rep, err := retention.Replay(in)
		if err != nil {
			return Replay{}, fmt.Errorf("sessions: replay %d: %w", id, err)
		}
		out.Tried = append(out.Tried, in.Policy)
		if i == 0 || rep.Reproduced {
			out.Report, out.Policy = rep, in.Policy
		}
		if rep.Reproduced {
			break
		}
	}
	return out, nil
}

// spillStateText says in English why a spill file was not read.
func spillStateText(c FileCheck) string {
	switch c.State {
	case FileMissing:
		return "is missing (harnesses and the system sweep old spill files)"
	case FileOutside:
		return "is outside the folders the session's harness writes: not opened"
	case FileOtherSession:
		return "is in another session's spill folder: not followed"
	case FileUnreadable:
		return "cannot be read: " + c.Detail
	}
	return "is " + c.State
}

// ReplaySummary is a replay as the CLI prints it and the window shows it:
// flat, and with the excerpts and the notice masked (a recorded result may
// quote credentials).
type ReplaySummary struct {
	Replayable   bool                  `json:"replayable"`
	Code         string                `json:"code,omitempty"`
	Reason       string                `json:"reason,omitempty"`
	Reproduced   bool                  `json:"reproduced"`
	Policy       string                `json:"policy,omitempty"`
	Tried        []string              `json:"tried"`
	Estimator    string                `json:"estimator,omitempty"`
	Route        string                `json:"route,omitempty"`
	Budget       *int64                `json:"budget"`
	BudgetUnit   string                `json:"budgetUnit,omitempty"`
	BudgetSource string                `json:"budgetSource,omitempty"`
	BudgetRange  *retention.BudgetSpan `json:"budgetRange"`
	Difference   *retention.Difference `json:"difference"`
	Notice       string                `json:"notice,omitempty"`
	OmittedBytes int64                 `json:"omittedBytes"`
	// OmittedImages and the spill file the original came from.
	OmittedImages int    `json:"omittedImages"`
	SpillPath     string `json:"spillPath,omitempty"`
	SpillState    string `json:"spillState,omitempty"`
}

// Summary flattens the replay and masks what it quotes.
func (r Replay) Summary() ReplaySummary {
	out := ReplaySummary{Replayable: r.Replayable, Code: r.Code, Reason: r.Reason, Policy: r.Policy, Tried: r.Tried,
		SpillPath: r.SpillPath, SpillState: r.SpillState}
	if out.Tried == nil {
		out.Tried = []string{}
	}
	if !r.Replayable {
		return out
	}
	g := r.Report
	o := g.Outcome
	b := g.Budget
	out.Reproduced, out.Budget, out.BudgetSource, out.BudgetRange = g.Reproduced, &b, g.BudgetSource, g.Range
	out.Estimator, out.Route, out.BudgetUnit = o.Estimator, o.Route, o.BudgetUnit
	out.Notice, _ = links.Mask(o.Notice)
	out.OmittedBytes, out.OmittedImages = o.OmittedBytes, o.OmittedImages
	if d := g.Difference; d != nil {
		m := *d
		m.Recorded, _ = links.Mask(d.Recorded)
		m.Replayed, _ = links.Mask(d.Replayed)
		out.Difference = &m
	}
	return out
}
