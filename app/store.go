package app

import (
	"path/filepath"
	"sync"

	"spillscope/sessions"
)

// Store opens the session index once, on first use, and shares it between
// the services, so the window starts without waiting on the database.
type Store struct {
	cfg      Config
	settings *SettingsStore
	once     sync.Once
	db       *sessions.DB
	err      error
	// results are the last results read back, shared by the services.
	results *resultCache
}

// NewStore prepares (but does not open) the index in cfg.DataDir; the
// session folders saved in settings (nil: none) are indexed when
// SPILLSCOPE_ROOTS does not name others.
func NewStore(cfg Config, settings *SettingsStore) *Store {
	return &Store{cfg: cfg, settings: settings, results: newResultCache(4, 256<<20)}
}

// NewStoreAt is NewStore over the index at dbPath (the CLI's --db); its
// attachment store is beside it, as the index keeps it.
func NewStoreAt(cfg Config, settings *SettingsStore, dbPath string) *Store {
	cfg.DBPath = dbPath
	return NewStore(cfg, settings)
}

// DBPath is where the index lives.
func (s *Store) DBPath() string {
	if s.cfg.DBPath != "" {
		return s.cfg.DBPath
	}
	return filepath.Join(s.cfg.DataDir, "index.db")
}

// DataDir is the folder of the index and its attachment store.
func (s *Store) DataDir() string { return filepath.Dir(s.DBPath()) }

// DB opens the index if needed.
func (s *Store) DB() (*sessions.DB, error) {
	s.once.Do(func() {
		s.db, s.err = sessions.Open(s.DBPath())
		if s.err == nil {
			s.db.SetEnv(s.cfg.env())
		}
	})
	return s.db, s.err
}

// Close closes the index if it was opened.
func (s *Store) Close() error {
	if s.db != nil {
		return s.db.Close()
	}
	return nil
}

// Roots are the folders to index that exist (see ResolveRoots).
func (s *Store) Roots() []string {
	var saved []string
	if s.settings != nil {
		set, _ := s.settings.Load() // unreadable settings: the defaults
		saved = set.Roots
	}
	var out []string
	for _, r := range ResolveRoots(s.cfg, saved) {
		if r.Exists {
			out = append(out, r.Path)
		}
	}
	return out
}

// ReadTools are the read-tool names saved in settings; nil means the
// core's own list.
func (s *Store) ReadTools() []string {
	if s.settings == nil {
		return nil
	}
	set, err := s.settings.Load()
	if err != nil || len(set.Defaults.ReadTools) == 0 {
		return nil
	}
	return set.Defaults.ReadTools
}
