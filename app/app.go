// Package app holds the services the desktop window binds: each exported
// method validates its input, calls one domain function in retention or
// sessions, and returns (T, error) so the TypeScript side gets real types and
// errors arrive as rejected promises. This is the only package that imports
// the Wails runtime.
package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"spillscope/sessions"
)

// Config is what main hands the services: where things live. Paths are
// resolved once at start-up so every service agrees on them.
type Config struct {
	// DataDir holds the index database and the attachment store.
	DataDir string
	// DBPath is the index database; "" is index.db in DataDir. The
	// attachment store is always beside the database.
	DBPath string
	// ConfigDir holds settings.json.
	ConfigDir string
	// Roots are the session folders to index; empty means the usual places.
	Roots []string
	// Home is the user's home directory, used to find the usual places.
	Home string
	// Env is what the harnesses read of the machine (their homes, the
	// XDG folders, the temp folder); the zero Env reads the process's.
	Env sessions.Env
}

// ConfigFromEnv resolves Config from the XDG variables and the SPILLSCOPE_*
// overrides (SPILLSCOPE_ROOTS is a list separated by the OS path separator).
// The data directory is sessions.DataDir's, so a relative
// SPILLSCOPE_DATA_DIR is an error.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return Config{}, fmt.Errorf("app: no home directory: %w", err)
		}
		home = h
	}
	c := Config{Home: home, Env: sessions.Env{Getenv: getenv}}
	// The CLI's index and sweep resolve the same folder, so both open the
	// same index.
	dataDir, err := sessions.DataDir(getenv)
	if err != nil {
		return Config{}, err
	}
	c.DataDir = dataDir
	c.ConfigDir = getenv("SPILLSCOPE_CONFIG_DIR")
	if c.ConfigDir == "" {
		base := getenv("XDG_CONFIG_HOME")
		if base == "" {
			base = filepath.Join(home, ".config")
		}
		c.ConfigDir = filepath.Join(base, "spillscope")
	}
	if r := getenv("SPILLSCOPE_ROOTS"); r != "" {
		for _, p := range filepath.SplitList(r) {
			if strings.TrimSpace(p) == "" {
				continue
			}
			root, err := sessions.NormalizeRoot(p, c.env())
			if err != nil {
				return Config{}, fmt.Errorf("app: SPILLSCOPE_ROOTS: %w", err)
			}
			c.Roots = append(c.Roots, root)
		}
	}
	return c, nil
}

// env is the harnesses' view of the machine, with Home as the home folder.
func (c Config) env() sessions.Env {
	get := c.Env.Getenv
	if get == nil {
		get = os.Getenv
	}
	return sessions.Env{Getenv: func(k string) string {
		if k == "HOME" && c.Home != "" {
			return c.Home
		}
		return get(k)
	}}
}

// Root is one session folder the app would index.
type Root struct {
	Harness string `json:"harness"`
	Path    string `json:"path"`
	Exists  bool   `json:"exists"`
}

// Info is what the shell shows about the running app.
type Info struct {
	Version  string `json:"version"`
	Platform string `json:"platform"`
	DataDir  string `json:"dataDir"`
	Roots    []Root `json:"roots"`
	// Harnesses are the session formats this build reads, each with its
	// default roots on this machine.
	Harnesses []HarnessInfo `json:"harnesses"`
}

// HarnessInfo is one harness this build reads: its name (as SessionRow's
// harness), its label and its default roots here.
type HarnessInfo struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Roots []Root `json:"roots"`
}

// App is the bound service for app-wide facts and settings.
type App struct {
	ctx      context.Context
	cfg      Config
	settings *SettingsStore
}

// New builds the App service.
func New(cfg Config, settings *SettingsStore) *App {
	return &App{cfg: cfg, settings: settings}
}

// Startup receives the Wails context; main registers it as OnStartup.
func (a *App) Startup(ctx context.Context) { a.ctx = ctx }

// Info returns the version and the session roots the app would index, with
// which of them exist on this machine.
func (a *App) Info() (Info, error) {
	info := Info{
		Version:   Version,
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
		DataDir:   a.cfg.DataDir,
		Roots:     ResolveRoots(a.cfg),
		Harnesses: []HarnessInfo{},
	}
	for _, h := range sessions.DescribeHarnesses(a.cfg.env()) {
		hi := HarnessInfo{Name: h.Name, Label: h.Label, Roots: []Root{}}
		for _, r := range h.Roots {
			hi.Roots = append(hi.Roots, Root{Harness: h.Name, Path: r.Path, Exists: r.Exists})
		}
		info.Harnesses = append(info.Harnesses, hi)
	}
	return info, nil
}

// GetSettings returns the saved settings (defaults where none are saved).
func (a *App) GetSettings() (Settings, error) {
	return a.settings.Load()
}

// SetLanguage saves the UI language ("en" or "zh").
func (a *App) SetLanguage(lang string) (Settings, error) {
	if lang != "en" && lang != "zh" {
		return Settings{}, fmt.Errorf("app: unsupported language %q (want en or zh)", lang)
	}
	return a.settings.Update(func(s *Settings) { s.Language = lang })
}

// ResolveRoots lists the configured roots, or, when none are configured,
// every registered harness's default roots on this machine (the harness
// registry owns them), each marked with whether it exists.
func ResolveRoots(cfg Config) []Root {
	var roots []Root
	if len(cfg.Roots) > 0 {
		for _, p := range cfg.Roots {
			roots = append(roots, Root{Harness: "any", Path: p})
		}
	} else {
		for _, h := range sessions.DescribeHarnesses(cfg.env()) {
			for _, r := range h.Roots {
				roots = append(roots, Root{Harness: h.Name, Path: r.Path})
			}
		}
	}
	for i := range roots {
		st, err := os.Stat(roots[i].Path)
		roots[i].Exists = err == nil && st.IsDir()
	}
	return roots
}
