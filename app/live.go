package app

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"spillscope/sessions"
)

// The events Go pushes to the window. Their payloads are small: which rows
// changed and the index's status, never rows themselves; the window asks
// for what it shows.
const (
	// EventIndexChanged carries an IndexChange after every pass that
	// changed the index (a live pass, or a second of a manual one).
	EventIndexChanged = "index:changed"
	// EventIndexProgress carries an IndexStatus while a manual pass runs,
	// a few times a second at most, and once when it ends.
	EventIndexProgress = "index:progress"
	// EventLiveStatus carries a LiveStatus when the watcher's state
	// changes.
	EventLiveStatus = "live:status"
)

// IndexChange is the payload of EventIndexChanged. A screen reloads what
// it shows when it names a row of it: the sessions list on any change, an
// open session when its row is named, the largest results when results
// are; a timeline its session's row.
type IndexChange struct {
	// Sessions are the session rows written to or removed; Results the
	// result rows added or whose content changed.
	Sessions []int64 `json:"sessions"`
	Results  []int64 `json:"results"`
	// All says more changed than the lists name (a whole pass, token
	// counts across the index): every screen reloads what it shows.
	All bool `json:"all"`
	// Status is the index's status after the change (its totals).
	Status IndexStatus `json:"status"`
}

// maxChangeIDs bounds the ids one event names; past it, All is set.
const maxChangeIDs = 500

// Live watcher states beyond sessions.WatchStatus's: no session folder
// to watch.
const LiveOff = "off"

// LiveStatus is what the live watcher is doing, for the sidebar's
// indicator: State is "off" (no session folder), or one of
// sessions.WatchStatus's ("starting", "live", "limited", "polling",
// "stopped").
type LiveStatus struct {
	State  string `json:"state"`
	Paused bool   `json:"paused"`
	// Folders are watched; Unwatched are past the system's limit and
	// re-read every EverySeconds instead.
	Folders      int     `json:"folders"`
	Unwatched    int     `json:"unwatched"`
	EverySeconds float64 `json:"everySeconds"`
	// Setting names the system setting to raise when a limit was reached
	// (fs.inotify.max_user_watches); Detail is the error underneath.
	Setting string `json:"setting"`
	Detail  string `json:"detail"`
}

// liveStart is how long after start-up the watcher begins, so the first
// paint has the machine.
const liveStart = time.Second

// live runs the watcher of the session folders for the window.
type live struct {
	// starting keeps (re)starts one at a time; on is set once the window
	// started (a headless Sessions never watches).
	starting sync.Mutex
	on       bool
	mu       sync.Mutex
	roots    []string
	cancel   context.CancelFunc
	done     chan struct{}
	w        *sessions.Watcher
	paused   bool
	status   LiveStatus
}

// emitter pushes events to the window (the Wails runtime); nil until the
// window starts, and in tests that do not listen.
type emitter func(name string, data any)

func wailsEmitter(ctx context.Context) emitter {
	return func(name string, data any) { runtime.EventsEmit(ctx, name, data) }
}

// send pushes an event if anyone listens.
func (s *Sessions) send(name string, data any) {
	s.mu.Lock()
	e := s.emit
	s.mu.Unlock()
	if e != nil {
		e(name, data)
	}
}

// nextSeq numbers a status for the window, which keeps the newest.
func (s *Sessions) nextSeq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// changed pushes one IndexChange: the rows named (All past the bound) and
// the status now. Pushes are one at a time, so their numbers follow the
// order their statuses were read in.
func (s *Sessions) changed(sessionRows, results []int64, all bool) {
	s.pushMu.Lock()
	defer s.pushMu.Unlock()
	st, err := s.Status()
	if err != nil {
		return
	}
	st.Seq = s.nextSeq()
	if len(sessionRows) > maxChangeIDs || len(results) > maxChangeIDs {
		all, sessionRows, results = true, nil, nil
	}
	if sessionRows == nil {
		sessionRows = []int64{}
	}
	if results == nil {
		results = []int64{}
	}
	s.send(EventIndexChanged, IndexChange{Sessions: sessionRows, Results: results, All: all, Status: st})
}

// Live reports what the live watcher is doing.
func (s *Sessions) Live() (LiveStatus, error) {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	st := s.live.status
	if st.State == "" {
		st.State = sessions.WatchStarting
	}
	st.Paused = s.live.paused
	return st, nil
}

// SetLivePaused pauses or resumes live indexing: while paused, changes to
// the session folders are noted but not read; resuming reads them.
func (s *Sessions) SetLivePaused(paused bool) (LiveStatus, error) {
	s.live.mu.Lock()
	s.live.paused = paused
	w := s.live.w
	s.live.status.Paused = paused
	st := s.live.status
	s.live.mu.Unlock()
	if w != nil {
		w.SetPaused(paused)
	}
	s.send(EventLiveStatus, st)
	return s.Live()
}

