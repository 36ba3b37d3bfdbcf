package sessions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"spillscope/internal/leaks"
)

// watchLog records what a running watcher reported.
type watchLog struct {
	mu       sync.Mutex
	passes   []WatchPass
	changes  []WatchPass
	statuses []WatchStatus
}

func (l *watchLog) passCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.passes)
}

func (l *watchLog) lastStatus() WatchStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.statuses) == 0 {
		return WatchStatus{}
	}
	return l.statuses[len(l.statuses)-1]
}

// startWatch runs a watcher of roots over d until the test ends.
func startWatch(t *testing.T, d *DB, roots []string, opts WatchOptions) (*Watcher, *watchLog) {
	t.Helper()
	log := &watchLog{}
	opts.OnPass = func(p WatchPass) { log.mu.Lock(); log.passes = append(log.passes, p); log.mu.Unlock() }
	opts.OnChange = func(p WatchPass) { log.mu.Lock(); log.changes = append(log.changes, p); log.mu.Unlock() }
	opts.OnStatus = func(s WatchStatus) { log.mu.Lock(); log.statuses = append(log.statuses, s); log.mu.Unlock() }
	if opts.Enrich.Workers == 0 {
		opts.Enrich.Workers = 1
	}
	w := NewWatcher(d, roots, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watcher: %v", err)
		}
		// Run returned: nothing of it (its pass worker, the notifier) runs on.
		leaks.Check(t, "sessions.(*Watcher)", "sessions.(*watchLoop)", "fsnotify")
	})
	waitUntil(t, "the watcher to start", func() bool {
		st := log.lastStatus().State
		return st != "" && st != WatchStarting
	})
	if opts.CatchUp {
		waitUntil(t, "the catch-up pass", func() bool { return log.passCount() > 0 })
	}
	return w, log
}

// waitUntil polls cond until it holds; the deadline is far beyond any
// pass, so only a change that never lands fails it.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// idTracker checks, snapshot after snapshot, that every result keeps its
// row id and appears once.
type idTracker struct {
	t   *testing.T
	d   *DB
	ids map[string]int64
}

func (k *idTracker) check() map[string]int64 {
	k.t.Helper()
	rows, err := k.d.Results(context.Background(), ResultFilter{Limit: 100000})
	if err != nil {
		k.t.Fatal(err)
	}
	now := map[string]int64{}
	for _, r := range rows {
		key := r.Harness + "/" + r.SessionID + "/" + r.CallID
		if _, dup := now[key]; dup {
			k.t.Errorf("%s indexed twice", key)
		}
		now[key] = r.ID
		if was, ok := k.ids[key]; ok && was != r.ID {
			k.t.Errorf("%s: id %d, was %d", key, r.ID, was)
		}
		k.ids[key] = r.ID
	}
	for key := range k.ids {
		if _, ok := now[key]; !ok {
			k.t.Errorf("%s left the index", key)
		}
	}
	return now
}

// likeFresh checks that d holds for roots what a fresh index of them
// holds once enriched: the totals, usage, token counts and search terms.
func likeFresh(t *testing.T, d *DB, roots ...string) {
	t.Helper()
	clean := openTemp(t)
	want := index(t, clean, roots...)
	if err := clean.Enrich(t.Context(), EnrichOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	got, err := d.Totals(t.Context(), roots)
	if err != nil {
		t.Fatal(err)
	}
	want.ChangedFiles, want.Seconds = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("index %+v, a fresh one %+v", got, want)
	}
	if u, w := usageTotals(t, d), usageTotals(t, clean); u != w {
		t.Errorf("usage %+v, a fresh index %+v", u, w)
	}
	if g, w := tokenSum(t, d), tokenSum(t, clean); g != w {
		t.Errorf("tokens %+v, a fresh index %+v", g, w)
	}
}

// xTS is the Codex rollout lines' timestamp.
const xTS = "2026-01-01T00:00:00Z"

