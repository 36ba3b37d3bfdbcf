package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spillscope/internal/fixtures"
	"spillscope/retention"
	"spillscope/sessions"
	"spillscope/sessions/samplegen"
)

// realFixtures is ../shared/fixtures/real from the repo root, or a skip.
var realFixtures = fixtures.RealRoot

func envFor(t *testing.T, vars map[string]string) (Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	return Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }}, &out, &errb
}

func runIndexJSON(t *testing.T, env Env, out *bytes.Buffer, args ...string) sessions.Summary {
	t.Helper()
	out.Reset()
	if code := Run(env, append([]string{"index"}, args...)); code != exitOK {
		t.Fatalf("index %v exited %d: %s", args, code, env.Stderr.(*bytes.Buffer).String())
	}
	var s sessions.Summary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("summary %q: %v", out.String(), err)
	}
	return s
}

func TestIndexCommand(t *testing.T) {
	root := realFixtures(t)
	db := filepath.Join(t.TempDir(), "index.db")
	env, out, errb := envFor(t, nil)
	first := runIndexJSON(t, env, out, "--db", db, root)
	census := fixtures.CountReal(t, root)
	want := census.Total()
	if first.Files != want.Files || first.Sessions != want.Sessions || first.ToolResults != want.ToolResults ||
		first.ToolResultImages != want.Images || first.SpillNotices != want.SpillNotices || first.Diagnostics != want.Diagnostics ||
		first.ChangedFiles != first.Files || want.ToolResults == 0 {
		t.Errorf("first pass %+v, fixtures hold %+v", first, want)
	}
	// Per harness, every registered one is listed, and its counts are the
	// fixtures' own; a harness the counter does not know must not have read
	// anything.
	for _, h := range sessions.Harnesses() {
		g, ok := first.PerHarness[h.Name()]
		if !ok {
			t.Errorf("perHarness lacks %s", h.Name())
			continue
		}
		w := census.Harness[h.Name()]
		wt := sessions.HarnessTotals{Files: w.Files, Sessions: w.Sessions, ToolResults: w.ToolResults, ToolResultImages: w.Images,
			SpillNotices: w.SpillNotices, Diagnostics: w.Diagnostics}
		if g != wt {
			t.Errorf("%s: index %+v, fixtures %+v", h.Name(), g, wt)
		}
	}
	if errb.Len() != 0 {
		t.Errorf("stderr written without a terminal: %q", errb.String())
	}
	var raw map[string]any
	json.Unmarshal(out.Bytes(), &raw)
	for _, k := range []string{"files", "bytes", "sessions", "toolResults", "toolResultImages", "spillNotices", "diagnostics", "changedFiles", "seconds", "perHarness"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("summary lacks %q: %s", k, out.String())
		}
	}
	second := runIndexJSON(t, env, out, "--db", db, root)
	if second.ChangedFiles != 0 {
		t.Errorf("unchanged pass changed %d files", second.ChangedFiles)
	}
	first.ChangedFiles, first.Seconds, second.Seconds = 0, 0, 0
	if !reflect.DeepEqual(first, second) {
		t.Errorf("totals differ: %+v vs %+v", first, second)
	}
}

func TestIndexCommandErrors(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"db inside root", []string{"--db", filepath.Join(root, "sub", "index.db"), root}, exitUsage, "inside an indexed session folder"},
		{"unknown flag", []string{"--nope"}, exitUsage, "flag provided but not defined"},
		{"missing root", []string{"--db", filepath.Join(t.TempDir(), "i.db"), filepath.Join(root, "absent")}, exitFail, "absent"},
		{"help", []string{"-h"}, exitOK, "usage: spillscope index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _, errb := envFor(t, nil)
			if code := Run(env, append([]string{"index"}, tt.args...)); code != tt.wantCode {
				t.Errorf("exit %d, want %d (%s)", code, tt.wantCode, errb.String())
			}
			if !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.wantErr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "sub")); err == nil {
		t.Error("a refused --db still created files under the root")
	}
}

