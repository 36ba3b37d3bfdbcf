package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"spillscope/internal/leaks"
	"spillscope/sessions"
)

// watcherFuncs name the live watcher's goroutines (the watcher, its
// notifier, the app's wrapper), none of which may outlive Shutdown.
var watcherFuncs = []string{"sessions.(*Watcher)", "sessions.(*watchLoop)", "fsnotify", "app.(*Sessions).startLive"}

// eventLog records what the services push to the window.
type eventLog struct {
	mu     sync.Mutex
	events []pushed
}

type pushed struct {
	name string
	data any
}

func (l *eventLog) emit(name string, data any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, pushed{name, data})
}

func (l *eventLog) since(n int) []pushed {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events[min(n, len(l.events)):])
}

func (l *eventLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

// waitEvent waits for an event after the n-th that ok accepts.
func (l *eventLog) waitEvent(t *testing.T, n int, what string, ok func(pushed) bool) pushed {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, e := range l.since(n) {
			if ok(e) {
				return e
			}
		}
	}
	t.Fatalf("no %s event; got %+v", what, l.since(n))
	return pushed{}
}

func claudeLine(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b) + "\n"
}

func claudeResult(sid, tid, text string) string {
	return claudeLine(map[string]any{"type": "user", "sessionId": sid, "timestamp": "2026-01-01T00:00:02.000Z",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": tid, "type": "tool_result", "content": text}}}})
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// liveStore is a store over one indexed Claude Code transcript, and the
// transcript's path.
func liveStore(t *testing.T) (*Store, string) {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, "projects", "-w", "s1.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(claudeResult("s1", "toolu_0", "zero")), 0o644); err != nil {
		t.Fatal(err)
	}
	store := NewStore(Config{DataDir: filepath.Join(t.TempDir(), "data"), Roots: []string{root}, Home: root}, nil)
	t.Cleanup(func() { store.Close() })
	indexAll(t, store, time.Minute)
	return store, path
}

// liveApp is a Sessions service over one indexed Claude Code transcript,
// with events and the watcher on as the window has them.
func liveApp(t *testing.T) (*Sessions, *eventLog, string) {
	t.Helper()
	store, path := liveStore(t)
	s := NewSessions(store)
	log := &eventLog{}
	s.startup(log.emit, 0)
	t.Cleanup(func() {
		Shutdown(s)
		leaks.Check(t, watcherFuncs...)
	})
	log.waitEvent(t, 0, "live status", func(e pushed) bool {
		st, ok := e.data.(LiveStatus)
		return e.name == EventLiveStatus && ok && st.State == sessions.WatchLive
	})
	return s, log, path
}

// TestLiveEvents: a line written to a watched transcript is pushed as one
// change naming its session and result with the new totals, and the
// statuses carry increasing numbers; nothing is pushed while idle; a
// pause holds the change back until resumed.
func TestLiveEvents(t *testing.T) {
	s, log, path := liveApp(t)
	page, err := s.List(SessionQuery{Limit: 10})
	if err != nil || len(page.Rows) != 1 {
		t.Fatalf("sessions %+v %v", page, err)
	}
	row := page.Rows[0].ID
	// The catch-up pass found nothing new: no change was pushed.
	time.Sleep(300 * time.Millisecond)
	for _, e := range log.since(0) {
		if e.name == EventIndexChanged {
			t.Errorf("a change pushed with nothing changed: %+v", e)
		}
	}

	n := log.count()
	appendTo(t, path, claudeResult("s1", "toolu_1", "one"))
	e := log.waitEvent(t, n, "change", func(e pushed) bool { return e.name == EventIndexChanged })
	ch := e.data.(IndexChange)
	res, err := s.Results(ResultsQuery{SessionID: row, Limit: 10})
	if err != nil || len(res.Rows) != 2 {
		t.Fatalf("results %+v %v", res, err)
	}
	if !slices.Equal(ch.Sessions, []int64{row}) || !slices.Equal(ch.Results, []int64{res.Rows[1].ID}) || ch.All || ch.Status.ToolResults != 2 || ch.Status.LastIndexedAt == 0 {
		t.Errorf("change %+v, want session %d, result %d, 2 results", ch, row, res.Rows[1].ID)
	}
	var seq int64
	for _, e := range log.since(0) {
		if c, ok := e.data.(IndexChange); ok {
			if c.Status.Seq <= seq {
				t.Errorf("seq %d after %d", c.Status.Seq, seq)
			}
			seq = c.Status.Seq
		}
	}
	// The token phase's change follows; then nothing while idle.
	time.Sleep(300 * time.Millisecond)
	idle := log.count()
	time.Sleep(time.Second)
	if got := log.since(idle); len(got) != 0 {
		t.Errorf("pushed while idle: %+v", got)
	}
	if st, _ := s.Status(); st.Seq < seq {
		t.Errorf("Status seq %d, behind the pushed %d", st.Seq, seq)
	}

	st, err := s.SetLivePaused(true)
	if err != nil || !st.Paused {
		t.Fatalf("pause %+v %v", st, err)
	}
	n = log.count()
	appendTo(t, path, claudeResult("s1", "toolu_2", "two"))
	time.Sleep(600 * time.Millisecond)
	for _, e := range log.since(n) {
		if e.name == EventIndexChanged {
			t.Errorf("a change pushed while paused: %+v", e)
		}
	}
	if st, _ := s.Live(); !st.Paused || st.State != sessions.WatchLive {
		t.Errorf("live status while paused %+v", st)
	}
	if _, err := s.SetLivePaused(false); err != nil {
		t.Fatal(err)
	}
	e = log.waitEvent(t, n, "change after resuming", func(e pushed) bool { return e.name == EventIndexChanged })
	if ch := e.data.(IndexChange); ch.Status.ToolResults != 3 {
		t.Errorf("after resuming %+v", ch)
	}
}

// TestIndexPushesProgress: "Index now" pushes its progress and, at its
// end, a change that reloads every list, with the status of the finished
// pass; Status answers are never numbered ahead of what was pushed.
func TestIndexPushesProgress(t *testing.T) {
	s, log, path := liveApp(t)
	appendTo(t, path, claudeResult("s1", "toolu_1", "one"))
	log.waitEvent(t, 0, "live change", func(e pushed) bool { return e.name == EventIndexChanged })
	n := log.count()
	if _, err := s.Index(); err != nil {
		t.Fatal(err)
	}
	e := log.waitEvent(t, n, "the end of the pass", func(e pushed) bool {
		c, ok := e.data.(IndexChange)
		return ok && c.All && !c.Status.Running
	})
	if c := e.data.(IndexChange); c.Status.ToolResults != 2 || c.Status.Sessions != 1 {
		t.Errorf("final change %+v", c)
	}
	progress := 0
	for _, e := range log.since(n) {
		if st, ok := e.data.(IndexStatus); ok && e.name == EventIndexProgress {
			progress++
			if st.Running && st.Phase == "" {
				t.Errorf("progress without a phase %+v", st)
			}
		}
	}
	if progress == 0 {
		t.Error("no progress pushed")
	}
}

// TestShutdownStopsLive: Shutdown stops a running watcher and waits for
// it, and a start still on its way (the window's delayed first start)
// never begins after it; either way no watcher goroutine is left, and a
// line written afterwards is pushed to no one.
func TestShutdownStopsLive(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration
		wait  bool // for the watcher to be live before Shutdown
	}{
		{"a running watcher", 0, true},
		{"before the delayed start", 300 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, path := liveStore(t)
			s := NewSessions(store)
			log := &eventLog{}
			s.startup(log.emit, tt.delay)
			if tt.wait {
				log.waitEvent(t, 0, "live status", func(e pushed) bool {
					st, ok := e.data.(LiveStatus)
					return e.name == EventLiveStatus && ok && st.State == sessions.WatchLive
				})
			}
			Shutdown(s)
			time.Sleep(tt.delay + 100*time.Millisecond)
			leaks.Check(t, watcherFuncs...)
			n := log.count()
			appendTo(t, path, claudeResult("s1", "toolu_late", "after shutdown"))
			time.Sleep(500 * time.Millisecond)
			for _, e := range log.since(n) {
				t.Errorf("pushed after Shutdown: %+v", e)
			}
			// A second Shutdown (the window closed twice) is harmless.
			Shutdown(s)
		})
	}
}
