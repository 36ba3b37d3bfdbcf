package app

import (
	"spillscope/retention"
	"spillscope/sessions"
)

// The session timeline (issue 14): how a session's context grew, call by
// call, what filled it at a call, and how the estimates compare with what
// the provider counted. The window and `spillscope timeline` read it
// through these methods.

// TimelineCall is one model call (sessions.TimelineCall).
type TimelineCall struct {
	At            string `json:"at"`
	Line          int64  `json:"line"`
	Input         int64  `json:"input"`
	CacheRead     int64  `json:"cacheRead"`
	CacheWrite    int64  `json:"cacheWrite"`
	Output        int64  `json:"output"`
	Reasoning     int64  `json:"reasoning"`
	Prompt        int64  `json:"prompt"`
	Model         string `json:"model"`
	ContextWindow int64  `json:"contextWindow"`
	Carried       int    `json:"carried"`
	CarriedTokens int64  `json:"carriedTokens"`
}

// TimelineResult is one tool result on the timeline: Call is the index of
// the call that first carried it (-1: none after it), Until the first call
// that no longer did (-1: still in context at the end).
type TimelineResult struct {
	ID          int64  `json:"id"`
	CallID      string `json:"callId"`
	Tool        string `json:"tool"`
	At          string `json:"at"`
	Line        int64  `json:"line"`
	Tokens      int64  `json:"tokens"`
	TokensExact bool   `json:"tokensExact"`
	Call        int    `json:"call"`
	Until       int    `json:"until"`
	Replaced    string `json:"replaced"`
}

// TimelineCompaction is one compaction: Call is the first call after it.
type TimelineCompaction struct {
	Kind         string `json:"kind"`
	At           string `json:"at"`
	Line         int64  `json:"line"`
	EndLine      int64  `json:"endLine"`
	Trigger      string `json:"trigger"`
	TokensBefore int64  `json:"tokensBefore"`
	TokensAfter  int64  `json:"tokensAfter"`
	Call         int    `json:"call"`
	DropsAll     bool   `json:"dropsAll"`
}

// TimelineLane is one transcript's lane: the session's own or a
// subagent's (ParentCall: the parent's call that started it, -1 unknown).
type TimelineLane struct {
	SessionID        int64                `json:"sessionId"`
	AgentID          string               `json:"agentId"`
	Kind             string               `json:"kind"`
	AgentType        string               `json:"agentType"`
	AgentDescription string               `json:"agentDescription"`
	Model            string               `json:"model"`
	Started          string               `json:"started"`
	Calls            []TimelineCall       `json:"calls"`
	Results          []TimelineResult     `json:"results"`
	Compactions      []TimelineCompaction `json:"compactions"`
	// ContextWindow is the ceiling; ContextWindowSource "log" (recorded),
	// "table" (the model's documented window) or "" (unknown).
	ContextWindow       int64  `json:"contextWindow"`
	ContextWindowSource string `json:"contextWindowSource"`
	Peak                int    `json:"peak"`
	ParentCall          int    `json:"parentCall"`
}

// CalibrationCall is one call's comparison of the prompt's growth with the
// estimate of what was added (sessions.CalibrationCall).
type CalibrationCall struct {
	Lane      int     `json:"lane"`
	Call      int     `json:"call"`
	Growth    int64   `json:"growth"`
	Output    int64   `json:"output"`
	Provider  int64   `json:"provider"`
	Estimated int64   `json:"estimated"`
	Ratio     float64 `json:"ratio"`
}

// Calibration is one estimator's comparison over a session: Ratio is the
// provider's tokens per estimated token (0: nothing compared), Error
// 1/Ratio - 1 (negative: the estimate runs low), Spread how far one call
// typically strays.
type Calibration struct {
	Estimator string            `json:"estimator"`
	Calls     int               `json:"calls"`
	Provider  int64             `json:"provider"`
	Estimated int64             `json:"estimated"`
	Ratio     float64           `json:"ratio"`
	Error     float64           `json:"error"`
	Spread    float64           `json:"spread"`
	Exact     bool              `json:"exact"`
	Unread    int               `json:"unread"`
	PerCall   []CalibrationCall `json:"perCall"`
}