// writeTorn writes content to path in two halves with a pause between, as
// a writer caught mid-write leaves it; appending or (rewrite) in place.
func writeTorn(t *testing.T, path string, content []byte, rewrite bool) {
	t.Helper()
	flag := os.O_APPEND | os.O_WRONLY
	if rewrite {
		flag = os.O_TRUNC | os.O_WRONLY
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	half := len(content) / 2
	if _, err := f.Write(content[:half]); err != nil {
		t.Fatal(err)
	}
	// Longer than the debounce: a pass reads the half.
	time.Sleep(250 * time.Millisecond)
	if _, err := f.Write(content[half:]); err != nil {
		t.Fatal(err)
	}
}

// TestWatchWriters: while the watcher runs, a writer appends results to a
// Claude Code transcript and a Codex rollout, rewrites a Gemini chat file
// in place and appends zstd frames to a dsh log, now and then caught
// mid-line, mid-document or mid-frame, and opens a new folder deep under a
// root. Every result appears, once, and keeps its id from first sight to
// the end; the index ends as a fresh index of the same files would be,
// with every result counted and searchable.
func TestWatchWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("writes for seconds")
	}
	rootA, rootB := t.TempDir(), t.TempDir()
	claude := filepath.Join(rootA, "projects", "-w", "s1.jsonl")
	codex := filepath.Join(rootA, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-cx1.jsonl")
	gemini := filepath.Join(rootA, "tmp", "abc", "chats", "session-1.json")
	writeFile(t, claude, cAssistant("s1", "m0", "r0", "toolu_0", "Bash", 1)+cResult("s1", "toolu_0", "zero"))
	writeFile(t, codex, xLine("session_meta", xTS, map[string]any{"id": "cx1", "cwd": "/w"})+
		xLine("turn_context", xTS, map[string]any{"model": "gpt-5", "cwd": "/w"})+xCall("call_0", "shell", "zero"))
	calls := []string{"g0"}
	writeFile(t, gemini, geminiDoc("", calls...))
	dsh := newDshFile(t, filepath.Join(rootB, "sessions", "--w--", "d1", "session.v4.jsonl.zstd"), dshHeader("d1", 4), true)
	dsh.route()
	dsh.call("c0", "bash", txt("zero"))
	dsh.flush()

	d := openTemp(t)
	_, log := startWatch(t, d, []string{rootA, rootB}, WatchOptions{CatchUp: true})
	k := &idTracker{t: t, d: d, ids: map[string]int64{}}
	if got := len(k.check()); got != 4 {
		t.Fatalf("after the catch-up pass %d results, want 4", got)
	}

	const steps = 12
	rng := rand.New(rand.NewPCG(1, 2))
	fresh := filepath.Join(rootA, "projects", "-new", "deep", "er", "s2.jsonl")
	for i := 1; i <= steps; i++ {
		id := fmt.Sprint(i)
		line := cAssistant("s1", "m"+id, "r"+id, "toolu_"+id, "Read", i) + cResult("s1", "toolu_"+id, strings.Repeat("out "+id+" ", 50))
		if i%3 == 1 {
			writeTorn(t, claude, []byte(line), false)
		} else {
			appendFile(t, claude, line)
		}
		appendFile(t, codex, xCall("call_"+id, "shell", "output "+id))
		calls = append(calls, "g"+id)
		if i%4 == 2 {
			writeTorn(t, gemini, []byte(geminiDoc("\n  ", calls...)), true)
		} else {
			writeFile(t, gemini, geminiDoc("", calls...))
		}
		dsh.call("c"+id, "bash", txt(strings.Repeat("dsh "+id+" ", 40)))
		if i%4 == 3 {
			frame := dsh.log.Take()
			dsh.appendBytes(frame[:len(frame)/2])
			time.Sleep(250 * time.Millisecond)
			dsh.appendBytes(frame[len(frame)/2:])
		} else {
			dsh.flush()
		}
		if i == 5 {
			// A folder made deep at once, its file written before a watch
			// could be placed on it.
			writeFile(t, fresh, cAssistant("s2", "n1", "q1", "toolu_n", "Bash", 1)+cResult("s2", "toolu_n", "new folder"))
		}
		time.Sleep(time.Duration(rng.IntN(80)) * time.Millisecond)
		k.check()
	}
	want := 4*(steps+1) + 1
	waitUntil(t, fmt.Sprintf("%d results", want), func() bool { return len(k.check()) == want })
	waitUntil(t, "every result counted and searchable", func() bool {
		s := tokenSum(t, d)
		return s.missing == 0 && s.searchable == int64(want)
	})
	k.check()

	likeFresh(t, d, rootA, rootB)
	if codes := diagCodes(t, d); len(codes) != 0 {
		t.Errorf("diagnostics %v: a torn read left a trace", codes)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, p := range log.passes {
		if p.Error != "" {
			t.Errorf("pass failed: %s", p.Error)
		}
		if p.Trigger != TriggerStart && p.Trigger != TriggerChange {
			t.Errorf("pass triggered by %q: notifications were lost", p.Trigger)
		}
	}
}

// TestWatchDatabase: an OpenCode database gaining rows (WAL commits, the
// database file itself untouched until a checkpoint) is read past its
// change marker on each commit; each result appears once, with its id.
func TestWatchDatabase(t *testing.T) {
	data := filepath.Join(t.TempDir(), "opencode")
	oc := newOCDB(t, filepath.Join(data, "opencode.db"))
	oc.session(t, "ses_a")
	oc.message(t, "ses_a", "msg_0", "assistant")
	oc.part(t, "ses_a", "msg_0", "prt_0", ocTool("c_0", "bash", "completed", "zero", nil))
	d := openTemp(t)
	_, log := startWatch(t, d, []string{data}, WatchOptions{CatchUp: true})
	k := &idTracker{t: t, d: d, ids: map[string]int64{}}
	if n := len(k.check()); n != 1 {
		t.Fatalf("after the catch-up pass %d results", n)
	}
	for i := 1; i <= 6; i++ {
		mid, id := fmt.Sprintf("msg_%d", i), fmt.Sprint(i)
		oc.message(t, "ses_a", mid, "assistant")
		oc.part(t, "ses_a", mid, "prt_"+id, ocTool("c_"+id, "read", "completed", "output "+id, nil))
		want := i + 1
		waitUntil(t, fmt.Sprintf("result %d", i), func() bool { return len(k.check()) == want })
	}
	// A part changed in place replaces its result under the same id.
	oc.update(t, "prt_3", ocTool("c_3", "read", "completed", "changed output", nil))
	waitUntil(t, "the changed part", func() bool { return textOf(t, d, k.ids[HarnessOpenCode+"/ses_a/c_3"]) == "changed output" })
	k.check()
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, p := range log.passes {
		if p.Trigger == TriggerPeriodic || p.Trigger == TriggerOverflow {
			t.Errorf("pass triggered by %q", p.Trigger)
		}
	}
}

// limitNotifier is the system notifier whose table holds only room
// watches: past them Add fails with ENOSPC, as inotify does once
// fs.inotify.max_user_watches is reached.
type limitNotifier struct {
	Notifier
	mu    sync.Mutex
	room  int
	added []string
}

func (n *limitNotifier) Add(dir string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.room == 0 {
		return fmt.Errorf("add %s: %w", dir, syscall.ENOSPC)
	}
	n.room--
	n.added = append(n.added, dir)
	return n.Notifier.Add(dir)
}

// TestWatchLimit: past the watch limit the status says so (once, naming
// the setting), the folders watched before it stay live, and periodic
// passes bring in what is written in the rest.
func TestWatchLimit(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a", "b", "c"} {
		writeFile(t, filepath.Join(root, "projects", p, "s.jsonl"), cResult("s"+p, "toolu_"+p+"0", "zero"))
	}
	ln := &limitNotifier{room: 3} // root, projects, projects/a
	d := openTemp(t)
	_, log := startWatch(t, d, []string{root}, WatchOptions{CatchUp: true, Every: 300 * time.Millisecond, Notifier: func() (Notifier, error) {
		n, err := NewNotifier()
		ln.Notifier = n
		return ln, err
	}})
	st := log.lastStatus()
	if st.State != WatchLimited || st.Setting != SettingMaxWatches || st.Folders != 3 || st.Unwatched != 2 || st.EverySeconds != 0.3 || !strings.Contains(st.Detail, "no space left") {
		t.Fatalf("status %+v", st)
	}
	if want := []string{root, filepath.Join(root, "projects"), filepath.Join(root, "projects", "a")}; !reflect.DeepEqual(ln.added, want) {
		t.Errorf("watched %v, want %v", ln.added, want)
	}
	k := &idTracker{t: t, d: d, ids: map[string]int64{}}
	for i, p := range []string{"a", "c", "b"} {
		appendFile(t, filepath.Join(root, "projects", p, "s.jsonl"), cResult("s"+p, "toolu_"+p+"1", "one"))
		want := 4 + i
		waitUntil(t, "a result written in "+p, func() bool { return len(k.check()) == want })
	}
	// A folder made past the limit is counted, not silently left out.
	writeFile(t, filepath.Join(root, "projects", "d", "s.jsonl"), cResult("sd", "toolu_d0", "zero"))
	waitUntil(t, "the new folder's result", func() bool { return len(k.check()) == 7 })
	waitUntil(t, "the new folder counted", func() bool { return log.lastStatus().Unwatched == 3 })
	log.mu.Lock()
	defer log.mu.Unlock()
	limited := 0
	prev := ""
	for _, s := range log.statuses {
		if s.State == WatchLimited && prev != WatchLimited {
			limited++
		}
		prev = s.State
	}
	if limited != 1 {
		t.Errorf("the limit was reported %d times, want once: %+v", limited, log.statuses)
	}
	periodic := 0
	for _, p := range log.passes {
		if p.Trigger == TriggerPeriodic {
			periodic++
		}
	}
	if periodic == 0 {
		t.Error("no periodic pass brought in the unwatched folders' results")
	}
}

