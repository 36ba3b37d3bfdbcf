package samplegen

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestGenerateShape(t *testing.T) {
	for _, tc := range []struct {
		name              string
		sessions, results int
	}{
		{"one each", 1, 1},
		{"uneven spread", 7, 23},
		{"with subagents and notices", 40, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "c")
			m, err := GenerateShape(dir, ShapeOptions{Sessions: tc.sessions, Results: tc.results, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			c := m.PerHarness[HarnessClaude]
			if m.Sessions != tc.sessions || m.ToolResults != tc.results {
				t.Errorf("wrote %d sessions %d results, want %d %d", m.Sessions, m.ToolResults, tc.sessions, tc.results)
			}
			if m.Files != tc.sessions+c.Subagents || m.AllFiles != m.Files {
				t.Errorf("files %d (all %d), want %d transcripts", m.Files, m.AllFiles, tc.sessions+c.Subagents)
			}
			if want := tc.results / shapeNoticeEvery; m.SpillNotices != want || c.SpillFilesMissing != want {
				t.Errorf("notices %d (missing files %d), want %d", m.SpillNotices, c.SpillFilesMissing, want)
			}
			if tc.sessions >= shapeSubagentEvery && c.Subagents == 0 {
				t.Error("no subagent transcript")
			}
			again := filepath.Join(t.TempDir(), "c")
			m2, err := GenerateShape(again, ShapeOptions{Sessions: tc.sessions, Results: tc.results, Seed: 2})
			if err != nil || m2.Bytes != m.Bytes {
				t.Errorf("same seed wrote %d bytes, then %d (%v)", m.Bytes, m2.Bytes, err)
			}
		})
	}
}

func TestGenerateShapeRefuses(t *testing.T) {
	for _, o := range []ShapeOptions{{Sessions: 0, Results: 5}, {Sessions: 5, Results: 4}, {Sessions: -1, Results: 1}} {
		if _, err := GenerateShape(filepath.Join(t.TempDir(), "c"), o); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: %v, want ErrOptions", o, err)
		}
	}
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateShape(full, ShapeOptions{Sessions: 1, Results: 1}); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("a folder with files: %v, want ErrNotEmpty", err)
	}
}
