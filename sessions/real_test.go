package sessions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spillscope/internal/fixtures"
)

func TestIndexRealFixtures(t *testing.T) {
	root := realRoot(t)
	census := fixtures.CountReal(t, root)
	want := census.Total()
	if want.ToolResults == 0 || want.Images == 0 || want.SpillNotices == 0 || len(census.Unread) == 0 {
		t.Fatalf("fixture counts look wrong: %+v", census)
	}
	d := openTemp(t)
	got := index(t, d, root)
	checks := []struct {
		name      string
		got, want int
	}{
		{"files", got.Files, want.Files},
		{"sessions", got.Sessions, want.Sessions},
		{"tool results", got.ToolResults, want.ToolResults},
		{"images in tool results", got.ToolResultImages, want.Images},
		{"spill notices", got.SpillNotices, want.SpillNotices},
		{"diagnostics", got.Diagnostics, want.Diagnostics},
		{"changed files", got.ChangedFiles, want.Files},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %d, want %d", c.got, c.want)
			}
		})
	}
	t.Run("per harness", func(t *testing.T) {
		for name, g := range got.PerHarness {
			w := census.Harness[name]
			wt := HarnessTotals{Files: w.Files, Sessions: w.Sessions, ToolResults: w.ToolResults, ToolResultImages: w.Images,
				SpillNotices: w.SpillNotices, Diagnostics: w.Diagnostics}
			if g != wt {
				t.Errorf("%s: index %+v, fixtures %+v", name, g, wt)
			}
		}
		for name := range census.Harness {
			if _, ok := got.PerHarness[name]; !ok {
				t.Errorf("%s: counted in the fixtures, not in the index", name)
			}
		}
	})
	t.Run("harnesses not read yet are not taken for others", func(t *testing.T) {
		ss, err := d.BrowseSessions(t.Context(), SessionFilter{Limit: 5000})
		if err != nil {
			t.Fatal(err)
		}
		indexed := map[string]bool{}
		for _, s := range ss {
			indexed[s.File] = true
		}
		diags, _ := d.BrowseDiagnostics(t.Context(), 10000)
		for _, dg := range diags {
			indexed[dg.File] = true
		}
		for _, p := range census.Unread {
			if indexed[p] {
				t.Errorf("%s was read although no harness of this build reads it", p)
			}
		}
	})
	t.Run("usage", func(t *testing.T) {
		if want.Output == 0 {
			t.Fatal("fixtures record no usage")
		}
		wu := Usage{Input: want.Input, CacheRead: want.CacheRead, CacheWrite: want.CacheWrite, Output: want.Output, Reasoning: want.Reasoning}
		if u := usageTotals(t, d); u != wu {
			t.Errorf("got %+v, want %+v", u, wu)
		}
	})
	t.Run("second pass changes nothing", func(t *testing.T) {
		again := index(t, d, root)
		got.ChangedFiles, again.ChangedFiles = 0, 0
		got.Seconds, again.Seconds = 0, 0
		if !reflect.DeepEqual(again, got) {
			t.Errorf("second pass %+v, first %+v", again, got)
		}
	})
	t.Run("results read back", func(t *testing.T) {
		rows, err := d.Results(t.Context(), ResultFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			_, res, err := d.LoadResult(t.Context(), r.ID)
			if err != nil {
				t.Fatalf("result %d (%s line %d): %v", r.ID, r.Path, r.Line, err)
			}
			var n int64
			imgs := 0
			for _, b := range res.Content {
				switch b.Type {
				case "text":
					n += int64(len(b.Text))
				case "image":
					imgs++
					if r.Harness == HarnessDsh && b.Path == "" && b.Data == "" {
						// dsh logs no image bytes, and the corpus holds no
						// attachment store: the image is a diagnostic, its
						// path dropped.
						continue
					}
					if b.Path == "" || b.Data != "" {
						t.Errorf("result %d image not replaced by its attachment path", r.ID)
					} else if _, err := os.Stat(b.Path); err != nil {
						t.Errorf("attachment: %v", err)
					}
				}
			}
			if n != r.TextBytes || imgs != r.Images {
				t.Errorf("result %d: read back %d bytes %d images, indexed %d bytes %d images", r.ID, n, imgs, r.TextBytes, r.Images)
			}
		}
	})
	t.Run("persisted-output notices are linked, files missing", func(t *testing.T) {
		rows, _ := d.Results(t.Context(), ResultFilter{})
		found := 0
		for _, r := range rows {
			if r.Spill == nil {
				continue
			}
			found++
			if r.Harness == HarnessDsh {
				// dsh's snapshot tests spill into /tmp/dsh-acp-snap-*/, not a
				// dsh-spill-* root, and their ids were normalised after: the
				// session-<sha12> folder is not the logged session's own.
				want := FileOutside
				if !strings.Contains(r.Spill.Path, "/"+DshSessionFolder(r.SessionID)+"/") {
					want = FileOtherSession
				}
				if r.Spill.Kind != "dsh-bytes" || r.SpillState != want || !strings.HasPrefix(r.Spill.Path, "/tmp/dsh-acp-snap-") {
					t.Errorf("dsh notice %+v: state %q, want %q", r.Spill, r.SpillState, want)
				}
				continue
			}
			// The files are not in the corpus: a session folder copied
			// without tool-results/ (2.1.39), and /tmp (2.1.85).
			if r.Spill.Kind != NoticeClaudePersisted || !(strings.Contains(r.Spill.Path, "/tool-results/toolu_") || strings.HasPrefix(r.Spill.Path, "/tmp/claude-tool-results/")) {
				t.Errorf("notice %+v", r.Spill)
			}
			// A temp folder Claude Code writes is where the file would be:
			// missing. A path on the publisher's machine is outside every
			// folder read here, and the copy beside the transcript is absent.
			want := FileOutside
			if strings.HasPrefix(r.Spill.Path, "/tmp/claude-tool-results/") {
				want = FileMissing
			}
			if r.SpillExists || r.SpillState != want {
				t.Errorf("spill file %s: state %q, want %q", r.Spill.Path, r.SpillState, want)
			}
		}
		if found != want.SpillNotices {
			t.Errorf("found %d notices, want %d", found, want.SpillNotices)
		}
	})
}

