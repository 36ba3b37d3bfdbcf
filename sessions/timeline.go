package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"spillscope/retention"
)

// The context timeline (issue 14): how one session's context grew, call by
// call. Every figure comes from the index as stored (the provider's counts
// of each call, the harness's compactions, each result's place and token
// count); what is derived here is where each result and compaction falls
// between the calls, which results the model still had in its context at a
// call, and how the estimates compare with what the provider counted.

// TimelineCall is one model call of a lane, in log order.
type TimelineCall struct {
	// At and Line are where the call's response began in the log (its
	// first record).
	At   string `json:"at"`
	Line int64  `json:"line"`
	// The provider's counts: input (uncached), cache read, cache write,
	// output (reasoning included) and the reasoning part; Prompt is input,
	// cache read and cache write together.
	Input      int64 `json:"input"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Output     int64 `json:"output"`
	Reasoning  int64 `json:"reasoning"`
	Prompt     int64 `json:"prompt"`
	// Model is the call's model (the session's where the log names none);
	// ContextWindow the window the log recorded for it, 0 for none.
	Model         string `json:"model"`
	ContextWindow int64  `json:"contextWindow"`
	// Carried counts the results this call was the first to carry, and
	// CarriedTokens sums their token counts.
	Carried       int   `json:"carried"`
	CarriedTokens int64 `json:"carriedTokens"`
}

// TimelineResult is one tool result of a lane.
type TimelineResult struct {
	ID     int64  `json:"id"`
	CallID string `json:"callId"`
	Tool   string `json:"tool"`
	At     string `json:"at"`
	Line   int64  `json:"line"`
	// Tokens is the result's ranking figure: the token phase's count on
	// the session's route when TokensExact, a size-based approximation
	// until then.
	Tokens      int64 `json:"tokens"`
	TokensExact bool  `json:"tokensExact"`
	// Call is the index (in the lane's Calls) of the first call that
	// carried the result: the first call placed after it; -1 when no call
	// came after it.
	Call int `json:"call"`
	// Until is the index of the first call that no longer carried it (a
	// compaction dropped it, or something replaced it, before that call);
	// -1 while it was still in the context at the lane's last call.
	Until int `json:"until"`
	// Replaced is what the harness recorded replacing the result (dsh:
	// "prune", "compaction"), "" when nothing did.
	Replaced string `json:"replaced,omitempty"`
}

// TimelineCompaction is one compaction of a lane.
type TimelineCompaction struct {
	Kind         string `json:"kind"`
	At           string `json:"at"`
	Line         int64  `json:"line"`
	EndLine      int64  `json:"endLine"`
	Trigger      string `json:"trigger"`
	TokensBefore int64  `json:"tokensBefore"`
	TokensAfter  int64  `json:"tokensAfter"`
	// Call is the index of the first call after the compaction, -1 when
	// none came after it.
	Call int `json:"call"`
	// DropsAll is true for a compaction that replaced the whole context
	// before it (a summary of the conversation); false for a harness that
	// records what each of its compactions replaced result by result.
	DropsAll bool `json:"dropsAll"`
}

// TimelineLane is one transcript's calls, results and compactions: the
// session's own, or a subagent's.
type TimelineLane struct {
	SessionRowID     int64                `json:"sessionRowId"`
	AgentID          string               `json:"agentId"`
	Kind             string               `json:"kind"`
	AgentType        string               `json:"agentType"`
	AgentDescription string               `json:"agentDescription"`
	Model            string               `json:"model"`
	Route            string               `json:"route"`
	Started          string               `json:"started"`
	Calls            []TimelineCall       `json:"calls"`
	Results          []TimelineResult     `json:"results"`
	Compactions      []TimelineCompaction `json:"compactions"`
	// ContextWindow is the lane's ceiling: the largest window the log
	// recorded for a call (ContextWindowSource retention.WindowFromLog),
	// else the documented window of its model (WindowFromTable), else 0
	// with no source.
	ContextWindow       int64  `json:"contextWindow"`
	ContextWindowSource string `json:"contextWindowSource"`
	// Peak is the index of the call with the largest prompt, -1 without
	// calls.
	Peak int `json:"peak"`
	// ParentCall is, for a subagent's lane, the index of the parent's last
	// call that began before the subagent's first record: the call that
	// started it. -1 when the times do not say.
	ParentCall int `json:"parentCall"`
}

// Timeline is a session's context timeline: its own lane, its subagents'
// lanes, and how the estimates of what was added between calls compare
// with the provider's growth of the prompt (on the route's estimator, from
// the stored counts; CalibrateSession counts on every estimator).
type Timeline struct {
	TimelineLane
	Subagents   []TimelineLane `json:"subagents"`
	Calibration Calibration    `json:"calibration"`
}

// replacesPerResult are the compaction kinds of harnesses that record what
// each compaction replaced, result by result (Replacement): such a
// compaction drops only the results it names.
var replacesPerResult = map[string]bool{CompactionDsh: true, CompactionDshPrune: true}

// laneRow is what a lane needs of its sessions row.
type laneRow struct {
	id                                             int64
	harness, sessionID, agentID, kind, agentType   string
	agentDescription, model, route, started, ended string
}

const laneCols = `id, harness, session_id, agent_id, transcript_kind, agent_type, agent_description, model, route, started_at, ended_at`

func scanLane(sc interface{ Scan(...any) error }) (laneRow, error) {
	var l laneRow
	err := sc.Scan(&l.id, &l.harness, &l.sessionID, &l.agentID, &l.kind, &l.agentType, &l.agentDescription, &l.model, &l.route, &l.started, &l.ended)
	return l, err
}

// Timeline builds the context timeline of one transcript (a sessions row
// id): its own calls, results and compactions, and, for a session's own
// transcript, one lane per subagent transcript nested under it.
func (d *DB) Timeline(ctx context.Context, sessionRowID int64) (Timeline, error) {
	own, subs, err := d.laneRows(ctx, sessionRowID)
	if err != nil {
		return Timeline{}, err
	}
	var t Timeline
	if t.TimelineLane, err = d.lane(ctx, own); err != nil {
		return Timeline{}, err
	}
	t.Subagents = make([]TimelineLane, 0, len(subs))
	for _, s := range subs {
		l, err := d.lane(ctx, s)
		if err != nil {
			return Timeline{}, err
		}
		l.ParentCall = startingCall(t.Calls, l)
		t.Subagents = append(t.Subagents, l)
	}
	est, _ := retention.RouteEstimator(t.Route)
	t.Calibration = Calibrate(est, calibrationLanes(t, func(r TimelineResult) (int64, bool, bool) { return r.Tokens, r.TokensExact, true }))
	return t, nil
}

// laneRows reads a transcript's row and, when it is a session's own, the
// rows of the subagent transcripts nested under it, oldest first.
func (d *DB) laneRows(ctx context.Context, id int64) (laneRow, []laneRow, error) {
	own, err := scanLane(d.db.QueryRowContext(ctx, `SELECT `+laneCols+` FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return own, nil, fmt.Errorf("%w: session %d", ErrNotFound, id)
	}
	if err != nil {
		return own, nil, fmt.Errorf("sessions: timeline of %d: %w", id, err)
	}
	if own.agentID != "" {
		return own, nil, nil
	}
	// The transcripts nested under it, as the sessions list nests them
	// (sessionSelect's parent: the first own transcript of the id).
	rows, err := d.db.QueryContext(ctx, `SELECT `+laneCols+` FROM sessions s WHERE harness = ?1 AND session_id = ?2 AND agent_id <> ''
  AND (SELECT p.id FROM sessions p WHERE p.session_id = s.session_id AND p.harness = s.harness AND p.agent_id = '' ORDER BY p.id LIMIT 1) = ?3
ORDER BY started_at, id`, own.harness, own.sessionID, own.id)
	if err != nil {
		return own, nil, fmt.Errorf("sessions: timeline of %d: %w", id, err)
	}
	defer rows.Close()
	var subs []laneRow
	for rows.Next() {
		l, err := scanLane(rows)
		if err != nil {
			return own, nil, fmt.Errorf("sessions: timeline of %d: %w", id, err)
		}
		subs = append(subs, l)
	}
	return own, subs, rows.Err()
}

