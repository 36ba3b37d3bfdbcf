package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"spillscope/retention"
)

func TestSettingsRoots(t *testing.T) {
	home := t.TempDir()
	a := New(Config{Home: home}, NewSettingsStore(t.TempDir()))
	mine := filepath.Join(home, "logs", "agents")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := a.Roots()
	if err != nil || len(v.Saved) != 0 || len(v.Defaults) < 3 || !slices.EqualFunc(v.Roots, v.Defaults, func(x, y Root) bool { return x == y }) {
		t.Fatalf("fresh: %+v (%v); want the defaults indexed", v, err)
	}
	for _, tc := range []struct {
		name, path, code string
	}{
		{"relative", "logs/agents", "root-not-absolute"},
		{"missing", filepath.Join(home, "nope"), "root-not-folder"},
		{"a file", filepath.Join(home, "f"), "root-not-folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.WriteFile(filepath.Join(home, "f"), nil, 0o644)
			if _, err := a.AddRoot(tc.path); AsError(err).Code != tc.code {
				t.Errorf("AddRoot(%q): %v, want code %s", tc.path, err, tc.code)
			}
		})
	}
	for _, p := range []string{"~/logs/agents/", mine, mine + "/."} {
		if _, err := a.AddRoot(p); err != nil {
			t.Fatalf("AddRoot(%q): %v", p, err)
		}
	}
	v, _ = a.Roots()
	if len(v.Saved) != 1 || v.Saved[0].Path != mine || !v.Saved[0].Exists || len(v.Roots) != 1 || v.Roots[0].Source != RootFromSettings {
		t.Fatalf("after adding one folder three ways: %+v", v)
	}
	store := NewStore(Config{Home: home}, a.settings)
	if got := store.Roots(); !slices.Equal(got, []string{mine}) {
		t.Errorf("the index reads %v, want the saved folder", got)
	}
	// SPILLSCOPE_ROOTS wins over what is saved.
	env := New(Config{Home: home, Roots: []string{home}}, a.settings)
	if v, _ := env.Roots(); !v.FromEnv || v.Roots[0].Path != home || v.Roots[0].Source != RootFromEnv || len(v.Saved) != 1 {
		t.Errorf("with SPILLSCOPE_ROOTS: %+v", v)
	}
	// The dialog: a pick is saved, a cancel changes nothing, a failure is coded.
	other := t.TempDir()
	a.chooseDir = func(context.Context, string) (string, error) { return other, nil }
	if p, err := a.ChooseRoot("Add"); err != nil || p != other {
		t.Errorf("ChooseRoot: %q %v", p, err)
	}
	a.chooseDir = func(context.Context, string) (string, error) { return "", nil }
	if p, err := a.ChooseRoot("Add"); err != nil || p != "" {
		t.Errorf("cancelled ChooseRoot: %q %v", p, err)
	}
	a.chooseDir = func(context.Context, string) (string, error) { return "", errors.New("no display") }
	if _, err := a.ChooseRoot("Add"); AsError(err).Code != "dialog-failed" {
		t.Errorf("failed dialog: %v", err)
	}
	if set, err := a.RemoveRoot(mine); err != nil || !slices.Equal(set.Roots, []string{other}) {
		t.Errorf("RemoveRoot: %+v %v", set.Roots, err)
	}
}

func TestSettingsDefaultsAndPlaceSurviveRestarts(t *testing.T) {
	dir := t.TempDir()
	a := New(Config{}, NewSettingsStore(dir))
	if _, err := a.SetDefaults(Defaults{Budget: -1}); AsError(err).Code != "budget-invalid" {
		t.Errorf("negative budget: %v", err)
	}
	if _, err := a.SetDefaults(Defaults{Budget: 4000, Route: "gemini", Estimator: "cl100k_base", ReadTools: []string{" view ", "", "view", "cat"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetPlace(Place{Screen: "sessions", SessionID: 4, ResultID: 9, Budget: 1500}); err != nil {
		t.Fatal(err)
	}
	got, err := New(Config{}, NewSettingsStore(dir)).GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{Language: "en", Roots: []string{},
		Defaults: Defaults{Budget: 4000, Route: "gemini", Estimator: "cl100k_base", ReadTools: []string{"view", "cat"}},
		Last:     Place{Screen: "sessions", SessionID: 4, ResultID: 9, Budget: 1500}}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("after a restart:\n got %s\nwant %s", gj, wj)
	}
	// A file from an older version (language only) gets the defaults.
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"language":"zh","defaults":{"budget":-5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := NewSettingsStore(dir).Load()
	if err != nil || old.Language != "zh" || old.Defaults.Budget != DefaultBudget || old.Roots == nil {
		t.Errorf("old file: %+v %v", old, err)
	}
}

// The read-tool names saved in settings decide a re-run's pass-through,
// in a single re-run and in a sweep alike.
func TestSettingsReadToolsReachRetain(t *testing.T) {
	set := NewSettingsStore(t.TempDir())
	r := NewRetention(NewStore(Config{DataDir: t.TempDir()}, set))
	js := pastedResult(t)
	run := func() string {
		p, err := r.Retain(RetainRequest{JSON: js, Budget: budget(500), ToolName: "view"})
		if err != nil {
			t.Fatal(err)
		}
		return p.Status
	}
	if s := run(); s == retention.StatusPassThrough {
		t.Fatalf("%q passed through before it was named a read tool", "view")
	}
	if _, err := New(Config{}, set).SetDefaults(Defaults{Budget: 500, ReadTools: []string{"view"}}); err != nil {
		t.Fatal(err)
	}
	if s := run(); s != retention.StatusPassThrough {
		t.Errorf("status %q, want %q once view is a read tool", s, retention.StatusPassThrough)
	}
}
