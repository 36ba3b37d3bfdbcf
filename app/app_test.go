package app

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spillscope/sessions"
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		wantData  string
		wantConf  string
		wantRoots []string
		wantErr   string // the error must name this
	}{
		{name: "defaults under home", env: map[string]string{"HOME": "/h"}, wantData: "/h/.local/share/spillscope", wantConf: "/h/.config/spillscope"},
		{name: "xdg", env: map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x/d", "XDG_CONFIG_HOME": "/x/c"}, wantData: "/x/d/spillscope", wantConf: "/x/c/spillscope"},
		{name: "overrides win", env: map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x/d", "SPILLSCOPE_DATA_DIR": "/o/d", "SPILLSCOPE_CONFIG_DIR": "/o/c"}, wantData: "/o/d", wantConf: "/o/c"},
		{name: "roots list", env: map[string]string{"HOME": "/h", "SPILLSCOPE_ROOTS": "/a::/b"}, wantData: "/h/.local/share/spillscope", wantConf: "/h/.config/spillscope", wantRoots: []string{"/a", "/b"}},
		// Roots are spelled as the indexer and the CLI spell them.
		{name: "roots normalised", env: map[string]string{"HOME": "/h", "SPILLSCOPE_ROOTS": "~/a/:~:/b/../c/"}, wantData: "/h/.local/share/spillscope", wantConf: "/h/.config/spillscope", wantRoots: []string{"/h/a", "/h", "/c"}},
		// The data folder is sessions.DataDir's, the one the CLI opens.
		{name: "relative xdg data home is ignored", env: map[string]string{"HOME": "/h", "XDG_DATA_HOME": "x/d"}, wantData: "/h/.local/share/spillscope", wantConf: "/h/.config/spillscope"},
		{name: "relative data dir is an error", env: map[string]string{"HOME": "/h", "SPILLSCOPE_DATA_DIR": "o/d"}, wantErr: "SPILLSCOPE_DATA_DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			cfg, err := ConfigFromEnv(getenv)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, sessions.ErrDataDir) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %+v, %v; want an error naming %s", cfg, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.DataDir != tt.wantData || cfg.ConfigDir != tt.wantConf {
				t.Errorf("got data %q config %q, want %q %q", cfg.DataDir, cfg.ConfigDir, tt.wantData, tt.wantConf)
			}
			if cli, err := sessions.DataDir(getenv); err != nil || cli != cfg.DataDir {
				t.Errorf("the CLI would use %q (%v), the window %q", cli, err, cfg.DataDir)
			}
			if len(cfg.Roots) != len(tt.wantRoots) {
				t.Fatalf("got roots %q, want %q", cfg.Roots, tt.wantRoots)
			}
			for i := range cfg.Roots {
				if cfg.Roots[i] != tt.wantRoots[i] {
					t.Errorf("root %d: got %q, want %q", i, cfg.Roots[i], tt.wantRoots[i])
				}
			}
		})
	}
}

func TestResolveRoots(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".codex", "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The defaults are the registry's: every harness's own roots, from the
	// configured home and none of the process's variables.
	cfg := Config{Home: home, Env: sessions.Env{Getenv: func(string) string { return "" }}}
	got := ResolveRoots(cfg, nil)
	var want []Root
	for _, h := range sessions.Harnesses() {
		for _, p := range h.DefaultRoots(sessions.Env{Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}}) {
			want = append(want, Root{Harness: h.Name(), Path: p, Exists: p == filepath.Join(home, ".codex", "sessions"), Source: RootDefault})
		}
	}
	if len(want) < 3 || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for _, r := range got {
		if !strings.HasPrefix(r.Path, home) {
			t.Errorf("%s: default root %s is not under the configured home", r.Harness, r.Path)
		}
	}
	file := filepath.Join(home, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got = ResolveRoots(Config{Home: home, Env: cfg.Env, Roots: []string{file, home}}, nil)
	if got[0].Exists || !got[1].Exists {
		t.Errorf("a file is not a root and a folder is: got %+v", got)
	}
}

func TestSettingsStore(t *testing.T) {
	dir := t.TempDir()
	s := NewSettingsStore(dir)
	got, err := s.Load()
	if err != nil || got.Language != "en" {
		t.Fatalf("fresh load: got %+v, %v; want en", got, err)
	}
	a := New(Config{}, s)
	if _, err := a.SetLanguage("fr"); err == nil {
		t.Error("SetLanguage(fr) succeeded; want an error")
	}
	if _, err := a.SetLanguage("zh"); err != nil {
		t.Fatal(err)
	}
	again, err := NewSettingsStore(dir).Load()
	if err != nil || again.Language != "zh" {
		t.Errorf("after save: got %+v, %v; want zh", again, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSettingsStore(dir).Load(); err == nil {
		t.Error("corrupt settings loaded without an error")
	}
	if got, err := a.SetLanguage("en"); err != nil || got.Language != "en" {
		t.Errorf("saving over a corrupt file: got %+v, %v", got, err)
	}
}
