package app

import (
	"bytes"
	"reflect"
	"testing"

	"spillscope/retention"
)

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
}

// TestSweepPolicyPointErrors: where a policy's parameters cannot hold at a
// slider position (dsh-pruner's head and tail over its threshold low on the
// slider; a parameter no budget makes valid), that series' point carries
// Compare's error for the column and no figures, over one result and over
// the index alike; the other points and series are what they are alone.
func TestSweepPolicyPointErrors(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 1})
	if err != nil || len(page.Rows) != 1 {
		t.Fatal(page.Rows, err)
	}
	id := page.Rows[0].ID
	cols := []CompareColumnSpec{{Policy: "dsh-pruner"}, {Policy: "dsh-tokens"}, {Policy: "opencode", Params: map[string]string{"direction": "middle"}}}
	budgets := []int64{200, 20000}
	for _, scope := range []struct {
		name string
		req  SweepPoliciesRequest
	}{
		{"result", SweepPoliciesRequest{ResultID: id, Budgets: budgets, Columns: cols}},
		{"index", SweepPoliciesRequest{Budgets: budgets, Columns: cols}},
	} {
		t.Run(scope.name, func(t *testing.T) {
			got, err := r.SweepPolicies(scope.req)
			if err != nil {
				t.Fatal(err)
			}
			alone := scope.req
			alone.Columns = cols[1:2]
			tokens, err := r.SweepPolicies(alone)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range cols {
				for j, b := range budgets {
					sl := b
					view, err := r.Compare(CompareRequest{ResultID: id, Columns: cols[i : i+1], Slider: &sl})
					if err != nil {
						t.Fatal(err)
					}
					row, want := got[i].Rows[j], view.Columns[0].Error
					if row.Error != want || row.Slider != b {
						t.Fatalf("%s at %d: sweep error %q, compare %q", c.Policy, b, row.Error, want)
					}
					if want != "" && (row.Results != 0 || row.YardstickTokens != 0) {
						t.Fatalf("%s at %d: an error point with figures %+v", c.Policy, b, row)
					}
					if want == "" && row.Results == 0 {
						t.Fatalf("%s at %d: no results", c.Policy, b)
					}
				}
			}
			if got[0].Rows[0].Error == "" || got[0].Rows[1].Error != "" || got[2].Rows[0].Error == "" || got[2].Rows[1].Error == "" {
				t.Fatalf("errors: dsh-pruner %q %q, opencode %q %q", got[0].Rows[0].Error, got[0].Rows[1].Error, got[2].Rows[0].Error, got[2].Rows[1].Error)
			}
			for j := range budgets {
				if got[1].Rows[j] != tokens[0].Rows[j] {
					t.Fatalf("dsh-tokens at %d beside failing series %+v, alone %+v", budgets[j], got[1].Rows[j], tokens[0].Rows[j])
				}
			}
		})
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
