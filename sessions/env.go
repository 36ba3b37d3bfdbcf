package sessions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"spillscope/sessions/internal/readkit"
)

// Env is what harnesses read of the machine: environment variables (HOME,
// the XDG folders, each harness's own overrides) and the temporary folder.
// Tests pass their own Getenv so nothing depends on the user's real setup.
type Env struct {
	// Getenv looks up a variable; nil means os.Getenv.
	Getenv func(string) string
}

// SystemEnv reads the process environment.
func SystemEnv() Env { return Env{Getenv: os.Getenv} }

// Get returns a variable's value.
func (e Env) Get(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

// Home is $HOME, else the OS's home folder ("" when there is none).
func (e Env) Home() string {
	if h := e.Get("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Dir is an absolute folder from a variable, or def when the variable is
// unset, blank or relative (the XDG spec ignores a relative value).
func (e Env) Dir(key, def string) string {
	if v := e.Get(key); v != "" && filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return def
}

// DataHome is $XDG_DATA_HOME, else ~/.local/share.
func (e Env) DataHome() string {
	return e.Dir("XDG_DATA_HOME", filepath.Join(e.Home(), ".local", "share"))
}

// TempDirs are the folders harnesses put temporary spill files in, as
// readkit.TempDirs names them ($TMPDIR when it is set and absolute, and
// /tmp), each as its real path (macOS's /tmp is a link to /private/tmp),
// each once.
func (e Env) TempDirs() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range readkit.TempDirs(e.Get) {
		r := systemRealPath(d)
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// systemPaths memoises the real paths of system folders (the temp
// folders), which the file rule resolves for every session it judges.
var systemPaths sync.Map

func systemRealPath(d string) string {
	if r, ok := systemPaths.Load(d); ok {
		return r.(string)
	}
	r := realPath(d)
	systemPaths.Store(d, r)
	return r
}

// ErrRoot reports a session root that cannot be used.
var ErrRoot = errors.New("sessions: bad session root")

// NormalizeRoot is the one spelling of a session root, whoever names it
// (the CLI's arguments, SPILLSCOPE_ROOTS, settings, the indexer): "~" and
// "~/..." are the home folder, a relative path is taken from the working
// folder, and the result is absolute and clean (no trailing slash, no "."
// or ".." parts). Symlinks are kept as written: the file rule resolves them
// itself.
func NormalizeRoot(root string, env Env) (string, error) {
	r := strings.TrimSpace(root)
	if r == "" {
		return "", fmt.Errorf("%w: empty path", ErrRoot)
	}
	if r == "~" || strings.HasPrefix(r, "~/") || strings.HasPrefix(r, "~"+string(filepath.Separator)) {
		home := env.Home()
		if home == "" {
			return "", fmt.Errorf("%w: %q: no home folder", ErrRoot, root)
		}
		r = filepath.Join(home, r[1:])
	}
	abs, err := filepath.Abs(r)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrRoot, root, err)
	}
	return abs, nil
}