// TestWatchNoNotifier: with no notifier at all (the inotify instances
// used up), every root is covered by periodic passes, and the status names
// the setting.
func TestWatchNoNotifier(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "s.jsonl")
	writeFile(t, path, cResult("s", "toolu_0", "zero"))
	d := openTemp(t)
	_, log := startWatch(t, d, []string{root}, WatchOptions{CatchUp: true, Every: 200 * time.Millisecond, Notifier: func() (Notifier, error) {
		return nil, fmt.Errorf("inotify_init1: %w", syscall.EMFILE)
	}})
	if st := log.lastStatus(); st.State != WatchPolling || st.Setting != SettingMaxInstances || st.Folders != 0 {
		t.Fatalf("status %+v", st)
	}
	appendFile(t, path, cResult("s", "toolu_1", "one"))
	k := &idTracker{t: t, d: d, ids: map[string]int64{}}
	waitUntil(t, "the periodic pass", func() bool { return len(k.check()) == 2 })
}

// TestWatchPause: while paused nothing is read; resuming reads what was
// written meanwhile. An idle watcher runs no pass.
func TestWatchPause(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "s.jsonl")
	writeFile(t, path, cResult("s", "toolu_0", "zero"))
	d := openTemp(t)
	w, log := startWatch(t, d, []string{root}, WatchOptions{CatchUp: true})
	idle := log.passCount()
	time.Sleep(600 * time.Millisecond)
	if n := log.passCount(); n != idle {
		t.Errorf("%d passes while nothing changed", n-idle)
	}
	w.SetPaused(true)
	waitUntil(t, "the paused status", func() bool { return log.lastStatus().Paused })
	appendFile(t, path, cResult("s", "toolu_1", "one"))
	time.Sleep(600 * time.Millisecond)
	k := &idTracker{t: t, d: d, ids: map[string]int64{}}
	if n := len(k.check()); n != 1 {
		t.Errorf("%d results while paused, want the 1 from before", n)
	}
	w.SetPaused(false)
	waitUntil(t, "the result written while paused", func() bool { return len(k.check()) == 2 })
	if st := log.lastStatus(); st.Paused || st.State != WatchLive {
		t.Errorf("status after resuming %+v", st)
	}
}