// lane reads one transcript's records and places them.
func (d *DB) lane(ctx context.Context, s laneRow) (TimelineLane, error) {
	l := TimelineLane{SessionRowID: s.id, AgentID: s.agentID, Kind: s.kind, AgentType: s.agentType, AgentDescription: s.agentDescription,
		Model: s.model, Route: s.route, Started: s.started, Peak: -1, ParentCall: -1}
	calls, err := d.ModelCalls(ctx, s.id)
	if err != nil {
		return l, err
	}
	comps, err := d.Compactions(ctx, s.id)
	if err != nil {
		return l, err
	}
	l.Results, err = d.timelineResults(ctx, s.id)
	if err != nil {
		return l, err
	}
	l.Calls = make([]TimelineCall, len(calls))
	for i, c := range calls {
		l.Calls[i] = TimelineCall{At: c.At, Line: c.Line, Input: c.Input, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite,
			Output: c.Output, Reasoning: c.Reasoning, Prompt: c.Prompt(), Model: c.Model, ContextWindow: c.ContextWindow}
	}
	l.Compactions = make([]TimelineCompaction, len(comps))
	for i, c := range comps {
		l.Compactions[i] = TimelineCompaction{Kind: c.Kind, At: c.At, Line: c.Line, EndLine: c.EndLine, Trigger: c.Trigger,
			TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter, DropsAll: !replacesPerResult[c.Kind]}
	}
	placeLane(&l)
	return l, nil
}