func TestIndexCommandDefaults(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "xdg")
	if _, err := samplegen.Generate(filepath.Join(home, "gen"), samplegen.Options{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	// The harness folders where each tool writes by default (OpenCode's and
	// goose's data folders under XDG_DATA_HOME, beside Spillscope's own).
	for from, to := range map[string]string{"gen/claude/projects": ".claude/projects", "gen/codex/sessions": ".codex/sessions", "gen/gemini/tmp": ".gemini/tmp",
		"gen/copilot/session-state": ".copilot/session-state", "gen/opencode": "xdg/opencode", "gen/goose": "xdg/goose"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, to)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(home, from), filepath.Join(home, to)); err != nil {
			t.Fatal(err)
		}
	}
	env, out, errb := envFor(t, map[string]string{"HOME": home, "XDG_DATA_HOME": data})
	env.StderrIsTerminal = true
	s := runIndexJSON(t, env, out)
	if s.Files == 0 || s.ToolResults == 0 {
		t.Errorf("default roots found nothing: %+v", s)
	}
	for _, h := range []string{sessions.HarnessClaude, sessions.HarnessCodex, sessions.HarnessGemini, sessions.HarnessOpenCode, sessions.HarnessCopilot, sessions.HarnessGoose} {
		if s.PerHarness[h].Sessions == 0 {
			t.Errorf("%s: nothing found in its default roots: %+v", h, s.PerHarness)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "spillscope", "index.db")); err != nil {
		t.Errorf("database not in XDG_DATA_HOME: %v", err)
	}
	if !strings.Contains(errb.String(), "files") {
		t.Errorf("no progress bar on a terminal: %q", errb.String())
	}
}

func TestSweepCommand(t *testing.T) {
	corpus := filepath.Join(t.TempDir(), "corpus")
	if _, err := samplegen.Generate(corpus, samplegen.Options{Seed: 5}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "index.db")
	env, out, errb := envFor(t, nil)
	runIndexJSON(t, env, out, "--db", db, "--structure-only", corpus)
	budgets := []int64{0, 200, 2000, 50000}
	out.Reset()
	if code := Run(env, []string{"sweep", "--db", db, "--budgets", "0,200,2000,50000"}); code != exitOK {
		t.Fatalf("sweep exited %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(budgets) {
		t.Fatalf("%d lines, want one per budget: %s", len(lines), out.String())
	}
	// Independently: Retain at each budget on every result read back, its
	// notice naming the file a re-run names (as the window's result view).
	d, err := sessions.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Results(t.Context(), sessions.ResultFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range budgets {
		var got sessions.SweepRow
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatal(err)
		}
		want := sessions.SweepRow{Budget: b}
		for _, r := range rows {
			_, res, err := d.LoadResult(t.Context(), r.ID)
			if err != nil {
				t.Fatal(err)
			}
			bb := b
			o, err := retention.Retain(res, retention.Options{Budget: &bb, Route: r.Route, ToolName: r.ToolName, SpillPath: sessions.ReviewLocator(r)})
			if err != nil {
				t.Fatal(err)
			}
			if sessions.UseCountedTotal(&o, r) {
				want.InlineTokensLowerBound = true
			}
			want.Results++
			switch o.Status {
			case retention.StatusReplaced:
				want.Replaced++
			case retention.StatusNoticeOnly:
				want.Replaced++
				want.NoticeOnly++
			case retention.StatusPreserved:
				want.Preserved++
			}
			want.InlineTokens += int64(o.Tokens.Total)
			want.OmittedImages += o.OmittedImages
			want.OmittedBytes += o.OmittedBytes
		}
		t.Run(fmt.Sprintf("budget %d", b), func(t *testing.T) {
			if got != want {
				t.Errorf("sweep %+v, single runs %+v", got, want)
			}
		})
	}
	if want := len(rows); want == 0 {
		t.Fatal("sample corpus has no results")
	}
}

func TestSweepCommandErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "index.db")
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no budgets", []string{"--db", db}, "--budgets"},
		{"fractional", []string{"--db", db, "--budgets", "100,1.5"}, "--budgets"},
		{"negative", []string{"--db", db, "--budgets", "-1"}, "--budgets"},
		{"too large", []string{"--db", db, "--budgets", "9007199254740993"}, "--budgets"},
		{"not a number", []string{"--db", db, "--budgets", "ten"}, "--budgets"},
		{"unknown route", []string{"--db", db, "--budgets", "10", "--route", "nowhere"}, "--route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _, errb := envFor(t, nil)
			if code := Run(env, append([]string{"sweep"}, tt.args...)); code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.wantErr)
			}
		})
	}
}

