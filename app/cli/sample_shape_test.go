package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSampleShape(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shape")
	code, stdout, stderr := runSampleCmd(t, "--out", dir, "--sessions", "12", "--results", "50")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := decodeManifest(t, stdout)
	if m.Sessions != 12 || m.ToolResults != 50 {
		t.Errorf("manifest: %d sessions %d results, want 12 and 50", m.Sessions, m.ToolResults)
	}
	if files, _ := folderTotals(t, dir); files != m.AllFiles {
		t.Errorf("%d files on disk, manifest says %d", files, m.AllFiles)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"results without sessions", []string{"--results", "5"}, "at least 1 session"},
		{"fewer results than sessions", []string{"--sessions", "5", "--results", "4"}, "at least as many results"},
		{"with bench bytes", []string{"--sessions", "5", "--results", "5", "--bench-bytes", "1MB"}, "drop --bench-bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runSampleCmd(t, append([]string{"--out", filepath.Join(t.TempDir(), "x")}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want a usage error naming %q", code, stderr, tc.want)
			}
		})
	}
}
