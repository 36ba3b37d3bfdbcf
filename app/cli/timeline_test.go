package cli

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"spillscope/app"
	"spillscope/internal/fixtures"
)

// TestTimelineReal: `spillscope timeline` on every real fixture: each
// file's calls and peak prompt as internal/fixtures counts them from the
// raw logs, its compactions found, every result placed at the first call
// after it, subagent lanes linked to their parent's row and to a call
// before them, and the calibration given for the token estimators.
func TestTimelineReal(t *testing.T) {
	root := realFixtures(t)
	census := fixtures.CountReal(t, root)
	base := t.TempDir()
	db := filepath.Join(base, "index.db")
	env, out, errb := envFor(t, map[string]string{"HOME": base, "SPILLSCOPE_DATA_DIR": base})
	runIndexJSON(t, env, out, "--db", db, root)
	run := func(args ...string) (int, string) {
		out.Reset()
		errb.Reset()
		code := Run(env, args)
		return code, out.String()
	}
	code, list := run("sessions", "--db", db)
	if code != exitOK {
		t.Fatalf("sessions: %d %s", code, errb.String())
	}
	var rows []app.SessionRow
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		var r app.SessionRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	byFile := map[string][]app.SessionRow{}
	for _, r := range rows {
		byFile[r.File] = append(byFile[r.File], r)
	}
	timeline := func(t *testing.T, id string) timelineOutput {
		t.Helper()
		code, s := run("timeline", "--db", db, "--session", id)
		if code != exitOK {
			t.Fatalf("timeline --session %s: %d %s", id, code, errb.String())
		}
		var tl timelineOutput
		if err := json.Unmarshal([]byte(s), &tl); err != nil {
			t.Fatal(err)
		}
		return tl
	}
	var withSubagents, compactions int
	for path, want := range census.File {
		t.Run(strings.TrimPrefix(path, root), func(t *testing.T) {
			var calls, comps int
			var peak int64
			for _, r := range byFile[path] {
				tl := timeline(t, strconv.FormatInt(r.ID, 10))
				if tl.Session.ID != r.ID || len(tl.Calls) != r.ModelCalls {
					t.Fatalf("timeline of row %d is row %d with %d calls (%d listed)", r.ID, tl.Session.ID, len(tl.Calls), r.ModelCalls)
				}
				calls += len(tl.Calls)
				comps += len(tl.Compactions)
				for i, c := range tl.Calls {
					if c.Prompt != c.Input+c.CacheRead+c.CacheWrite {
						t.Errorf("call %d: prompt %d is not %d+%d+%d", i, c.Prompt, c.Input, c.CacheRead, c.CacheWrite)
					}
					peak = max(peak, c.Prompt)
				}
				if len(tl.Calls) > 0 && tl.Calls[tl.Peak].Prompt != maxPrompt(tl.Calls) {
					t.Errorf("peak %d has prompt %d, the largest is %d", tl.Peak, tl.Calls[tl.Peak].Prompt, maxPrompt(tl.Calls))
				}
				if tl.ContextWindow > 0 && tl.ContextWindowSource != "log" && tl.ContextWindowSource != "table" || tl.ContextWindow == 0 && tl.ContextWindowSource != "" {
					t.Errorf("context window %d from %q", tl.ContextWindow, tl.ContextWindowSource)
				}
				checkPlaced(t, tl.Calls, tl.Results, len(tl.Results) == r.ToolResults)
				for _, c := range tl.Compactions {
					if c.Call >= len(tl.Calls) {
						t.Errorf("compaction %+v placed past the calls", c)
					}
				}
				if r.AgentID != "" {
					if len(tl.Subagents) != 0 {
						t.Errorf("a subagent's timeline has %d subagents", len(tl.Subagents))
					}
					continue
				}
				// Its own transcript: one lane per subagent row nested under it.
				var subs []app.SessionRow
				for _, o := range rows {
					if o.ParentID == r.ID {
						subs = append(subs, o)
					}
				}
				if len(tl.Subagents) != len(subs) {
					t.Fatalf("%d subagent lanes, %d subagent rows", len(tl.Subagents), len(subs))
				}
				for _, l := range tl.Subagents {
					withSubagents++
					var sub *app.SessionRow
					for i := range subs {
						if subs[i].ID == l.SessionID {
							sub = &subs[i]
						}
					}
					if sub == nil || l.AgentID != sub.AgentID || len(l.Calls) != sub.ModelCalls {
						t.Errorf("lane %d (%s, %d calls) is no subagent row of %d", l.SessionID, l.AgentID, len(l.Calls), r.ID)
						continue
					}
					checkPlaced(t, l.Calls, l.Results, true)
					// Started by the parent's last call before it: one
					// that began before the subagent's first record.
					if l.ParentCall >= len(tl.Calls) {
						t.Errorf("lane %s: parent call %d of %d", l.AgentID, l.ParentCall, len(tl.Calls))
					}
					if len(l.Calls) > 0 && l.Calls[0].At != "" && tl.Calls[0].At != "" && tl.Calls[0].At < l.Calls[0].At {
						if l.ParentCall < 0 || !earlier(tl.Calls[l.ParentCall].At, l.Calls[0].At) {
							t.Errorf("lane %s starting %s: parent call %d", l.AgentID, l.Calls[0].At, l.ParentCall)
						}
					}
				}
				if len(tl.Calibration) == 0 || tl.Calibration[0].Estimator != tl.Estimator {
					t.Errorf("calibration %+v, the route's estimator %s first", tl.Calibration, tl.Estimator)
				}
				// The session's own id names its own transcript too.
				if byID := timeline(t, r.SessionID); byID.Session.ID != r.ID && rowsWithID(rows, r) == 1 {
					t.Errorf("--session %s gave row %d, want %d", r.SessionID, byID.Session.ID, r.ID)
				}
			}
			if calls != want.Calls || peak != want.PeakPrompt || comps != want.Compactions {
				t.Errorf("calls %d, peak prompt %d, compactions %d; the raw log has %d, %d, %d", calls, peak, comps, want.Calls, want.PeakPrompt, want.Compactions)
			}
			compactions += comps
		})
	}
	if withSubagents == 0 || compactions == 0 {
		t.Errorf("the fixtures gave %d subagent lanes and %d compactions", withSubagents, compactions)
	}
	t.Run("bad session ids", func(t *testing.T) {
		for _, args := range [][]string{{"timeline", "--db", db}, {"timeline", "--db", db, "--session", "no-such-session"},
			{"timeline", "--db", db, "--session", "99999999"}, {"timeline", "--db", db, "--session", "1", "extra"}} {
			code, _ := run(args...)
			if code == exitOK || !strings.Contains(errb.String(), "spillscope timeline:") {
				t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
			}
		}
	})
}