// index and sweep open the window's database: the one sessions.DataDir
// resolves, SPILLSCOPE_DATA_DIR first.
func TestDefaultDBPath(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{"data dir override", map[string]string{"HOME": root, "XDG_DATA_HOME": filepath.Join(root, "xdg"), "SPILLSCOPE_DATA_DIR": filepath.Join(root, "data")}, filepath.Join(root, "data", "index.db"), ""},
		{"xdg", map[string]string{"HOME": root, "XDG_DATA_HOME": filepath.Join(root, "xdg")}, filepath.Join(root, "xdg", "spillscope", "index.db"), ""},
		{"home", map[string]string{"HOME": root}, filepath.Join(root, ".local", "share", "spillscope", "index.db"), ""},
		{"relative data dir", map[string]string{"HOME": root, "SPILLSCOPE_DATA_DIR": "data"}, "", "SPILLSCOPE_DATA_DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _, errb := envFor(t, tt.env)
			got, err := dbPathOf(env, "")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an error naming %s", got, err, tt.wantErr)
				}
				// The command fails before creating anything.
				if code := Run(env, []string{"sweep", "--budgets", "100"}); code != exitFail || !strings.Contains(errb.String(), tt.wantErr) {
					t.Errorf("sweep: exit %d, stderr %q; want 1 naming %s", code, errb.String(), tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
			if flag, err := dbPathOf(env, "x.db"); err != nil || flag != "x.db" {
				t.Errorf("--db x.db gave %q, %v", flag, err)
			}
		})
	}
}

// TestIndexCommandFollowsTheFileRule: the CLI's index resolves spill files
// through the file rule: a forged notice is recorded as outside, and
// nothing of the file it names is stored.
func TestIndexCommandFollowsTheFileRule(t *testing.T) {
	base := t.TempDir()
	root, secret := filepath.Join(base, "root"), filepath.Join(base, "secret.txt")
	if err := os.WriteFile(secret, []byte("CLI-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(root, "-w", "s1", "tool-results", "toolu_ok.txt")
	if err := os.MkdirAll(filepath.Dir(own), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("full"), 0o644); err != nil {
		t.Fatal(err)
	}
	line := func(call, path string) string {
		b, _ := json.Marshal(map[string]any{"type": "user", "sessionId": "s1", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"tool_use_id": call, "type": "tool_result", "content": "<persisted-output>\nOutput too large (9KB). Full output saved to: " + path + "\n</persisted-output>"}}}})
		return string(b) + "\n"
	}
	if err := os.WriteFile(filepath.Join(root, "-w", "s1.jsonl"), []byte(line("toolu_ok", own)+line("forged", secret)+line("shadow", "/etc/shadow")), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(base, "data", "index.db")
	env, out, _ := envFor(t, map[string]string{"HOME": base})
	s := runIndexJSON(t, env, out, "--db", db, root+"/")
	if s.SpillNotices != 3 {
		t.Fatalf("%+v", s)
	}
	d, err := sessions.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Results(t.Context(), sessions.ResultFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"toolu_ok": sessions.FileExists, "forged": sessions.FileOutside, "shadow": sessions.FileOutside}
	for _, r := range rows {
		if r.SpillState != want[r.CallID] || (r.SpillResolved != "") != (want[r.CallID] == sessions.FileExists) {
			t.Errorf("%s: state %q resolved %q, want %q", r.CallID, r.SpillState, r.SpillResolved, want[r.CallID])
		}
		if r.Root != root {
			t.Errorf("root %q, want %q (a trailing slash is the same root)", r.Root, root)
		}
	}
	raw, _ := os.ReadFile(db)
	if strings.Contains(string(raw), "CLI-SECRET") {
		t.Error("the index holds the forged notice's file")
	}
}