// Timeline is a session's context timeline: the transcript's own lane, its
// subagents' lanes, and the calibration of the route's estimator from the
// stored counts.
type Timeline struct {
	Session     SessionRow     `json:"session"`
	Lane        TimelineLane   `json:"lane"`
	Subagents   []TimelineLane `json:"subagents"`
	Calibration Calibration    `json:"calibration"`
	// Estimator is the route's estimator, the one Calibration and every
	// result's tokens are on.
	Estimator string `json:"estimator"`
}

// CalibrationView is a session's calibration on every token estimator,
// the route's own first.
type CalibrationView struct {
	SessionID  int64         `json:"sessionId"`
	Route      string        `json:"route"`
	Estimator  string        `json:"estimator"`
	Estimators []Calibration `json:"estimators"`
}

// FilledQuery asks what filled one call's context: the transcript
// (SessionID, a row id: the session's own or a subagent's), the call's
// index in its lane (-1: the peak), the budget the seed policy is re-run
// at (in its unit), the policy ("" is the seed's, dsh-tokens) and how
// many results to re-run, largest first (0: FilledLimit).
type FilledQuery struct {
	SessionID int64  `json:"sessionId"`
	Call      int    `json:"call"`
	Budget    int64  `json:"budget"`
	Policy    string `json:"policy"`
	Limit     int    `json:"limit"`
}

// FilledLimit is how many results "what filled it" re-runs at most.
const FilledLimit = 50

// FilledResult is one result still in the context at the call.
type FilledResult struct {
	Result TimelineResult `json:"result"`
	Share  float64        `json:"share"`
	Inline int64          `json:"inline"`
	Saved  int64          `json:"saved"`
	Status string         `json:"status"`
	Unread bool           `json:"unread"`
}

// Filled is what filled one call's context (sessions.Filled).
type Filled struct {
	Call    int            `json:"call"`
	At      string         `json:"at"`
	Prompt  int64          `json:"prompt"`
	Results []FilledResult `json:"results"`
	Tokens  int64          `json:"tokens"`
	Others  int            `json:"others"`
	Policy  string         `json:"policy"`
	Budget  int64          `json:"budget"`
	Saved   int64          `json:"saved"`
}

// Timeline returns a transcript's context timeline (id: a sessions row).
func (s *Sessions) Timeline(id int64) (Timeline, error) {
	if id <= 0 {
		return Timeline{}, coded("session-id-invalid", "id", id)
	}
	db, err := s.store.DB()
	if err != nil {
		return Timeline{}, err
	}
	t, err := db.Timeline(s.ctx, id)
	if err != nil {
		return Timeline{}, err
	}
	sess, err := db.SessionByID(s.ctx, id)
	if err != nil {
		return Timeline{}, err
	}
	out := Timeline{Session: sessionRow(sess), Lane: laneView(t.TimelineLane), Subagents: make([]TimelineLane, 0, len(t.Subagents)),
		Calibration: calibrationView(t.Calibration), Estimator: t.Calibration.Estimator}
	for _, l := range t.Subagents {
		out.Subagents = append(out.Subagents, laneView(l))
	}
	return out, nil
}

