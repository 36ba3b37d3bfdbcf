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
	"sync"
	"syscall"
	"testing"
	"time"

	"spillscope/internal/leaks"
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
			leaks.Reap(t, cmd)
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

const watchKillEnv = "SPILLSCOPE_WATCH_KILL_HELPER"

// TestWatchKillHelper is the subprocess of TestKillDuringWatch: it
// watches a root, printing a line per pass so the parent knows when to
// kill it.
func TestWatchKillHelper(t *testing.T) {
	spec := os.Getenv(watchKillEnv)
	if spec == "" {
		t.Skip("subprocess of TestKillDuringWatch")
	}
	dbPath, root, _ := strings.Cut(spec, "|")
	d, err := Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(out, s)
		out.Flush()
	}
	w := NewWatcher(d, []string{root}, WatchOptions{CatchUp: true, Enrich: EnrichOptions{Workers: 1},
		OnStatus: func(s WatchStatus) { say("status " + s.State) },
		OnChange: func(p WatchPass) { say(fmt.Sprintf("change %d", len(p.Results))) },
		OnPass:   func(p WatchPass) { say("pass " + p.Trigger) },
	})
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestKillDuringWatch: a watching process killed (-9) while a writer
// appends to its sessions leaves an index that a restarted watcher (as
// index --watch restarts: catching up, every waiting result counted)
// brings to what a clean index of the same files holds: every result
// once, usage, token counts and search terms, a sound database.
func TestKillDuringWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subprocesses")
	}
	for _, tc := range []struct {
		name  string
		lines int // pass lines from the helper before the kill
	}{
		{"during the catch-up pass", 0},
		{"between change passes", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "corpus")
			makeCorpus(t, root, 80, 10, 400)
			paths, err := filepath.Glob(filepath.Join(root, "projects", "*", "*.jsonl"))
			if err != nil || len(paths) == 0 {
				t.Fatal(paths, err)
			}
			dbPath := filepath.Join(t.TempDir(), "index.db")
			cmd := exec.Command(os.Args[0], "-test.run=^TestWatchKillHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), watchKillEnv+"="+dbPath+"|"+root)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			leaks.Reap(t, cmd)
			lines := make(chan string, 1024)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			// The writer appends a result to one transcript after another
			// until the kill; the kill lands while passes run.
			n := 0
			write := func() {
				p := paths[n%len(paths)]
				sid := strings.TrimSuffix(filepath.Base(p), ".jsonl")
				tid := fmt.Sprintf("toolu_w%04d", n)
				appendFile(t, p, cAssistant(sid, "mw"+tid, "rw", tid, "Bash", 3)+cResult(sid, tid, strings.Repeat("written while watched ", 20)))
				n++
			}
			seen := 0
			deadline := time.After(60 * time.Second)
		wait:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatal("helper ended before the kill")
					}
					if strings.HasPrefix(l, "status "+WatchLive) && tc.lines == 0 {
						break wait
					}
					if strings.HasPrefix(l, "pass ") {
						seen++
						if seen > tc.lines && tc.lines > 0 {
							break wait
						}
						write()
					}
				case <-deadline:
					t.Fatal("helper reported no passes")
				}
			}
			for range 3 {
				write()
				time.Sleep(30 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			for range 5 {
				write()
			}

			d, err := Open(dbPath)
			if err != nil {
				t.Fatalf("database does not open after kill -9: %v", err)
			}
			defer d.Close()
			var integrity string
			if err := d.db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
				t.Errorf("integrity_check %q %v", integrity, err)
			}
			_, log := startWatch(t, d, []string{root}, WatchOptions{CatchUp: true, EnrichWaiting: true})
			log.mu.Lock()
			start := log.passes[0]
			log.mu.Unlock()
			if start.Trigger != TriggerStart || start.Error != "" {
				t.Fatalf("restart pass %+v", start)
			}

			likeFresh(t, d, root)
			k := &idTracker{t: t, d: d, ids: map[string]int64{}}
			if got := len(k.check()); got != 80*10+n {
				t.Errorf("%d results, want %d", got, 80*10+n)
			}
		})
	}
}