// startup turns events and the live watcher on: events go through e, and
// the watcher starts after delay.
func (s *Sessions) startup(e emitter, delay time.Duration) {
	s.mu.Lock()
	s.emit = e
	s.mu.Unlock()
	s.live.mu.Lock()
	s.live.on = true
	s.live.mu.Unlock()
	time.AfterFunc(delay, s.restartLive)
}

// restartLive starts the watcher, or restarts it over other folders,
// once the window has started.
func (s *Sessions) restartLive() { s.startLive(context.Background()) }

// startLive (re)starts the watcher over the session folders the store
// names now, unless it already watches them or the window is not (or no
// longer) up. It catches up with a structure pass first when the index
// already holds files (what changed while the app was closed); a new
// index waits for the first "Index now".
func (s *Sessions) startLive(ctx context.Context) {
	l := &s.live
	l.starting.Lock()
	defer l.starting.Unlock()
	roots := s.store.Roots()
	l.mu.Lock()
	// on is read under starting: a start that was on its way when
	// Shutdown ran (the delayed first start, the end of "Index now")
	// either finished before Shutdown stopped it, or sees on unset here.
	if !l.on || (l.done != nil && slices.Equal(l.roots, roots)) {
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	s.stopLive()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roots = roots
	if len(roots) == 0 {
		l.status = LiveStatus{State: LiveOff, Paused: l.paused}
		go s.send(EventLiveStatus, l.status)
		return
	}
	db, err := s.store.DB()
	if err != nil {
		l.status = LiveStatus{State: sessions.WatchStopped, Paused: l.paused, Detail: err.Error()}
		go s.send(EventLiveStatus, l.status)
		return
	}
	catchUp, _ := db.Indexed(ctx)
	w := sessions.NewWatcher(db, roots, sessions.WatchOptions{
		CatchUp:  catchUp,
		OnChange: func(p sessions.WatchPass) { s.livePass(p, false) },
		OnPass:   func(p sessions.WatchPass) { s.livePass(p, true) },
		OnStatus: func(ws sessions.WatchStatus) {
			l.mu.Lock()
			if l.w != nil {
				l.status = liveStatus(ws)
			}
			st := l.status
			st.Paused = l.paused
			l.mu.Unlock()
			s.send(EventLiveStatus, st)
		},
	})
	w.SetPaused(l.paused)
	wctx, cancel := context.WithCancel(ctx)
	l.w, l.cancel, l.done = w, cancel, make(chan struct{})
	done := l.done
	go func() {
		defer close(done)
		w.Run(wctx)
	}()
}

// stopLive stops the watcher, if one runs, and waits for it.
func (s *Sessions) stopLive() {
	l := &s.live
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.w, l.cancel, l.done = nil, nil, nil
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Shutdown stops the live watcher before the index closes; main runs it
// when the window closes. (A function, not a method: the window must not
// be able to call it.)
func Shutdown(s *Sessions) {
	s.live.mu.Lock()
	s.live.on = false
	s.live.mu.Unlock()
	s.live.starting.Lock()
	defer s.live.starting.Unlock()
	s.stopLive()
}

// livePass turns a watcher's pass into an event: after its structure
// phase (the rows are in) and after its token and search phases (their
// counts are exact).
func (s *Sessions) livePass(p sessions.WatchPass, whole bool) {
	if !p.Changed() {
		return
	}
	s.mu.Lock()
	s.lastDone = time.Now()
	s.mu.Unlock()
	s.changed(p.Sessions, p.Results, whole && p.Trigger != sessions.TriggerChange)
}

func liveStatus(ws sessions.WatchStatus) LiveStatus {
	return LiveStatus{State: ws.State, Paused: ws.Paused, Folders: ws.Folders, Unwatched: ws.Unwatched,
		EverySeconds: ws.EverySeconds, Setting: ws.Setting, Detail: ws.Detail}
}

// changeBatch gathers what a manual pass changes, for one event a second.
type changeBatch struct {
	mu       sync.Mutex
	sessions []int64
	results  []int64
	seen     map[int64]bool
	any      bool
}

func (b *changeBatch) add(c sessions.FileChange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.Retry {
		return
	}
	if b.seen == nil {
		b.seen = map[int64]bool{}
	}
	b.any = true
	for _, id := range c.Sessions {
		if !b.seen[id] {
			b.seen[id] = true
			b.sessions = append(b.sessions, id)
		}
	}
	b.results = append(b.results, c.Results...)
}

// take empties the batch.
func (b *changeBatch) take() (sessionRows, results []int64, any bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sessionRows, results, any = b.sessions, b.results, b.any
	b.sessions, b.results, b.seen, b.any = nil, nil, nil, false
	return
}