// TestIndexFiles: the per-file entry point brings in what changed in the
// named files only, drops files and folders gone from disk, ignores paths
// outside the roots or in .git, and reports what it touched.
func TestIndexFiles(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "p", "a.jsonl")
	b := filepath.Join(root, "q", "b.jsonl")
	writeFile(t, a, cResult("a", "toolu_a0", "zero"))
	writeFile(t, b, cResult("b", "toolu_b0", "zero"))
	d := openTemp(t)
	index(t, d, root)
	files := func(paths ...string) ([]FileChange, int) {
		t.Helper()
		var got []FileChange
		n, err := d.IndexFiles(t.Context(), []string{root}, paths, IndexOptions{OnChange: func(c FileChange) { got = append(got, c) }})
		if err != nil {
			t.Fatal(err)
		}
		return got, n
	}
	before := idsByCall(t, d)
	appendFile(t, a, cResult("a", "toolu_a1", "one"))
	appendFile(t, b, cResult("b", "toolu_b1", "one"))
	t.Run("only the named file", func(t *testing.T) {
		ch, n := files(a)
		after := idsByCall(t, d)
		if n != 1 || len(ch) != 1 || ch[0].Path != a || len(ch[0].Results) != 1 || ch[0].Results[0] != after["toolu_a1"].ID || len(ch[0].Sessions) != 1 {
			t.Fatalf("changes %+v (%d)", ch, n)
		}
		if _, ok := after["toolu_b1"]; ok || after["toolu_a0"].ID != before["toolu_a0"].ID {
			t.Errorf("rows %+v", after)
		}
	})
	t.Run("unchanged, outside, .git", func(t *testing.T) {
		git := filepath.Join(root, ".git", "x", "c.jsonl")
		writeFile(t, git, cResult("c", "toolu_c", "x"))
		outside := filepath.Join(t.TempDir(), "d.jsonl")
		writeFile(t, outside, cResult("d", "toolu_d", "x"))
		if ch, n := files(a, git, outside, filepath.Join(root, "nothing.jsonl")); n != 0 || len(ch) != 0 {
			t.Errorf("changes %+v (%d)", ch, n)
		}
	})
	t.Run("a folder gone", func(t *testing.T) {
		sess := sessionsOf(t, d, HarnessClaude)["b"]
		if err := os.RemoveAll(filepath.Dir(b)); err != nil {
			t.Fatal(err)
		}
		ch, n := files(filepath.Dir(b))
		if n != 1 || len(ch) != 1 || !ch[0].Gone || ch[0].Path != b || len(ch[0].Sessions) != 1 || ch[0].Sessions[0] != sess.ID {
			t.Fatalf("changes %+v (%d)", ch, n)
		}
		if s, _ := d.Totals(t.Context(), []string{root}); s.Files != 1 || s.ToolResults != 2 {
			t.Errorf("totals %+v", s)
		}
	})
}

