package sessions

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// makeCorpus writes n Claude Code transcripts with text and image results
// and split usage lines.
func makeCorpus(t testing.TB, root string, n, resultsPerFile, textBytes int) {
	t.Helper()
	img := pngBase64(t)
	text := strings.Repeat("lorem ipsum dolor sit amet https://example.com/x?X-Amz-Signature=abc ", textBytes/50+1)[:textBytes]
	for i := range n {
		sid := fmt.Sprintf("sess-%04d", i)
		var sb strings.Builder
		for j := range resultsPerFile {
			tid := fmt.Sprintf("toolu_%04d_%03d", i, j)
			sb.WriteString(cAssistant(sid, fmt.Sprintf("msg_%d_%d", i, j), "req", tid, "Bash", 1))
			sb.WriteString(cAssistant(sid, fmt.Sprintf("msg_%d_%d", i, j), "req", tid, "Bash", 5+j))
			if j%5 == 0 {
				sb.WriteString(cResult(sid, tid, []any{map[string]any{"type": "text", "text": text},
					map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": img}}}))
			} else {
				sb.WriteString(cResult(sid, tid, text))
			}
			sb.WriteString(cProgressCopy(sid, tid))
		}
		writeFile(t, filepath.Join(root, "projects", fmt.Sprintf("-p%d", i%7), sid+".jsonl"), sb.String())
	}
}

const killEnv = "SPILLSCOPE_KILL_HELPER"

// TestKillHelper is the subprocess of TestKillDuringIndex: it indexes and
// enriches, printing a line per step so the parent knows when to kill it.
func TestKillHelper(t *testing.T) {
	spec := os.Getenv(killEnv)
	if spec == "" {
		t.Skip("subprocess of TestKillDuringIndex")
	}
	dbPath, root, _ := strings.Cut(spec, "|")
	d, err := Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewWriter(os.Stdout)
	report := func(p Progress) {
		fmt.Fprintf(out, "%s %d %d\n", p.Phase, p.Files, p.Items)
		out.Flush()
	}
	if _, err := d.Index(context.Background(), []string{root}, IndexOptions{Progress: report}); err != nil {
		t.Fatal(err)
	}
	if err := d.Enrich(context.Background(), EnrichOptions{Progress: report}); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(out, "done")
	out.Flush()
}

func TestKillDuringIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subprocesses")
	}
	root := filepath.Join(t.TempDir(), "corpus")
	makeCorpus(t, root, 120, 20, 600)

	clean := openTemp(t)
	want := index(t, clean, root)
	if err := clean.Enrich(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	wantUsage := usageTotals(t, clean)
	wantTokens := tokenSum(t, clean)

	for _, tc := range []struct {
		name  string
		phase string
		after int // progress lines of that phase before the kill
	}{
		{"early in structure", PhaseStructure, 2},
		{"late in structure", PhaseStructure, 90},
		{"during token phase", PhaseTokens, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbPath := filepath.Join(t.TempDir(), "index.db")
			cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), killEnv+"="+dbPath+"|"+root)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			seen, killed := 0, false
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), tc.phase+" ") {
					seen++
				}
				if seen >= tc.after {
					cmd.Process.Signal(syscall.SIGKILL)
					killed = true
					break
				}
			}
			go func() {
				for sc.Scan() {
				}
			}()
			cmd.Wait()
			if !killed {
				t.Fatalf("helper finished before the kill point (%d %s lines)", seen, tc.phase)
			}
			time.Sleep(10 * time.Millisecond)
			d, err := Open(dbPath)
			if err != nil {
				t.Fatalf("database does not open after kill -9: %v", err)
			}
			defer d.Close()
			got := index(t, d, root)
			if err := d.Enrich(t.Context(), EnrichOptions{}); err != nil {
				t.Fatal(err)
			}
			got.ChangedFiles, got.Seconds = 0, 0
			w := want
			w.ChangedFiles, w.Seconds = 0, 0
			if !reflect.DeepEqual(got, w) {
				t.Errorf("after kill and a clean pass %+v, want %+v", got, w)
			}
			if u := usageTotals(t, d); u != wantUsage {
				t.Errorf("usage %+v, want %+v", u, wantUsage)
			}
			if tk := tokenSum(t, d); tk != wantTokens {
				t.Errorf("token estimates %+v, want %+v", tk, wantTokens)
			}
			var integrity string
			if err := d.db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
				t.Errorf("integrity_check %q %v", integrity, err)
			}
		})
	}
}

type tokenState struct{ sum, missing, searchable int64 }

func tokenSum(t testing.TB, d *DB) tokenState {
	t.Helper()
	var s tokenState
	err := d.db.QueryRow(`SELECT COALESCE(SUM(est_tokens), 0), COUNT(*) - COUNT(est_tokens), (SELECT COUNT(*) FROM tool_results WHERE fts_done = 1) FROM tool_results`).Scan(&s.sum, &s.missing, &s.searchable)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
