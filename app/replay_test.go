package app

import (
	"path/filepath"
	"strings"
	"testing"

	"spillscope/sessions"
)

// TestReplayServiceOnSample: through the bound services, as the window
// calls them: every dsh result of the sample whose spill file exists
// replays as recorded and reproduces; the result view says which result
// the pruner replaced and shows what the model saw last; a result without
// its spill file says why it cannot be replayed; and the harness list
// names dsh with its default root.
func TestReplayServiceOnSample(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	rows, err := listAll(s, SessionQuery{Harness: "dsh"})
	if err != nil || len(rows) != 3 {
		t.Fatalf("dsh sessions %d %v", len(rows), err)
	}
	reproduced, pruned := 0, 0
	for _, sess := range rows {
		results, err := resultsAll(s, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range results {
			d, err := s.Result(ResultQuery{ID: row.ID})
			if err != nil {
				t.Fatal(err)
			}
			if d.Replaced != nil {
				pruned++
				if d.Replaced.Kind != "prune" || d.Replaced.EventSeq < 0 || len(d.Replaced.LastSeen) != 1 ||
					!strings.Contains(d.Replaced.LastSeen[0].Text, "[... tool result middle pruned ...]") {
					t.Errorf("%s replaced %+v", row.Tool, d.Replaced)
				}
			}
			if row.NoticeKind == "" {
				continue
			}
			v, err := r.Replay(ReplayRequest{ResultID: row.ID})
			if err != nil {
				t.Fatal(err)
			}
			switch row.NoticeFileState {
			case "exists":
				if !v.Replayable || !v.Reproduced || v.Policy != row.NoticeKind || v.Estimator != "dsh-meter" || v.Difference != nil {
					t.Errorf("%s (%s): %+v", row.Tool, row.NoticeKind, v)
				}
				if (v.BudgetSource == "range") != (v.BudgetRange != nil) {
					t.Errorf("%s: budget %d %s %+v", row.Tool, v.Budget, v.BudgetSource, v.BudgetRange)
				}
				reproduced++
			default:
				if v.Replayable || v.Reason == "" || v.SpillState != row.NoticeFileState {
					t.Errorf("%s (%s file): %+v", row.Tool, row.NoticeFileState, v)
				}
			}
		}
	}
	if reproduced != 5 || pruned != 1 {
		t.Errorf("%d reproduced, %d pruned", reproduced, pruned)
	}
	if _, err := r.Replay(ReplayRequest{}); err == nil {
		t.Error("result id 0 accepted")
	}
	home := t.TempDir()
	a := New(Config{Home: home, Env: sessions.Env{Getenv: func(string) string { return "" }}}, nil)
	info, err := a.Info()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range info.Harnesses {
		if h.Name == "dsh" && len(h.Roots) == 1 && h.Roots[0].Path == filepath.Join(home, ".dsh", "sessions") {
			found = true
		}
	}
	if !found {
		t.Errorf("harnesses %+v", info.Harnesses)
	}
}
