package cli

import (
	"strconv"
	"strings"

	"spillscope/app"
)

// timelineOutput is the timeline chart's data: the transcript's own lane
// at the top level (calls, contextWindow, compactions, results), its
// subagents' lanes, and the calibration on every token estimator.
type timelineOutput struct {
	Session             app.SessionRow           `json:"session"`
	Calls               []app.TimelineCall       `json:"calls"`
	ContextWindow       int64                    `json:"contextWindow"`
	ContextWindowSource string                   `json:"contextWindowSource"`
	Peak                int                      `json:"peak"`
	Compactions         []app.TimelineCompaction `json:"compactions"`
	Results             []app.TimelineResult     `json:"results"`
	Subagents           []app.TimelineLane       `json:"subagents"`
	// Estimator is the route's, which results' tokens are on.
	Estimator   string            `json:"estimator"`
	Calibration []app.Calibration `json:"calibration"`
}

// runTimeline prints one session's context timeline as one JSON object.
func runTimeline(env Env, args []string) int {
	c := newViewCommand(env, "timeline", "spillscope timeline --session ID [--db PATH]",
		"Prints how a session's context grew, as the window's timeline draws it, as one JSON object: calls (each with at,\n"+
			"line, input, cacheRead, cacheWrite, output, reasoning, prompt = input + cacheRead + cacheWrite, model), contextWindow\n"+
			"and its source (log: recorded; table: the model's documented window), peak (the largest prompt's call), compactions\n"+
			"(each with the first call after it), results (each with call: the call that first carried it, until: the first\n"+
			"call that no longer did, and tokens), subagents (each with its own calls, results and parentCall: the call that\n"+
			"started it), and calibration: for each token estimator, the provider's tokens per estimated token of what was\n"+
			"added between calls (ratio), the estimate's error at that ratio, and the per-call figures.")
	session := c.fs.String("session", "", "the session: a row id from 'spillscope sessions' (its id), or a harness session id (its own transcript)")
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return c.fail(exitUsage, "unexpected argument %q", pos[0])
	}
	id := strings.TrimSpace(*session)
	if id == "" {
		return c.fail(exitUsage, "--session is required (a row id or a harness session id)")
	}
	store, err := c.open()
	if err != nil {
		return c.fail(exitFail, "%v", err)
	}
	defer store.Close()
	svc := app.NewSessions(store)
	row, err := strconv.ParseInt(id, 10, 64)
	if err != nil || row <= 0 {
		if row, err = ownTranscript(svc, id); err != nil {
			return c.fail(exitFail, "--session %q: %v", id, err)
		}
	}
	t, err := svc.Timeline(row)
	if err != nil {
		return c.fail(exitFail, "--session %q: %v", id, err)
	}
	cal, err := svc.Calibration(row)
	if err != nil {
		return c.fail(exitFail, "--session %q: calibration: %v", id, err)
	}
	out := timelineOutput{Session: t.Session, Calls: t.Lane.Calls, ContextWindow: t.Lane.ContextWindow, ContextWindowSource: t.Lane.ContextWindowSource,
		Peak: t.Lane.Peak, Compactions: t.Lane.Compactions, Results: t.Lane.Results, Subagents: t.Subagents, Estimator: t.Estimator,
		Calibration: cal.Estimators}
	if err := writeJSON(env.Stdout, out); err != nil {
		return exitFail
	}
	return exitOK
}

// errNoSession is a harness session id the index does not hold.
type errNoSession string

func (e errNoSession) Error() string {
	return "no session " + strconv.Quote(string(e)) + " in the index"
}

// ownTranscript finds the row of a harness session's own transcript (not
// a subagent's) through the window's sessions list.
func ownTranscript(svc *app.Sessions, id string) (int64, error) {
	for offset := 0; ; offset += sessionPage {
		page, err := svc.List(app.SessionQuery{Search: id, Limit: sessionPage, Offset: offset})
		if err != nil {
			return 0, err
		}
		for _, r := range page.Rows {
			if r.SessionID == id && r.AgentID == "" {
				return r.ID, nil
			}
		}
		if len(page.Rows) < sessionPage {
			return 0, errNoSession(id)
		}
	}
}
