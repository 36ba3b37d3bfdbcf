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
	"slices"
	"strings"

	"spillscope/retention"
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
	// Source says who chose it: "env" (SPILLSCOPE_ROOTS), "settings" (the
	// user, in the window) or "default" (the harness's usual place).
	Source string `json:"source"`
}

// Root sources.
const (
	RootFromEnv      = "env"
	RootFromSettings = "settings"
	RootDefault      = "default"
)

// Info is what the shell shows about the running app.
type Info struct {
	Version  string `json:"version"`
	Platform string `json:"platform"`
	DataDir  string `json:"dataDir"`
	// ConfigDir holds settings.json.
	ConfigDir string `json:"configDir"`
	Roots     []Root `json:"roots"`
	// ReadTools are the core's read-tool names, used when the settings
	// name none.
	ReadTools []string `json:"readTools"`
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
	// chooseDir opens the folder dialog; tests replace it (the Wails dialog
	// needs the window).
	chooseDir func(ctx context.Context, title string) (string, error)
}

// New builds the App service.
func New(cfg Config, settings *SettingsStore) *App {
	return &App{cfg: cfg, settings: settings, chooseDir: openDirectoryDialog}
}

// Startup receives the Wails context; main registers it as OnStartup.
func (a *App) Startup(ctx context.Context) { a.ctx = ctx }

// Info returns the version and the session roots the app would index, with
// which of them exist on this machine.
func (a *App) Info() (Info, error) {
	set, _ := a.settings.Load() // unreadable settings: the defaults' roots
	info := Info{
		Version:   Version,
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
		DataDir:   a.cfg.DataDir,
		ConfigDir: a.cfg.ConfigDir,
		Roots:     ResolveRoots(a.cfg, set.Roots),
		ReadTools: retention.DefaultReadTools,
		Harnesses: []HarnessInfo{},
	}
	for _, h := range sessions.DescribeHarnesses(a.cfg.env()) {
		hi := HarnessInfo{Name: h.Name, Label: h.Label, Roots: []Root{}}
		for _, r := range h.Roots {
			hi.Roots = append(hi.Roots, Root{Harness: h.Name, Path: r.Path, Exists: r.Exists, Source: RootDefault})
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
		return Settings{}, coded("language-unsupported", "lang", lang)
	}
	return a.settings.Update(func(s *Settings) { s.Language = lang })
}

// ResolveRoots lists the folders to index: SPILLSCOPE_ROOTS when set, else
// the ones saved in the settings, else the usual places each harness
// writes; each marked with whether it exists and who chose it.
func ResolveRoots(cfg Config, saved []string) []Root {
	var roots []Root
	switch {
	case len(cfg.Roots) > 0:
		for _, p := range cfg.Roots {
			roots = append(roots, Root{Harness: "any", Path: p, Source: RootFromEnv})
		}
	case len(saved) > 0:
		for _, p := range saved {
			roots = append(roots, Root{Harness: "any", Path: p, Source: RootFromSettings})
		}
	default:
		roots = DefaultRoots(cfg)
	}
	markExisting(roots)
	return roots
}

// DefaultRoots are the usual places each harness writes its sessions on
// this machine, as the harness registry resolves them, marked with whether
// they exist.
func DefaultRoots(cfg Config) []Root {
	var roots []Root
	for _, h := range sessions.DescribeHarnesses(cfg.env()) {
		for _, r := range h.Roots {
			roots = append(roots, Root{Harness: h.Name, Path: r.Path, Source: RootDefault})
		}
	}
	markExisting(roots)
	return roots
}

func markExisting(roots []Root) {
	for i := range roots {
		st, err := os.Stat(roots[i].Path)
		roots[i].Exists = err == nil && st.IsDir()
	}
}

// RootsView is what the settings screen shows about the session folders.
type RootsView struct {
	// Roots are the folders indexed now (see ResolveRoots).
	Roots []Root `json:"roots"`
	// Saved are the folders chosen in the window, with whether they exist.
	Saved []Root `json:"saved"`
	// Defaults are each harness's usual places.
	Defaults []Root `json:"defaults"`
	// FromEnv is set when SPILLSCOPE_ROOTS decides, whatever is saved.
	FromEnv bool `json:"fromEnv"`
}

// Roots returns the session folders: those indexed now, those saved in the
// settings and each harness's defaults.
func (a *App) Roots() (RootsView, error) {
	set, err := a.settings.Load()
	if err != nil {
		return RootsView{}, err
	}
	saved := make([]Root, 0, len(set.Roots))
	for _, p := range set.Roots {
		saved = append(saved, Root{Harness: "any", Path: p, Source: RootFromSettings})
	}
	markExisting(saved)
	return RootsView{Roots: ResolveRoots(a.cfg, set.Roots), Saved: saved, Defaults: a.DefaultRoots(), FromEnv: len(a.cfg.Roots) > 0}, nil
}

// DefaultRoots lists each harness's usual session folders. It is a thin
// call so the harness registry can own the list.
func (a *App) DefaultRoots() []Root { return DefaultRoots(a.cfg) }

// cleanRoot makes a typed or chosen folder absolute (a leading ~ is the
// home folder) and checks that it is a folder.
func (a *App) cleanRoot(path string) (string, error) {
	// A relative folder would be read against the window's working
	// directory, which means nothing to the user: only absolute paths and
	// ~ are taken, spelt as every root is (sessions.NormalizeRoot).
	p := strings.TrimSpace(path)
	if p != "~" && !strings.HasPrefix(p, "~/") && !filepath.IsAbs(p) {
		return "", coded("root-not-absolute", "path", path)
	}
	p, err := sessions.NormalizeRoot(p, a.cfg.env())
	if err != nil {
		return "", coded("root-not-absolute", "path", path)
	}
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return "", coded("root-not-folder", "path", p)
	}
	return p, nil
}