// timelineResults lists a transcript's results in source order, with the
// line of what replaced each, if anything did.
func (d *DB) timelineResults(ctx context.Context, sessionRowID int64) ([]TimelineResult, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, call_id, tool_name, at, src_line, rank_tokens, est_tokens IS NOT NULL,
  COALESCE(replaced_kind, ''), COALESCE(replaced_line, 0)
FROM tool_results WHERE session_id = ? ORDER BY src_offset, src_index, id`, sessionRowID)
	if err != nil {
		return nil, fmt.Errorf("sessions: timeline results of %d: %w", sessionRowID, err)
	}
	defer rows.Close()
	out := []TimelineResult{}
	for rows.Next() {
		var r TimelineResult
		var replacedLine int64
		if err := rows.Scan(&r.ID, &r.CallID, &r.Tool, &r.At, &r.Line, &r.Tokens, &r.TokensExact, &r.Replaced, &replacedLine); err != nil {
			return nil, fmt.Errorf("sessions: timeline results of %d: %w", sessionRowID, err)
		}
		// The replacement's line rides in Until until placeLane reads it.
		r.Until = int(replacedLine)
		out = append(out, r)
	}
	return out, rows.Err()
}

// A place is where a record sits in its lane's log: its line, and its
// time for sources without lines (databases).
type place struct {
	line int64
	at   time.Time
	ok   bool // at parsed
}

func placeOf(line int64, at string) place {
	p := place{line: line}
	if at != "" {
		if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
			p.at, p.ok = t, true
		}
	}
	return p
}

// order compares places on lines when the lane has them, else on times.
type order struct{ byLine bool }

// before reports whether a comes strictly before b; known is false when
// the lane's order cannot place one of them.
func (o order) before(a, b place) (yes, known bool) {
	if o.byLine {
		if a.line <= 0 || b.line <= 0 {
			return false, false
		}
		return a.line < b.line, true
	}
	if !a.ok || !b.ok {
		return false, false
	}
	return a.at.Before(b.at), true
}

// firstAfter is the index of the first call placed strictly after p, -1
// when none is (or p cannot be placed). Calls are in log order.
func (o order) firstAfter(calls []place, p place) int {
	// Calls that cannot be placed sort last: counting them as after p
	// keeps the search's predicate monotonic.
	i := sort.Search(len(calls), func(i int) bool {
		yes, known := o.before(p, calls[i])
		return !known || yes
	})
	if i >= len(calls) {
		return -1
	}
	if _, known := o.before(p, calls[i]); !known {
		return -1
	}
	return i
}

// placeLane places a lane's results and compactions between its calls:
// a result is first carried by the first call placed after it (a call's
// place is where its response began, so the results of the tools it
// called come after it), a compaction first seen by the first call after
// it. A result leaves the context at the first call after a compaction
// that dropped everything before it, or after what replaced it. The order
// is by line when every record of the lane has one (one log), else by
// time.
func placeLane(l *TimelineLane) {
	o := order{byLine: true}
	for _, c := range l.Calls {
		if c.Line <= 0 {
			o.byLine = false
		}
	}
	for _, r := range l.Results {
		if r.Line <= 0 {
			o.byLine = false
		}
	}
	if !o.byLine {
		// Database sources list calls by time already; a call with no
		// time cannot be placed and goes last.
		sort.SliceStable(l.Calls, func(i, j int) bool {
			a, b := placeOf(0, l.Calls[i].At), placeOf(0, l.Calls[j].At)
			return a.ok && (!b.ok || a.at.Before(b.at))
		})
	}
	calls := make([]place, len(l.Calls))
	for i, c := range l.Calls {
		calls[i] = placeOf(c.Line, c.At)
	}
	for i, c := range l.Calls {
		if l.Peak < 0 || c.Prompt > l.Calls[l.Peak].Prompt {
			l.Peak = i
		}
	}
	// Compactions that drop everything before them, by the call after each.
	var drops []int
	for i := range l.Compactions {
		c := &l.Compactions[i]
		c.Call = o.firstAfter(calls, placeOf(c.Line, c.At))
		if c.DropsAll && c.Call >= 0 {
			drops = append(drops, c.Call)
		}
	}
	sort.Ints(drops)
	for i := range l.Results {
		r := &l.Results[i]
		replacedLine := int64(r.Until)
		r.Call = o.firstAfter(calls, placeOf(r.Line, r.At))
		r.Until = -1
		if r.Call < 0 {
			continue
		}
		l.Calls[r.Call].Carried++
		l.Calls[r.Call].CarriedTokens += r.Tokens
		// The first drop after the call that first carried it.
		if k := sort.SearchInts(drops, r.Call+1); k < len(drops) {
			r.Until = drops[k]
		}
		if replacedLine > 0 {
			if u := o.firstAfter(calls, place{line: replacedLine}); u >= 0 && (r.Until < 0 || u < r.Until) {
				r.Until = u
			}
		}
	}
	l.ContextWindow, l.ContextWindowSource = laneWindow(l.Calls, l.Model)
}

// laneWindow is a lane's ceiling: the largest window its log recorded,
// else the documented window of its model (the last call's, else the
// session's).
func laneWindow(calls []TimelineCall, model string) (int64, string) {
	var w int64
	for _, c := range calls {
		w = max(w, c.ContextWindow)
	}
	if w > 0 {
		return w, retention.WindowFromLog
	}
	if n := len(calls); n > 0 && calls[n-1].Model != "" {
		model = calls[n-1].Model
	}
	if w, ok := retention.ContextWindow(model); ok {
		return w, retention.WindowFromTable
	}
	return 0, ""
}

// startingCall is the index of the parent's last call that began before a
// subagent lane's first record (its first call, else its start): the call
// that started it. Lanes are separate logs, so only times compare.
func startingCall(parent []TimelineCall, sub TimelineLane) int {
	start := sub.Started
	if len(sub.Calls) > 0 && sub.Calls[0].At != "" {
		start = sub.Calls[0].At
	}
	s := placeOf(0, start)
	if !s.ok {
		return -1
	}
	last := -1
	for i, c := range parent {
		p := placeOf(0, c.At)
		if p.ok && p.at.Before(s.at) {
			last = i
		}
	}
	return last
}

// InContext lists the results a lane's model still had in its context at
// call k: first carried by k or an earlier call, and not dropped or
// replaced before k; largest first.
func (l TimelineLane) InContext(k int) []TimelineResult {
	var out []TimelineResult
	for _, r := range l.Results {
		if r.Call >= 0 && r.Call <= k && (r.Until < 0 || r.Until > k) {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Tokens > out[j].Tokens })
	return out
}
