package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Settings are the user's choices that outlive a window.
type Settings struct {
	Language string `json:"language"`
}

// DefaultSettings are used where nothing is saved.
func DefaultSettings() Settings { return Settings{Language: "en"} }

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

// Load reads the settings; a missing file gives the defaults.
func (s *SettingsStore) Load() (Settings, error) {
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
		return set, fmt.Errorf("app: read settings: %w", err)
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return DefaultSettings(), fmt.Errorf("app: settings file %s: %w", s.path, err)
	}
	if set.Language != "en" && set.Language != "zh" {
		set.Language = "en"
	}
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
	data, err := json.MarshalIndent(set, "", "  ")
	if err != nil {
		return set, err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return set, fmt.Errorf("app: save settings: %w", err)
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return set, fmt.Errorf("app: save settings: %w", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return set, fmt.Errorf("app: save settings: %w", err)
	}
	return set, nil
}
