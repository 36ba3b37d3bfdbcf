package app

import (
	"bytes"
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
	if _, err := r.SweepPolicies(SweepPoliciesRequest{Budgets: budgets, Columns: []CompareColumnSpec{{Policy: "opencode", Params: map[string]string{"direction": "middle"}}}}); err == nil {
		t.Fatal("a bad parameter swept")
	}
}
