package app

import (
	"path/filepath"
	"sync"

	"spillscope/sessions"
)

// Store opens the session index once, on first use, and shares it between
// the services, so the window starts without waiting on the database.
type Store struct {
	cfg  Config
	once sync.Once
	db   *sessions.DB
	err  error
}

// NewStore prepares (but does not open) the index in cfg.DataDir.
func NewStore(cfg Config) *Store { return &Store{cfg: cfg} }

// DBPath is where the index lives.
func (s *Store) DBPath() string {
	if s.cfg.DBPath != "" {
		return s.cfg.DBPath
	}
	return filepath.Join(s.cfg.DataDir, "index.db")
}

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

// Roots are the folders to index: configured ones, or the usual places that exist.
func (s *Store) Roots() []string {
	var out []string
	for _, r := range ResolveRoots(s.cfg) {
		if r.Exists {
			out = append(out, r.Path)
		}
	}
	return out
}