// TestConcurrentPasses: two processes' passes over one index (two DB
// handles on one file) and a growing transcript: each result is stored
// once, whichever pass reads it.
func TestConcurrentPasses(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "s.jsonl")
	writeFile(t, path, cResult("s", "toolu_0", "zero"))
	dbPath := filepath.Join(t.TempDir(), "index.db")
	var handles []*DB
	for range 2 {
		h, err := Open(dbPath)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		handles = append(handles, h)
	}
	const n = 30
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i, h := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				if i == 0 {
					_, err = h.Index(context.Background(), []string{root}, IndexOptions{})
				} else {
					_, err = h.IndexFiles(context.Background(), []string{root}, []string{path}, IndexOptions{})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 1; i <= n; i++ {
		appendFile(t, path, cResult("s", fmt.Sprintf("toolu_%d", i), "more"))
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	s := index(t, handles[0], root)
	if s.ToolResults != n+1 {
		t.Errorf("%d results stored, want %d", s.ToolResults, n+1)
	}
	rows, _ := handles[1].Results(t.Context(), ResultFilter{Limit: 1000})
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.CallID] || r.Ordinal != 0 {
			t.Errorf("%s stored twice (ordinal %d)", r.CallID, r.Ordinal)
		}
		seen[r.CallID] = true
	}
}
