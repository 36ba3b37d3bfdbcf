package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"spillscope/sessions"
)

func TestHarnessesCommand(t *testing.T) {
	home := t.TempDir()
	codexHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude", "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(codexHome, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	xdg, copilotHome, gooseRoot := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(xdg, "opencode"), filepath.Join(copilotHome, "session-state"), filepath.Join(gooseRoot, "data", "sessions")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env, out, errb := envFor(t, map[string]string{"HOME": home, "CODEX_HOME": codexHome, "GEMINI_CLI_HOME": "relative/ignored",
		"XDG_DATA_HOME": xdg, "COPILOT_HOME": copilotHome, "GOOSE_PATH_ROOT": gooseRoot})
	if code := Run(env, []string{"harnesses"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Harnesses []sessions.HarnessInfo `json:"harnesses"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	byName := map[string]sessions.HarnessInfo{}
	for _, h := range got.Harnesses {
		byName[h.Name] = h
		if h.Label == "" {
			t.Errorf("%s has no label", h.Name)
		}
	}
	if len(byName) != len(sessions.Harnesses()) {
		t.Errorf("listed %d harnesses, %d registered", len(byName), len(sessions.Harnesses()))
	}
	tests := []struct {
		harness, path string
		exists        bool
	}{
		{sessions.HarnessClaude, filepath.Join(home, ".claude", "projects"), true},
		{sessions.HarnessCodex, filepath.Join(codexHome, "sessions"), true},
		{sessions.HarnessCodex, filepath.Join(codexHome, "archived_sessions"), false},
		// A relative GEMINI_CLI_HOME is not a home: the user's is used.
		{sessions.HarnessGemini, filepath.Join(home, ".gemini", "tmp"), false},
		// OpenCode's data folder follows XDG_DATA_HOME; Copilot CLI's
		// COPILOT_HOME; goose's GOOSE_PATH_ROOT (its data folder under it).
		{sessions.HarnessOpenCode, filepath.Join(xdg, "opencode"), true},
		{sessions.HarnessCopilot, filepath.Join(copilotHome, "session-state"), true},
		{sessions.HarnessCopilot, filepath.Join(copilotHome, "history-session-state"), false},
		{sessions.HarnessGoose, filepath.Join(gooseRoot, "data", "sessions"), true},
	}
	for _, tt := range tests {
		t.Run(tt.harness+" "+filepath.Base(tt.path), func(t *testing.T) {
			for _, r := range byName[tt.harness].Roots {
				if r.Path == tt.path {
					if r.Exists != tt.exists {
						t.Errorf("exists %v, want %v", r.Exists, tt.exists)
					}
					return
				}
			}
			t.Errorf("root %s not listed: %+v", tt.path, byName[tt.harness].Roots)
		})
	}
	if code := Run(env, []string{"harnesses", "extra"}); code != exitUsage {
		t.Errorf("an argument exited %d, want %d", code, exitUsage)
	}
}
