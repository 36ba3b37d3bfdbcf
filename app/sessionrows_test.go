package app

import "testing"

// TestSessionRowsAndDiagnostics: the sessions list hands the window what it
// needs to nest a subagent under its parent, and the diagnostics rows,
// one per file and kind, count every diagnostic the index holds.
func TestSessionRowsAndDiagnostics(t *testing.T) {
	s, _, _, man, _ := newIndexedApp(t)
	rows, err := listAll(s, SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]SessionRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	subagents := 0
	for _, r := range rows {
		if r.AgentID == "" {
			if r.Kind != "" || r.ParentID != 0 {
				t.Errorf("session %d: kind %q parent %d", r.ID, r.Kind, r.ParentID)
			}
			continue
		}
		subagents++
		p, ok := byID[r.ParentID]
		if r.Kind == "" || !ok || p.SessionID != r.SessionID || p.AgentID != "" {
			t.Errorf("subagent %d (%s): kind %q parent %d %+v", r.ID, r.AgentID, r.Kind, r.ParentID, p)
		}
		if r.ModelCalls == 0 {
			t.Errorf("subagent %d has no model calls", r.ID)
		}
	}
	want := 0
	for _, c := range man.PerHarness {
		want += c.Subagents
	}
	if subagents == 0 || subagents != want {
		t.Errorf("%d subagent rows, the sample writes %d", subagents, want)
	}
	st, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	diags, err := s.Diagnostics(1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range diags {
		if d.Count < 1 {
			t.Errorf("diagnostic row %+v counts nothing", d)
		}
		n += d.Count
	}
	if n != st.Diagnostics || n == 0 {
		t.Errorf("diagnostic rows count %d, the index holds %d", n, st.Diagnostics)
	}
}
