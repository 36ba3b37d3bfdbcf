package copilot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"

	"spillscope/sessions/internal/readkit"
)

// HomeEnv names the variable that moves the CLI's whole directory.
const HomeEnv = "COPILOT_HOME"

// DefaultRoots are the session-state folders on this machine: $COPILOT_HOME
// when set (absolute), else ~/.copilot, each with session-state/ (current)
// and history-session-state/ (what older CLIs wrote). getenv may be nil.
func DefaultRoots(getenv func(string) string) []string {
	if getenv == nil {
		getenv = os.Getenv
	}
	base := readkit.AbsEnv(getenv, HomeEnv)
	if base == "" {
		base = filepath.Join(readkit.HomeDir(getenv), ".copilot")
	}
	return []string{filepath.Join(base, "session-state"), filepath.Join(base, "history-session-state")}
}

// LogName is the name of a session's event log inside its folder.
const LogName = "events.jsonl"

// IsLogPath reports whether path is named as a session log is:
// session-state/<id>/events.jsonl.
func IsLogPath(path string) bool {
	return filepath.Base(path) == LogName && filepath.Base(filepath.Dir(filepath.Dir(path))) == "session-state"
}

// DetectFile reports whether the file at path is a Copilot CLI session log:
// its first line is a session.start event written by the Copilot agent.
func DetectFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	l, err := readkit.NewLineReader(f, 0, 1).Next()
	if err != nil && len(l.Bytes) == 0 {
		return false
	}
	return Detect(l.Bytes)
}

// Detect reports whether line is the first line of a Copilot session log.
func Detect(line []byte) bool {
	var e struct {
		Type string `json:"type"`
		Data struct {
			SessionID      string `json:"sessionId"`
			Producer       string `json:"producer"`
			CopilotVersion string `json:"copilotVersion"`
		} `json:"data"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &e) != nil || e.Type != "session.start" || e.Data.SessionID == "" {
		return false
	}
	return e.Data.Producer == "copilot-agent" || e.Data.CopilotVersion != ""
}

// SpillRule is a harness's spill location rule (see readkit.SpillRule).
type SpillRule = readkit.SpillRule

// Spill is the rule on this machine: "<ms>-copilot-tool-output-<id>.txt" in
// the system temporary folder ($TMPDIR, else /tmp). getenv may be nil.
func Spill(getenv func(string) string) SpillRule {
	if getenv == nil {
		getenv = os.Getenv
	}
	return SpillRule{Dirs: readkit.TempDirs(getenv), Name: spillName}
}

var spillName = regexp.MustCompile(`^[0-9]+-copilot-tool-output-[0-9A-Za-z]+\.txt$`)
