package app

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"spillscope/app/cli"
	"spillscope/retention"
)

// cliCompare runs `spillscope compare` and decodes its output.
func cliCompare(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run(cli.Env{Stdin: &bytes.Buffer{}, Stdout: &out, Stderr: &errb}, append([]string{"compare"}, args...)); code != 0 {
		t.Fatalf("spillscope compare %v: exit %d: %s", args, code, errb.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCompareWindowMatchesCLI: on indexed sample results, the window's
// Compare and `spillscope compare --result` give every column the same
// status, figures on both yardsticks, omitted, lost and recoverable parts,
// and parameters; every column shares one yardstick.
func TestCompareWindowMatchesCLI(t *testing.T) {
	s, r, _, _, dataDir := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 6})
	rows := page.Rows
	if err != nil || len(rows) == 0 {
		t.Fatal(rows, err)
	}
	dbPath := filepath.Join(dataDir, "index.db")
	policies := []string{"opencode", "goose", "gemini-cli", "dsh-tokens", "dsh-pruner"}
	slider := int64(1500)
	for _, row := range rows {
		var cols []CompareColumnSpec
		for _, p := range policies {
			cols = append(cols, CompareColumnSpec{Policy: p})
		}
		cols[0].Params = map[string]string{"direction": "tail"}
		view, err := r.Compare(CompareRequest{ResultID: row.ID, Columns: cols, Slider: &slider})
		if err != nil {
			t.Fatal(err)
		}
		got := cliCompare(t, "--result", strconv.FormatInt(row.ID, 10), "--db", dbPath, "--policies", "opencode,goose,gemini-cli,dsh-tokens,dsh-pruner",
			"--param", "opencode.direction=tail", "--budget", "1500")
		if got["yardstick"] != view.Yardstick || got["route"] != view.Route {
			t.Fatalf("CLI %v / %v, window %s / %s", got["yardstick"], got["route"], view.Yardstick, view.Route)
		}
		cc := got["columns"].([]any)
		if len(cc) != len(view.Columns) {
			t.Fatalf("%d CLI columns, %d in the window", len(cc), len(view.Columns))
		}
		for i, w := range view.Columns {
			c := cc[i].(map[string]any)
			num := func(path ...string) int64 {
				var v any = c
				for _, p := range path {
					v = v.(map[string]any)[p]
				}
				return int64(v.(float64))
			}
			if w.Error != "" || c["status"] != w.Status || w.Yardstick.Estimator != view.Yardstick {
				t.Fatalf("result %d %s: CLI %v, window %s (%s) on %s", row.ID, w.Policy, c["status"], w.Status, w.Error, w.Yardstick.Estimator)
			}
			pairs := [][2]int64{
				{num("tokens", "total"), int64(w.Own.Total)}, {num("yardstick", "total"), int64(w.Yardstick.Total)},
				{num("yardstick", "notice"), int64(w.Yardstick.Notice)}, {num("omitted", "bytes"), w.Omitted.Bytes},
				{num("omitted", "lines"), w.Omitted.Lines}, {num("lost", "bytes"), w.Lost.Bytes},
				{num("recoverable", "bytes"), w.Recoverable.Bytes}, {num("originalTokens"), int64(w.OriginalTokens)},
			}
			for k, p := range pairs {
				if p[0] != p[1] {
					t.Fatalf("result %d %s figure %d: CLI %d, window %d", row.ID, w.Policy, k, p[0], p[1])
				}
			}
			for name, v := range w.Params {
				if c["params"].(map[string]any)[name] != v {
					t.Fatalf("%s param %s: CLI %v, window %s", w.Policy, name, c["params"].(map[string]any)[name], v)
				}
			}
			if info, _ := retention.LookupPolicy(w.Policy); info != nil {
				if v, ok := retention.SliderBudget(info.Info(), slider); ok && w.Params[w.BudgetParam] != strconv.FormatInt(v, 10) {
					t.Fatalf("%s: slider %d gave %s=%s, want %d", w.Policy, slider, w.BudgetParam, w.Params[w.BudgetParam], v)
				}
			}
		}
	}
}

// TestCompareDefaultsAndErrors: no columns compares the session's own
// harness's policy with dsh-tokens; a bad parameter fails its column only.
func TestCompareDefaultsAndErrors(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 40})
	rows := page.Rows
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, row := range rows {
		detail, err := s.Result(ResultQuery{ID: row.ID})
		if err != nil {
			t.Fatal(err)
		}
		h := detail.Session.Harness
		if seen[h] {
			continue
		}
		seen[h] = true
		view, err := r.Compare(CompareRequest{ResultID: row.ID})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range view.Columns {
			names = append(names, c.Policy)
		}
		if last := names[len(names)-1]; view.Harness != h || (last != retention.DefaultPolicy && names[0] != retention.DefaultPolicy) {
			t.Fatalf("harness %s: default columns %v", h, names)
		}
		t.Logf("%s: %v", h, names)
	}
	view, err := r.Compare(CompareRequest{ResultID: rows[0].ID, Columns: []CompareColumnSpec{
		{Policy: "opencode", Params: map[string]string{"maxLines": "many"}}, {Policy: "goose"}}})
	if err != nil {
		t.Fatal(err)
	}
	if view.Columns[0].Error == "" || !bytes.Contains([]byte(view.Columns[0].Error), []byte("maxLines")) || view.Columns[1].Error != "" || view.Columns[1].Status == "" {
		t.Fatalf("columns %+v", view.Columns)
	}
}

