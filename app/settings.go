package app

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Settings are the user's choices that outlive a window.
type Settings struct {
	Language string `json:"language"`
	// Roots are the session folders the user chose; empty means each
	// harness's default places (SPILLSCOPE_ROOTS, when set, wins over both).
	Roots []string `json:"roots"`
	// Defaults are what a re-run starts with.
	Defaults Defaults `json:"defaults"`
	// Last is where the user left the window, to open there again.
	Last Place `json:"last"`
}

// DefaultBudget is the budget a re-run starts at until the user picks one.
const DefaultBudget = 12500

// Defaults are the re-run's starting choices.
type Defaults struct {
	// Budget is the starting budget in tokens.
	Budget int64 `json:"budget"`
	// Route is the pricing route where no session names one (pasted
	// results); "" means the core's default.
	Route string `json:"route"`
	// Estimator is the text encoding; "" means the route's own.
	Estimator string `json:"estimator"`
	// ReadTools are the tool names whose results pass through as the
	// host's read tool; empty means the core's list.
	ReadTools []string `json:"readTools"`
}

// Place is where the window was: its screen, the open session and result,
// and the budget of the re-run (Off: retention disabled).
type Place struct {
	Screen    string `json:"screen"`
	SessionID int64  `json:"sessionId"`
	ResultID  int64  `json:"resultId"`
	Budget    int64  `json:"budget"`
	Off       bool   `json:"off"`
}

// DefaultSettings are used where nothing is saved.
func DefaultSettings() Settings {
	return Settings{Language: "en", Roots: []string{}, Defaults: Defaults{Budget: DefaultBudget, ReadTools: []string{}}}
}

// normalise puts back defaults for fields a hand-edited or older file
// leaves out or spoils, so the window never starts from nonsense.
func (s *Settings) normalise() {
	if s.Language != "en" && s.Language != "zh" {
		s.Language = "en"
	}
	if s.Roots == nil {
		s.Roots = []string{}
	}
	if s.Defaults.ReadTools == nil {
		s.Defaults.ReadTools = []string{}
	}
	if s.Defaults.Budget < 0 {
		s.Defaults.Budget = DefaultBudget
	}
	if s.Last.Budget < 0 {
		s.Last.Budget = 0
	}
}

// SettingsStore keeps Settings in one JSON file, written atomically so a
// crash never leaves half a file.
type SettingsStore struct {
	path string
	mu   sync.Mutex
}

// NewSettingsStore stores settings in dir/settings.json.
func NewSettingsStore(dir string) *SettingsStore {
	return &SettingsStore{path: filepath.Join(dir, "settings.json")}
}

// Load reads the settings; a missing file (or no store at all, as in a
// headless caller that keeps none) gives the defaults.
func (s *SettingsStore) Load() (Settings, error) {
	if s == nil {
		return Settings{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load()
}

func (s *SettingsStore) load() (Settings, error) {
	set := DefaultSettings()
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return set, nil
	}
	if err != nil {
		return set, coded("settings-unreadable", "path", s.path).because(err)
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return DefaultSettings(), coded("settings-unreadable", "path", s.path).because(err)
	}
	set.normalise()
	return set, nil
}

// Update applies change to the saved settings and saves them.
func (s *SettingsStore) Update(change func(*Settings)) (Settings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, err := s.load()
	if err != nil {
		// A corrupt file is replaced rather than blocking the user's choice.
		set = DefaultSettings()
	}
	change(&set)
	set.normalise()
	data, err := json.MarshalIndent(set, "", "  ")
	if err != nil {
		return set, err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return set, coded("settings-unsaved", "path", s.path).because(err)
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return set, coded("settings-unsaved", "path", s.path).because(err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return set, coded("settings-unsaved", "path", s.path).because(err)
	}
	return set, nil
}
