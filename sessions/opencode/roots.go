package opencode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"spillscope/sessions/internal/readkit"
)

// DBEnv names the variable that points OpenCode at another database file:
// an absolute path, or a name inside the data folder.
const DBEnv = "OPENCODE_DB"

// DataDir is OpenCode's data folder as its source resolves it (Global.Path.data
// = xdg-basedir's xdgData + "/opencode"): $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode, the same on every platform. getenv may be nil.
func DataDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	base := readkit.AbsEnv(getenv, "XDG_DATA_HOME")
	if base == "" {
		base = filepath.Join(readkit.HomeDir(getenv), ".local", "share")
	}
	return filepath.Join(base, "opencode")
}

// Sources are the places on this machine OpenCode keeps sessions.
type Sources struct {
	// Data is the data folder.
	Data string
	// Databases are opencode.db and any opencode-<channel>.db in Data (a
	// non-release build keeps its own), plus $OPENCODE_DB when set.
	Databases []string
	// Storage is the JSON storage folder of versions before the database.
	Storage string
	// ToolOutput is where full outputs of truncated results are saved.
	ToolOutput string
}

// DefaultSources finds OpenCode's sources on this machine; the paths are
// where they would be, whether or not they exist (Databases lists only
// files that exist, besides the default opencode.db).
func DefaultSources(getenv func(string) string) Sources {
	if getenv == nil {
		getenv = os.Getenv
	}
	d := DataDir(getenv)
	s := Sources{Data: d, Storage: filepath.Join(d, "storage"), ToolOutput: filepath.Join(d, "tool-output"),
		Databases: []string{filepath.Join(d, "opencode.db")}}
	if more, _ := filepath.Glob(filepath.Join(d, "opencode-*.db")); len(more) > 0 {
		s.Databases = append(s.Databases, more...)
	}
	if v := getenv(DBEnv); v != "" && v != ":memory:" {
		if !filepath.IsAbs(v) {
			v = filepath.Join(d, v)
		}
		if !contains(s.Databases, v) {
			s.Databases = append(s.Databases, v)
		}
	}
	return s
}

// DefaultRoots are the folders to watch: the data folder, and the folder of
// $OPENCODE_DB when it lies elsewhere.
func DefaultRoots(getenv func(string) string) []string {
	s := DefaultSources(getenv)
	roots := []string{s.Data}
	for _, db := range s.Databases {
		if dir := filepath.Dir(db); !contains(roots, dir) && !strings.HasPrefix(dir, s.Data+string(filepath.Separator)) {
			roots = append(roots, dir)
		}
	}
	return roots
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// SpillRule is a harness's spill location rule (see readkit.SpillRule).
type SpillRule = readkit.SpillRule

// Spill is where OpenCode saves the full output of a truncated result:
// <data>/tool-output/tool_<id>, no extension, the id an ascending
// identifier (12 hex digits of time, 14 base-62 characters). Kept 7 days.
func Spill(getenv func(string) string) SpillRule {
	return SpillRule{Dirs: []string{DefaultSources(getenv).ToolOutput}, Name: spillName}
}

var spillName = regexp.MustCompile(`^tool_[0-9a-f]{12}[0-9A-Za-z]{14}$`)

// Kind is what an OpenCode path holds.
type Kind int

// Kinds of path.
const (
	NotOpenCode Kind = iota
	KindExport
	KindStorage
	KindDB
)

// Detect says what the path holds: a storage folder, a database, an export
// document, or none of these.
func Detect(path string) Kind {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return NotOpenCode
	case fi.IsDir():
		if IsStorage(path) {
			return KindStorage
		}
	case DetectDB(path):
		return KindDB
	case strings.HasSuffix(path, ".json") && DetectExport(path):
		return KindExport
	}
	return NotOpenCode
}

// ReadResult reads one result back: source is the export document, the
// storage folder or the database the locator came from.
func ReadResult(ctx context.Context, source string, loc Locator) (Result, error) {
	switch loc.Source {
	case SourceExport:
		return readExportResult(source, loc)
	case SourceStorage:
		return readStorageResult(source, loc)
	case SourceDB:
		return readDBResult(ctx, source, loc)
	}
	return Result{}, fmt.Errorf("%w: unknown locator source %q", ErrResultGone, loc.Source)
}