// AddRoot saves a session folder to index (a folder that is already saved
// is kept once).
func (a *App) AddRoot(path string) (Settings, error) {
	p, err := a.cleanRoot(path)
	if err != nil {
		return Settings{}, err
	}
	return a.settings.Update(func(s *Settings) {
		if !slices.Contains(s.Roots, p) {
			s.Roots = append(s.Roots, p)
		}
	})
}

// RemoveRoot forgets a saved session folder. What was indexed from it stays
// in the index until it is rebuilt; nothing is deleted on disk.
func (a *App) RemoveRoot(path string) (Settings, error) {
	return a.settings.Update(func(s *Settings) {
		s.Roots = slices.DeleteFunc(s.Roots, func(r string) bool { return r == path })
	})
}

// ChooseRoot opens the folder dialog and saves the folder picked; a
// cancelled dialog changes nothing and returns an empty path.
func (a *App) ChooseRoot(title string) (string, error) {
	p, err := a.chooseDir(a.ctx, title)
	if err != nil {
		return "", coded("dialog-failed").because(err)
	}
	if p == "" {
		return "", nil
	}
	if _, err := a.AddRoot(p); err != nil {
		return "", err
	}
	return p, nil
}

// SetDefaults saves what a re-run starts with.
func (a *App) SetDefaults(d Defaults) (Settings, error) {
	if d.Budget < 0 {
		return Settings{}, coded("budget-invalid").because(fmt.Errorf("app: default budget %d is negative", d.Budget))
	}
	tools := make([]string, 0, len(d.ReadTools))
	for _, t := range d.ReadTools {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(tools, t) {
			tools = append(tools, t)
		}
	}
	d.ReadTools = tools
	return a.settings.Update(func(s *Settings) { s.Defaults = d })
}

// SetPlace remembers where the window is, so it opens there next time.
func (a *App) SetPlace(p Place) (Settings, error) {
	defer startCall("SetPlace").done()
	return a.settings.Update(func(s *Settings) { s.Last = p })
}
