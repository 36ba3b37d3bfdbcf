package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeResultLine is one Claude Code tool result whose text is content.
func claudeResultLine(t *testing.T, sid, call, content string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": "user", "sessionId": sid, "timestamp": "2026-01-01T00:00:02.000Z",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": call, "type": "tool_result", "content": content}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSpillFileServiceRefusesForgedNotices goes through the bound service
// as the window does: a forged notice never brings a file's bytes back,
// and the result header's state is the pane's.
func TestSpillFileServiceRefusesForgedNotices(t *testing.T) {
	base := t.TempDir()
	root, home, outside := filepath.Join(base, "root"), filepath.Join(base, "home"), filepath.Join(base, "outside")
	secrets := []string{"HOME-AWS-SECRET", "OUTSIDE-SECRET"}
	write(t, filepath.Join(home, ".aws", "credentials"), "aws_secret_access_key=HOME-AWS-SECRET")
	write(t, filepath.Join(outside, "secret.txt"), "OUTSIDE-SECRET")
	own := filepath.Join(root, "-w", "s1", "tool-results")
	write(t, filepath.Join(own, "toolu_ok.txt"), "LEGIT-SPILL")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(own, "toolu_link.txt")); err != nil {
		t.Skip(err)
	}
	notice := func(p string) string {
		return "<persisted-output>\nOutput too large (9KB). Full output saved to: " + p + "\n\nPreview (first 2KB):\nx\n...\n</persisted-output>"
	}
	want := map[string]string{}
	var lines strings.Builder
	for call, c := range map[string]struct{ path, state string }{
		"toolu_ok":   {filepath.Join(own, "toolu_ok.txt"), "exists"},
		"toolu_gone": {filepath.Join(own, "toolu_gone.txt"), "missing"},
		"shadow":     {"/etc/shadow", "outside"},
		"environ":    {"/proc/self/environ", "outside"},
		"aws":        {filepath.Join(home, ".aws", "credentials"), "outside"},
		"dotdot":     {own + "/../../../../outside/secret.txt", "outside"},
		"link":       {filepath.Join(own, "toolu_link.txt"), "outside"},
	} {
		lines.WriteString(claudeResultLine(t, "s1", call, notice(c.path)))
		want[call] = c.state
	}
	write(t, filepath.Join(root, "-w", "s1.jsonl"), lines.String())

	store := NewStore(Config{DataDir: filepath.Join(base, "data"), Roots: []string{root}, Home: home}, nil)
	t.Cleanup(func() { store.Close() })
	s := NewSessions(store)
	if _, err := s.Index(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		st, err := s.Status()
		if err != nil {
			t.Fatal(err)
		}
		if !st.Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("index did not finish")
		}
	}
	sess, err := listAll(s, SessionQuery{})
	if err != nil || len(sess) != 1 {
		t.Fatalf("sessions %v %v", sess, err)
	}
	if sess[0].Harness != "claude-code" || sess[0].HarnessLabel != "Claude Code" {
		t.Errorf("harness %q labelled %q, want the registry's", sess[0].Harness, sess[0].HarnessLabel)
	}
	rows, err := resultsAll(s, sess[0].ID)
	if err != nil || len(rows) != len(want) {
		t.Fatalf("results %d (%v), want %d", len(rows), err, len(want))
	}
	for _, r := range rows {
		t.Run(r.CallID, func(t *testing.T) {
			sl, err := s.SpillFile(SpillQuery{ResultID: r.ID, Limit: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if sl.State != want[r.CallID] {
				t.Errorf("pane state %q, want %q", sl.State, want[r.CallID])
			}
			d, err := s.Result(ResultQuery{ID: r.ID})
			if err != nil {
				t.Fatal(err)
			}
			if d.Row.NoticeFileState != sl.State || d.Row.NoticeFileExists != sl.Exists {
				t.Errorf("header says %q (exists %v), pane %q (exists %v)", d.Row.NoticeFileState, d.Row.NoticeFileExists, sl.State, sl.Exists)
			}
			for _, sec := range secrets {
				if strings.Contains(sl.Text, sec) {
					t.Errorf("the pane shows %q", sec)
				}
			}
			if sl.State == "exists" && sl.Text != "LEGIT-SPILL" {
				t.Errorf("text %q", sl.Text)
			}
			if sl.State != "exists" && sl.Text != "" {
				t.Errorf("a file not opened has text %q", sl.Text)
			}
		})
	}
	if _, err := s.SpillFile(SpillQuery{ResultID: rows[0].ID, Offset: -1, Limit: 1}); err == nil {
		t.Error("a negative offset was accepted")
	}
}
