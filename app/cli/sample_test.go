package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/sessions/samplegen"
)

func runSampleCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}, append([]string{"sample"}, args...))
	return code, stdout.String(), stderr.String()
}

// folderTotals counts the files and bytes under dir.
func folderTotals(t *testing.T, dir string) (files int, size int64) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files++
		size += info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, size
}

// zstdSize is the size on disk of the zstd files under dir.
func zstdSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".zstd") {
			return err
		}
		st, err := d.Info()
		if err == nil {
			n += st.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func decodeManifest(t *testing.T, stdout string) samplegen.Manifest {
	t.Helper()
	if n := strings.Count(strings.TrimSpace(stdout), "\n"); n != 0 {
		t.Fatalf("stdout holds %d lines, want one JSON object", n+1)
	}
	var m samplegen.Manifest
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("stdout is not a manifest: %v\n%.300s", err, stdout)
	}
	return m
}

func TestSampleWritesCorpusAndPrintsManifest(t *testing.T) {
	base := t.TempDir()
	manifests := map[string]string{}
	for i, tc := range []struct {
		name     string
		args     []string
		sessions int
	}{
		{"seed 5", []string{"--seed", "5"}, 14},
		{"seed 5 again", []string{"--seed", "5"}, 14},
		{"seed and scale", []string{"--seed", "42", "--scale", "2", "--screenshot-bytes", "8KiB"}, 28},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Folder names of one length: notices embed absolute paths, so
			// the byte total depends on the folder's name length.
			dir := filepath.Join(base, fmt.Sprintf("out%d", i))
			code, stdout, stderr := runSampleCmd(t, append([]string{"--out", dir}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			m := decodeManifest(t, stdout)
			if m.Sessions != tc.sessions {
				t.Errorf("sessions = %d, want %d", m.Sessions, tc.sessions)
			}
			files, size := folderTotals(t, dir)
			if files != m.AllFiles || size != m.Bytes {
				t.Errorf("folder holds %d files, %d bytes; manifest says %d, %d", files, size, m.AllFiles, m.Bytes)
			}
			for _, h := range []string{samplegen.HarnessClaude, samplegen.HarnessCodex, samplegen.HarnessGemini, samplegen.HarnessSpillscope,
				samplegen.HarnessDsh, samplegen.HarnessOpenCode, samplegen.HarnessCopilot, samplegen.HarnessGoose} {
				if m.PerHarness[h].ToolResults == 0 {
					t.Errorf("manifest has no tool results for %s", h)
				}
			}
			// The same seed gives the same manifest (usage paths name the
			// folder, and dsh's zstd frames compress the paths they name,
			// so their size follows the folder's name).
			m.SessionUsage = nil
			m.Bytes -= zstdSize(t, dir)
			b, _ := json.Marshal(m)
			key := strings.Join(tc.args, " ")
			if prev, ok := manifests[key]; ok && prev != string(b) {
				t.Errorf("same flags, different manifests:\n%s\n%s", prev, b)
			}
			manifests[key] = string(b)
		})
	}
}

func TestSampleRefusesNonEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(mine, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--out", dir},
		{"--out", dir, "--bench-bytes", "1MB"},
	} {
		t.Run(strings.Join(args[2:], " "), func(t *testing.T) {
			code, stdout, stderr := runSampleCmd(t, args...)
			if code != exitFail {
				t.Errorf("exit %d, want %d", code, exitFail)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, "already holds files") || !strings.Contains(stderr, dir) {
				t.Errorf("stderr %q does not name the folder and the reason", stderr)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("folder holds %d entries after refusal, want 1", len(entries))
			}
			if b, _ := os.ReadFile(mine); string(b) != "user data" {
				t.Errorf("user file changed to %q", b)
			}
		})
	}
}

func TestSampleUsageErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no out", nil, "--out"},
		{"zero scale", []string{"--out", dir, "--scale", "0"}, "--scale"},
		{"scale not a number", []string{"--out", dir, "--scale", "many"}, "scale"},
		{"bad screenshot size", []string{"--out", dir, "--screenshot-bytes", "huge"}, "--screenshot-bytes"},
		{"bad bench size", []string{"--out", dir, "--bench-bytes", "1.5GB"}, "--bench-bytes"},
		{"replicate without bench", []string{"--out", dir, "--replicate", "."}, "--replicate needs --bench-bytes"},
		{"replicate missing", []string{"--out", dir, "--bench-bytes", "1MB", "--replicate", filepath.Join(dir, "nope")}, "--replicate"},
		{"scale with bench", []string{"--out", dir, "--bench-bytes", "1MB", "--scale", "3"}, "--scale"},
		{"stray argument", []string{"--out", dir, "extra"}, "unexpected argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runSampleCmd(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.want)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("%s was created by a refused command", dir)
			}
		})
	}
}

func TestSampleHelp(t *testing.T) {
	code, stdout, _ := runSampleCmd(t, "-h")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"usage: spillscope sample", "--out", "--seed", "--bench-bytes", "--replicate"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestSampleBenchCorpus(t *testing.T) {
	real := filepath.Join("..", "..", "..", "shared", "fixtures", "real", "claude", "projects")
	if _, err := os.Stat(real); err != nil {
		t.Skipf("real fixtures not found at %s: %v", real, err)
	}
	dir := filepath.Join(t.TempDir(), "bench")
	var stdout, stderr bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, StderrIsTerminal: true}
	code := Run(env, []string{"sample", "--out", dir, "--bench-bytes", "6MB", "--replicate", real, "--screenshot-bytes", "16KiB"})
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "MB/s") {
		t.Errorf("no progress on a terminal's stderr: %q", stderr.String())
	}
	m := decodeManifest(t, stdout.String())
	if m.Bytes < 6e6 {
		t.Errorf("corpus is %d bytes, want at least 6MB", m.Bytes)
	}
	if m.Replicated < 1 {
		t.Errorf("replicated %d copies, want at least 1", m.Replicated)
	}
	files, size := folderTotals(t, dir)
	if files != m.AllFiles || size != m.Bytes {
		t.Errorf("folder holds %d files, %d bytes; manifest says %d, %d", files, size, m.AllFiles, m.Bytes)
	}
}

func TestSampleHostile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hostile")
	code, stdout, stderr := runSampleCmd(t, "--out", dir, "--hostile", "--sessions", "12", "--huge-line-bytes", "256KB", "--sparse-bytes", "8MB", "--images", "4")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m samplegen.HostileManifest
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("stdout is not a hostile manifest: %v", err)
	}
	if m.Sessions != 14 || m.Images != 4 || m.HugeLines != 2 || m.SparseBytes != 8_000_000 || len(m.Secrets) < 100 {
		t.Errorf("manifest: sessions %d images %d huge %d sparse %d secrets %d", m.Sessions, m.Images, m.HugeLines, m.SparseBytes, len(m.Secrets))
	}
	// 0 leaves the huge parts out.
	code, stdout, _ = runSampleCmd(t, "--out", filepath.Join(t.TempDir(), "h2"), "--hostile", "--huge-line-bytes", "0", "--sparse-bytes", "0")
	if code != exitOK || !strings.Contains(stdout, `"hugeLines":0`) || !strings.Contains(stdout, `"sparseBytes":0`) {
		t.Errorf("exit %d: %.200s", code, stdout)
	}
	for _, args := range [][]string{
		{"--sessions", "5"},
		{"--hostile", "--scale", "2"},
		{"--hostile", "--sessions", "-1"},
		{"--hostile", "--huge-line-bytes", "lots"},
	} {
		code, _, stderr := runSampleCmd(t, append([]string{"--out", filepath.Join(t.TempDir(), "x")}, args...)...)
		if code != exitUsage || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