// Calibration compares a session's growth with every token estimator;
// slower than Timeline (every result is read back and counted), so the
// window asks for it once the chart is drawn.
func (s *Sessions) Calibration(id int64) (CalibrationView, error) {
	if id <= 0 {
		return CalibrationView{}, coded("session-id-invalid", "id", id)
	}
	db, err := s.store.DB()
	if err != nil {
		return CalibrationView{}, err
	}
	sess, err := db.SessionByID(s.ctx, id)
	if err != nil {
		return CalibrationView{}, err
	}
	cs, err := db.CalibrateSession(s.ctx, id)
	if err != nil {
		return CalibrationView{}, err
	}
	route := sessionRow(sess).Route
	est, err := retention.RouteEstimator(route)
	if err != nil {
		est = retention.DefaultEncoding
	}
	out := CalibrationView{SessionID: id, Route: route, Estimator: est, Estimators: make([]Calibration, 0, len(cs))}
	for _, c := range cs {
		if c.Estimator == est {
			out.Estimators = append([]Calibration{calibrationView(c)}, out.Estimators...)
		} else {
			out.Estimators = append(out.Estimators, calibrationView(c))
		}
	}
	return out, nil
}

// Filled lists the results still in the context at one call, largest
// first, with their share of the prompt and what the seed policy at the
// budget would have saved of each.
func (s *Sessions) Filled(q FilledQuery) (Filled, error) {
	if q.SessionID <= 0 {
		return Filled{}, coded("session-id-invalid", "id", q.SessionID)
	}
	if q.Limit < 0 || q.Limit > MaxPage {
		return Filled{}, coded("page-invalid", "offset", 0, "limit", q.Limit, "max", MaxPage)
	}
	if _, err := retention.ValidateBudget(float64(q.Budget)); err != nil {
		return Filled{}, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = FilledLimit
	}
	db, err := s.store.DB()
	if err != nil {
		return Filled{}, err
	}
	f, err := db.Filled(s.ctx, q.SessionID, sessions.FilledOptions{Call: q.Call, Policy: q.Policy, Budget: q.Budget, Limit: limit, ReadTools: s.store.ReadTools()})
	if err != nil {
		return Filled{}, err
	}
	out := Filled{Call: f.Call, At: f.At, Prompt: f.Prompt, Results: make([]FilledResult, 0, len(f.Results)), Tokens: f.Tokens, Others: f.Others,
		Policy: f.Policy, Budget: f.Budget, Saved: f.Saved}
	for _, r := range f.Results {
		out.Results = append(out.Results, FilledResult{Result: resultView(r.TimelineResult), Share: r.Share, Inline: r.Inline, Saved: r.Saved,
			Status: r.Status, Unread: r.Unread})
	}
	return out, nil
}

func laneView(l sessions.TimelineLane) TimelineLane {
	v := TimelineLane{SessionID: l.SessionRowID, AgentID: l.AgentID, Kind: l.Kind, AgentType: l.AgentType, AgentDescription: l.AgentDescription,
		Model: l.Model, Started: l.Started, Calls: make([]TimelineCall, len(l.Calls)), Results: make([]TimelineResult, len(l.Results)),
		Compactions: make([]TimelineCompaction, len(l.Compactions)), ContextWindow: l.ContextWindow, ContextWindowSource: l.ContextWindowSource,
		Peak: l.Peak, ParentCall: l.ParentCall}
	for i, c := range l.Calls {
		v.Calls[i] = TimelineCall(c)
	}
	for i, r := range l.Results {
		v.Results[i] = resultView(r)
	}
	for i, c := range l.Compactions {
		v.Compactions[i] = TimelineCompaction(c)
	}
	return v
}

func resultView(r sessions.TimelineResult) TimelineResult {
	return TimelineResult{ID: r.ID, CallID: r.CallID, Tool: r.Tool, At: r.At, Line: r.Line, Tokens: r.Tokens, TokensExact: r.TokensExact,
		Call: r.Call, Until: r.Until, Replaced: r.Replaced}
}

func calibrationView(c sessions.Calibration) Calibration {
	v := Calibration{Estimator: c.Estimator, Calls: c.Calls, Provider: c.Provider, Estimated: c.Estimated, Ratio: c.Ratio, Error: c.Error,
		Spread: c.Spread, Exact: c.Exact, Unread: c.Unread, PerCall: make([]CalibrationCall, len(c.PerCall))}
	for i, pc := range c.PerCall {
		v.PerCall[i] = CalibrationCall(pc)
	}
	return v
}