// TestRealPerCall: every fixture's model calls, their peak prompt,
// compactions and session facts, against counts made from the raw logs by
// internal/fixtures; subagents typed from their meta files and nested
// under their parent.
func TestRealPerCall(t *testing.T) {
	root := realRoot(t)
	census := fixtures.CountReal(t, root)
	d := openTemp(t)
	index(t, d, root)
	ss, err := d.BrowseSessions(t.Context(), SessionFilter{Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]SessionSummary{}
	for _, s := range ss {
		byFile[s.File] = append(byFile[s.File], s)
	}
	rows, err := d.Results(t.Context(), ResultFilter{})
	if err != nil {
		t.Fatal(err)
	}
	results := map[string][]ResultRow{}
	for _, r := range rows {
		results[r.Path] = append(results[r.Path], r)
	}
	total := census.Total()
	if total.Calls == 0 || total.Compactions == 0 || total.APIErrors == 0 || total.AbortedTurns == 0 || total.Cuts == 0 {
		t.Fatalf("the fixtures' counts look wrong: %+v", total)
	}
	for path, want := range census.File {
		rel := strings.TrimPrefix(path, root)
		t.Run(rel, func(t *testing.T) {
			var calls, compactions, apiErrors, aborted int
			var peak int64
			for _, s := range byFile[path] {
				mc, err := d.ModelCalls(t.Context(), s.ID)
				if err != nil {
					t.Fatal(err)
				}
				for i, c := range mc {
					peak = max(peak, c.Prompt())
					if c.Line < 1 || (i > 0 && c.Line < mc[i-1].Line) {
						t.Errorf("call %d at line %d out of order", i, c.Line)
					}
					// A call with no model of its own carries the session's;
					// "" only where the log names none at all.
					if c.Model == "<synthetic>" || (c.Model == "" && s.Model != "") {
						t.Errorf("call at line %d has model %q", c.Line, c.Model)
					}
				}
				cs, err := d.Compactions(t.Context(), s.ID)
				if err != nil {
					t.Fatal(err)
				}
				evs, err := d.SessionEvents(t.Context(), s.ID)
				if err != nil {
					t.Fatal(err)
				}
				if s.ModelCalls != len(mc) || s.Compactions != len(cs) || s.APIErrors+s.AbortedTurns != len(evs) {
					t.Errorf("row counts %d calls %d compactions %d+%d events, listed %d %d %d", s.ModelCalls, s.Compactions, s.APIErrors, s.AbortedTurns,
						len(mc), len(cs), len(evs))
				}
				calls += len(mc)
				compactions += len(cs)
				apiErrors += s.APIErrors
				aborted += s.AbortedTurns
			}
			var cuts, cutTokens int64
			for _, r := range results[path] {
				if r.Cut != nil {
					cuts++
					if r.Cut.By != HarnessCodex {
						t.Errorf("result %s cut by %q", r.CallID, r.Cut.By)
					}
					cutTokens += max(r.Cut.OriginalTokens, 0)
				}
			}
			got := [7]int64{int64(calls), peak, int64(compactions), int64(apiErrors), int64(aborted), cuts, cutTokens}
			wantC := [7]int64{int64(want.Calls), want.PeakPrompt, int64(want.Compactions), int64(want.APIErrors), int64(want.AbortedTurns),
				int64(want.Cuts), want.CutTokens}
			if got != wantC {
				t.Errorf("calls, peak prompt, compactions, API errors, aborted turns, Codex cuts and their tokens: got %v, want %v", got, wantC)
			}
		})
	}
	t.Run("subagents typed and nested", func(t *testing.T) {
		n := 0
		for _, s := range ss {
			if !strings.Contains(s.File, "/subagents/agent-") {
				// dsh's children are sessions of their own whose header
				// names the parent (origin "subagent"): nested under it,
				// in the parent's folder of the snapshot, not in one of
				// Claude Code's subagents/ folders.
				if s.Harness == HarnessDsh && s.AgentID != "" {
					parent, err := d.SessionByID(t.Context(), s.ParentRowID)
					if s.Kind != TranscriptSubagent || err != nil || parent.SessionID != s.SessionID || parent.AgentID != "" {
						t.Errorf("%s: kind %q parent row %d is %+v (%v)", s.File, s.Kind, s.ParentRowID, parent, err)
					}
					continue
				}
				if s.Kind != "" || s.ParentRowID != 0 {
					t.Errorf("%s: kind %q parent %d", s.File, s.Kind, s.ParentRowID)
				}
				continue
			}
			n++
			wantKind := TranscriptSubagent
			if strings.Contains(s.File, "/agent-acompact-") {
				wantKind = TranscriptCompaction
			}
			var meta struct{ AgentType, Description string }
			if b, err := os.ReadFile(strings.TrimSuffix(s.File, ".jsonl") + ".meta.json"); err == nil {
				if err := json.Unmarshal(b, &meta); err != nil {
					t.Fatal(err)
				}
			}
			if s.Kind != wantKind || s.AgentType != meta.AgentType || s.AgentDescription != meta.Description || s.AgentID == "" {
				t.Errorf("%s: kind %q type %q description %q agent %q, want %q %q %q", s.File, s.Kind, s.AgentType, s.AgentDescription, s.AgentID,
					wantKind, meta.AgentType, meta.Description)
			}
			parent, err := d.SessionByID(t.Context(), s.ParentRowID)
			if err != nil || parent.SessionID != s.SessionID || parent.AgentID != "" || filepath.Dir(parent.File) != filepath.Dir(filepath.Dir(filepath.Dir(s.File))) {
				t.Errorf("%s: parent row %d is %+v (%v)", s.File, s.ParentRowID, parent, err)
			}
		}
		if n == 0 {
			t.Fatal("no subagent transcripts in the fixtures")
		}
	})
}
