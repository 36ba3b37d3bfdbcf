package goose

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"

	"spillscope/sessions/internal/readkit"
)

// PathRootEnv names goose's variable that moves its config, data and state
// folders under one root (used only when absolute, as goose does).
const PathRootEnv = "GOOSE_PATH_ROOT"

// Files inside a data folder.
const (
	SessionsFolder = "sessions"
	DBName         = "sessions.db"
)

// DataDir is goose's data folder as config/paths.rs resolves it:
// $GOOSE_PATH_ROOT/data when that is absolute, else the platform's data
// folder for the app "goose" of author "Block" (etcetera's app strategy):
// $XDG_DATA_HOME/goose or ~/.local/share/goose on Linux and other Unix,
// ~/Library/Application Support/Block/goose on macOS, and
// %APPDATA%\Block\goose\data on Windows. getenv may be nil.
func DataDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if r := readkit.AbsEnv(getenv, PathRootEnv); r != "" {
		return filepath.Join(r, "data")
	}
	home := readkit.HomeDir(getenv)
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "Block", "goose")
	case "windows":
		appdata := getenv("APPDATA")
		if appdata == "" {
			appdata = filepath.Join(home, "AppData", "Roaming")
		}
		return filepath.Join(appdata, "Block", "goose", "data")
	}
	if x := readkit.AbsEnv(getenv, "XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "goose")
	}
	return filepath.Join(home, ".local", "share", "goose")
}

// DefaultRoots is the folder holding sessions.db and the legacy JSONL
// files: <data>/sessions.
func DefaultRoots(getenv func(string) string) []string {
	return []string{filepath.Join(DataDir(getenv), SessionsFolder)}
}

// SpillRule is a harness's spill location rule (see readkit.SpillRule).
type SpillRule = readkit.SpillRule

// Spill lists where goose has written large responses: the current
// <data>/mcp_responses/mcp_response_<YYYYmmdd_HHMMSS.ffffff>_<random>.txt,
// then the older $TMPDIR/goose_mcp_responses/mcp_response_<timestamp>.txt
// (microseconds in later versions, whole seconds in the first).
func Spill(getenv func(string) string) []SpillRule {
	if getenv == nil {
		getenv = os.Getenv
	}
	var tmp []string
	for _, d := range readkit.TempDirs(getenv) {
		tmp = append(tmp, filepath.Join(d, "goose_mcp_responses"))
	}
	return []SpillRule{
		{Dirs: []string{filepath.Join(DataDir(getenv), "mcp_responses")}, Name: currentSpill},
		{Dirs: tmp, Name: olderSpill},
	}
}

var (
	currentSpill = regexp.MustCompile(`^mcp_response_[0-9]{8}_[0-9]{6}\.[0-9]{6}_[0-9A-Za-z]+\.txt$`)
	olderSpill   = regexp.MustCompile(`^mcp_response_[0-9]{8}_[0-9]{6}(\.[0-9]{6})?\.txt$`)
)

// Kind is what a goose path holds.
type Kind int

// Kinds of path.
const (
	NotGoose Kind = iota
	KindDB
	KindJSONL
)

// Detect says whether path is goose's session database or a legacy
// session file.
func Detect(path string) Kind {
	switch {
	case DetectDB(path):
		return KindDB
	case DetectJSONL(path):
		return KindJSONL
	}
	return NotGoose
}