// TestSweepPolicies: one series per policy over a result, a session and the
// whole index; a one-result series is what Compare gives at each budget.
func TestSweepPolicies(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 1})
	rows := page.Rows
	if err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
	row := rows[0]
	cols := []CompareColumnSpec{{Policy: "dsh-tokens"}, {Policy: "opencode"}, {Policy: "goose"}, {Policy: "gemini-cli"}}
	budgets := []int64{200, 2000, 20000}
	one, err := r.SweepPolicies(SweepPoliciesRequest{ResultID: row.ID, Budgets: budgets, Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != len(cols) {
		t.Fatalf("%d series for %d policies", len(one), len(cols))
	}
	for i, series := range one {
		for j, b := range budgets {
			sl := b
			view, err := r.Compare(CompareRequest{ResultID: row.ID, Columns: cols[i : i+1], Slider: &sl})
			if err != nil {
				t.Fatal(err)
			}
			c, got := view.Columns[0], series.Rows[j]
			if got.Slider != b || got.Results != 1 || got.YardstickTokens != int64(c.Yardstick.Total) || got.LostBytes != c.Lost.Bytes || got.OmittedBytes != c.Omitted.Bytes {
				t.Fatalf("%s at %d: series %+v, compare %+v", series.Policy, b, got, c)
			}
		}
	}
	detail, err := s.Result(ResultQuery{ID: row.ID})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := r.SweepPolicies(SweepPoliciesRequest{SessionID: detail.Session.ID, Budgets: budgets, Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.SweepPolicies(SweepPoliciesRequest{Budgets: budgets, Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	for i := range cols {
		for j := range budgets {
			if sess[i].Rows[j].Results < 1 || all[i].Rows[j].Results < sess[i].Rows[j].Results || all[i].Rows[j].YardstickTokens < sess[i].Rows[j].YardstickTokens {
				t.Fatalf("%s: session %+v, index %+v", cols[i].Policy, sess[i].Rows[j], all[i].Rows[j])
			}
		}
	}
	if _, err := r.SweepPolicies(SweepPoliciesRequest{Budgets: budgets, Columns: []CompareColumnSpec{{Policy: "opencode", Params: map[string]string{"direction": "middle"}}}}); err == nil {
		t.Fatal("a bad parameter swept")
	}
}

// TestSweepCuts: the window's cut list is the index's, every result it
// lists opens at that budget (Retain) with the figures the list shows, and
// the one-result scope lists that result's row alone.
func TestSweepCuts(t *testing.T) {
	_, r, _, _, _ := newIndexedApp(t)
	listed := 0
	for _, b := range []int64{300, 3000} {
		against := b * 4
		list, err := r.SweepCuts(SweepCutsRequest{Budget: b, Against: &against})
		if err != nil {
			t.Fatal(err)
		}
		if list.Budget != b || list.Against == nil || *list.Against != against || list.Stats.Summarised == 0 {
			t.Fatalf("at %d: %+v", b, list)
		}
		for _, row := range list.Rows {
			listed++
			bb := b
			p, err := r.Retain(RetainRequest{ResultID: row.ResultID, Budget: &bb})
			if err != nil {
				t.Fatal(err)
			}
			if p.Status != row.At.Status || int64(p.Tokens.Total) != row.At.TokensAfter || p.OmittedBytes != row.At.OmittedBytes || p.OmittedImages != row.At.OmittedImages {
				t.Fatalf("result %d at %d: opened %s %d tokens %d bytes, listed %+v", row.ResultID, b, p.Status, p.Tokens.Total, p.OmittedBytes, row.At)
			}
			one, err := r.SweepCuts(SweepCutsRequest{ResultID: row.ResultID, Budget: b, Against: &against})
			if err != nil {
				t.Fatal(err)
			}
			if len(one.Rows) != 1 || one.Results != 1 || !reflect.DeepEqual(one.Rows[0], row) {
				t.Fatalf("result %d alone: %+v, in the index %+v", row.ResultID, one.Rows, row)
			}
		}
	}
	if listed == 0 {
		t.Fatal("the sample has nothing cut at 300 tokens")
	}
	if _, err := r.SweepCuts(SweepCutsRequest{Budget: 5, Policy: "nope"}); err == nil {
		t.Fatal("an unknown policy listed")
	}
}