func maxPrompt(calls []app.TimelineCall) int64 {
	var m int64
	for _, c := range calls {
		m = max(m, c.Prompt)
	}
	return m
}

func rowsWithID(rows []app.SessionRow, r app.SessionRow) int {
	n := 0
	for _, o := range rows {
		if o.SessionID == r.SessionID && o.AgentID == "" {
			n++
		}
	}
	return n
}

func earlier(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && ta.Before(tb)
}

// checkPlaced: every result is first carried by the first call after it in
// the lane's log (by line, else by time), and leaves no earlier than that;
// the calls' counts of the results they first carried add up.
func checkPlaced(t *testing.T, calls []app.TimelineCall, results []app.TimelineResult, all bool) {
	t.Helper()
	byLine := true
	for _, c := range calls {
		byLine = byLine && c.Line > 0
	}
	for _, r := range results {
		byLine = byLine && r.Line > 0
	}
	after := func(c app.TimelineCall, r app.TimelineResult) bool {
		if byLine {
			return c.Line > r.Line
		}
		return earlier(r.At, c.At)
	}
	carried := make([]int, len(calls))
	for _, r := range results {
		switch {
		case r.Call >= len(calls):
			t.Errorf("result %d carried by call %d of %d", r.ID, r.Call, len(calls))
			continue
		case r.Call >= 0:
			carried[r.Call]++
			if !after(calls[r.Call], r) || r.Call > 0 && after(calls[r.Call-1], r) {
				t.Errorf("result %d (line %d, %s) carried by call %d (line %d, %s)", r.ID, r.Line, r.At, r.Call, calls[r.Call].Line, calls[r.Call].At)
			}
			if r.Until >= 0 && r.Until <= r.Call {
				t.Errorf("result %d leaves at call %d before it is carried at %d", r.ID, r.Until, r.Call)
			}
		default:
			for i, c := range calls {
				if after(c, r) {
					t.Errorf("result %d (line %d) carried by no call, yet call %d comes after it", r.ID, r.Line, i)
					break
				}
			}
		}
	}
	if !all {
		t.Errorf("%d results on the timeline", len(results))
	}
	for i, c := range calls {
		if c.Carried != carried[i] {
			t.Errorf("call %d says it first carried %d results, %d name it", i, c.Carried, carried[i])
		}
	}
}

// TestTimelineWindowAgrees: the CLI's figures are the window's: the same
// service's Timeline and Calibration.
func TestTimelineWindowAgrees(t *testing.T) {
	v := newViewCorpus(t)
	page, err := v.sessions.List(app.SessionQuery{Limit: 100})
	if err != nil || len(page.Rows) == 0 {
		t.Fatal(page, err)
	}
	for _, r := range page.Rows {
		code, out, errs := v.run("timeline", "--db", v.db, "--session", strconv.FormatInt(r.ID, 10))
		if code != exitOK {
			t.Fatalf("timeline %d: %s", r.ID, errs)
		}
		w, err := v.sessions.Timeline(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		c, err := v.sessions.Calibration(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := timelineOutput{Session: w.Session, Calls: w.Lane.Calls, ContextWindow: w.Lane.ContextWindow, ContextWindowSource: w.Lane.ContextWindowSource,
			Peak: w.Lane.Peak, Compactions: w.Lane.Compactions, Results: w.Lane.Results, Subagents: w.Subagents, Estimator: w.Estimator, Calibration: c.Estimators}
		if strings.TrimSuffix(out, "\n") != jsonOf(t, want) {
			t.Errorf("row %d: the CLI printed\n%s\nthe window has\n%s", r.ID, out, jsonOf(t, want))
		}
	}
}
