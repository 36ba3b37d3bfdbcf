package sessions

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Notifier is what a Watcher needs of the system's file notifications:
// fsnotify's Watcher (inotify on Linux) behind an interface, so a test can
// make Add fail as a full inotify table does.
type Notifier interface {
	// Add watches one folder (not its subfolders) for its entries'
	// changes.
	Add(dir string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

// NewNotifier is the system's notifier.
func NewNotifier() (Notifier, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsNotifier{w}, nil
}

type fsNotifier struct{ w *fsnotify.Watcher }

func (n fsNotifier) Add(dir string) error          { return n.w.Add(dir) }
func (n fsNotifier) Events() <-chan fsnotify.Event { return n.w.Events }
func (n fsNotifier) Errors() <-chan error          { return n.w.Errors }
func (n fsNotifier) Close() error                  { return n.w.Close() }

// The states of a Watcher (WatchStatus.State).
const (
	// WatchStarting: folders are being added.
	WatchStarting = "starting"
	// WatchLive: every folder under the roots is watched.
	WatchLive = "live"
	// WatchLimited: the system's watch limit was reached; the folders
	// watched before it still are, and periodic passes cover the rest.
	WatchLimited = "limited"
	// WatchPolling: no notifications at all (the notifier could not
	// start); periodic passes cover every root.
	WatchPolling = "polling"
	// WatchStopped: the watcher ended (Detail says why, if it failed).
	WatchStopped = "stopped"
)

// The system settings that bound inotify, named to the user when reached.
const (
	SettingMaxWatches   = "fs.inotify.max_user_watches"
	SettingMaxInstances = "fs.inotify.max_user_instances"
)

// WatchStatus is what a watcher is doing, for a status line.
type WatchStatus struct {
	State string `json:"state"`
	// Folders are watched; Unwatched could not be (past the limit).
	Folders   int `json:"folders"`
	Unwatched int `json:"unwatched"`
	// Setting is the system setting that would let every folder be
	// watched, when a limit was reached; Detail the error underneath.
	Setting string `json:"setting,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// EverySeconds is the period of the passes that stand in for
	// notifications (limited and polling states).
	EverySeconds float64 `json:"everySeconds,omitempty"`
	// Paused is set while paused, whatever the state underneath.
	Paused bool `json:"paused"`
}

// The triggers of a WatchPass.
const (
	TriggerStart    = "start"
	TriggerChange   = "change"
	TriggerPeriodic = "periodic"
	TriggerOverflow = "overflow"
)

// WatchPass is what one pass of a watcher changed: the CLI prints it as a
// JSON line, the window turns it into an event.
type WatchPass struct {
	// Trigger: "start" (catching up with what changed before the watch),
	// "change" (files the system reported), "periodic" (where no
	// notification reaches), "overflow" (notifications were lost).
	Trigger string `json:"trigger"`
	// Files are the sources written or dropped, Sessions and Results the
	// rows touched (FileChange), each once, in order.
	Files    []string `json:"files"`
	Sessions []int64  `json:"sessions"`
	Results  []int64  `json:"results"`
	// Totals are what the index holds for the roots after the pass.
	Totals Summary `json:"totals"`
	// Seconds is the pass's time, structure and enrich phases.
	Seconds float64 `json:"seconds"`
	// Error is why the pass failed, if it did (the watch goes on).
	Error string `json:"error,omitempty"`
}

// Changed reports whether the pass changed anything.
func (p WatchPass) Changed() bool { return len(p.Files) > 0 }

// WatchOptions tune a Watcher; zero values take the defaults.
type WatchOptions struct {
	// Debounce is how long the files must be quiet before a pass (100
	// ms); MaxDelay bounds how long a change waits while a writer keeps
	// writing (400 ms).
	Debounce, MaxDelay time.Duration
	// Every is the period of the passes standing in for notifications
	// where they do not reach (10 s).
	Every time.Duration
	// RetryDelay is when a source read mid-change is read again (1 s).
	RetryDelay time.Duration
	// CatchUp runs a structure pass over the roots once the folders are
	// watched, for what changed before; EnrichWaiting has its token and
	// search phases run over every result waiting (as index does), not
	// only over the sessions it wrote to.
	CatchUp, EnrichWaiting bool
	// Enrich tunes the token, search and summaries phases of each pass (its
	// Sessions are the pass's own); SkipEnrich leaves them out.
	Enrich     EnrichOptions
	SkipEnrich bool
	// Progress, when set, takes the progress of the passes over the whole
	// roots (the catch-up pass's, for a progress bar).
	Progress func(Progress)
	// Notifier makes the system notifier (NewNotifier when nil).
	Notifier func() (Notifier, error)
	// OnChange is called after the structure phase of a pass that changed
	// something (new rows are in, their token counts still approximate);
	// OnPass after the whole pass. Both run on the watcher's pass
	// goroutine.
	OnChange, OnPass func(WatchPass)
	// OnStatus is called when the status changes.
	OnStatus func(WatchStatus)
}

// maxDirty bounds the changed paths a watcher keeps; past it, the next
// pass is over the whole roots.
const maxDirty = 20000

// Watcher keeps the index of some roots up to date while agents write:
// every folder under them is watched (new ones as they appear), changes
// are debounced, and only the changed files are read again through
// IndexFiles, from where the last pass stopped; the token and search
// phases run on the results waiting in the sessions the pass wrote to
// (those it added or changed). Where the system's
// watch limit leaves folders unwatched, periodic passes over the roots
// cover them, and the status says so.
type Watcher struct {
	db    *DB
	roots []string
	opts  WatchOptions
	wake  chan struct{}

	mu     sync.Mutex
	status WatchStatus
	paused bool
}

// NewWatcher prepares a watcher of roots over d; Run starts it.
func NewWatcher(d *DB, roots []string, opts WatchOptions) *Watcher {
	if opts.Debounce <= 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = 400 * time.Millisecond
	}
	if opts.Every <= 0 {
		opts.Every = 10 * time.Second
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = time.Second
	}
	if opts.Notifier == nil {
		opts.Notifier = NewNotifier
	}
	return &Watcher{db: d, roots: roots, opts: opts, wake: make(chan struct{}, 1), status: WatchStatus{State: WatchStarting}}
}

// Status is what the watcher is doing now.
func (w *Watcher) Status() WatchStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

// SetPaused pauses or resumes indexing. While paused, changes are noted
// (and new folders watched) but not read; resuming reads them.
func (w *Watcher) SetPaused(p bool) {
	w.mu.Lock()
	w.paused = p
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Watcher) isPaused() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.paused
}

// setStatus records the status and reports it when it changed.
func (w *Watcher) setStatus(f func(*WatchStatus)) {
	w.mu.Lock()
	before := w.status
	f(&w.status)
	w.status.Paused = w.paused
	after := w.status
	w.mu.Unlock()
	if after != before && w.opts.OnStatus != nil {
		w.opts.OnStatus(after)
	}
}

// passJob is one pass for the pass goroutine: over paths, or (full) over
// the whole roots.
type passJob struct {
	trigger string
	full    bool
	paths   []string
	// enrichAll runs the token and search phases over everything
	// waiting, not only this pass's results (the catch-up pass).
	enrichAll bool
}

// passDone is what the pass goroutine hands back.
type passDone struct {
	retry []string
}

// watchLoop is the state of Run's loop.
type watchLoop struct {
	w        *Watcher
	n        Notifier
	roots    []string
	dirty    map[string]bool
	retry    map[string]bool
	full     string // the trigger of a whole pass owed, "" for none
	first    time.Time
	last     time.Time
	retryAt  time.Time
	limited  bool
	folders  int
	skipped  int
	periodic *time.Ticker
}

// Run watches until ctx ends; it returns nil then, or an error that
// stopped it from starting (a root that is gone).
func (w *Watcher) Run(ctx context.Context) error {
	roots, err := w.db.CleanRoots(w.roots)
	if err != nil {
		w.setStatus(func(s *WatchStatus) { *s = WatchStatus{State: WatchStopped, Detail: err.Error()} })
		return err
	}
	l := &watchLoop{w: w, roots: roots, dirty: map[string]bool{}, retry: map[string]bool{}}
	var events <-chan fsnotify.Event
	var errs <-chan error
	n, err := w.opts.Notifier()
	if err != nil {
		setting := ""
		if errors.Is(err, syscall.EMFILE) {
			setting = SettingMaxInstances
		}
		w.setStatus(func(s *WatchStatus) {
			*s = WatchStatus{State: WatchPolling, Setting: setting, Detail: err.Error(), EverySeconds: w.opts.Every.Seconds()}
		})
		l.periodic = time.NewTicker(w.opts.Every)
	} else {
		l.n = n
		defer n.Close()
		events, errs = n.Events(), n.Errors()
		for _, r := range roots {
			l.addTree(r, false)
		}
		l.report()
	}
	defer func() {
		if l.periodic != nil {
			l.periodic.Stop()
		}
		w.setStatus(func(s *WatchStatus) { s.State = WatchStopped })
	}()

	jobs := make(chan passJob)
	done := make(chan passDone)
	go func() {
		for j := range jobs {
			done <- w.pass(ctx, roots, j)
		}
	}()
	defer close(jobs)
	running := false
	if w.opts.CatchUp {
		running = true
		jobs <- passJob{trigger: TriggerStart, full: true, enrichAll: w.opts.EnrichWaiting}
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	if l.periodic == nil && l.limited {
		l.periodic = time.NewTicker(w.opts.Every)
	}
	var tick <-chan time.Time
	if l.periodic != nil {
		tick = l.periodic.C
	}
	for {
		select {
		case <-ctx.Done():
			if running {
				<-done
			}
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			l.note(ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Notifications were dropped: only a whole pass knows what
				// changed meanwhile.
				l.owe(TriggerOverflow)
			}
		case <-tick:
			l.owe(TriggerPeriodic)
		case <-timer.C:
		case <-w.wake:
			w.setStatus(func(*WatchStatus) {})
		case d := <-done:
			running = false
			if len(d.retry) > 0 {
				for _, p := range d.retry {
					l.retry[p] = true
				}
				l.retryAt = time.Now().Add(w.opts.RetryDelay)
			}
		}
		if l.periodic == nil && l.limited {
			l.periodic = time.NewTicker(w.opts.Every)
			tick = l.periodic.C
		}
		if running || w.isPaused() {
			continue
		}
		now := time.Now()
		if len(l.retry) > 0 && !now.Before(l.retryAt) {
			for p := range l.retry {
				l.mark(p, now)
			}
			clear(l.retry)
		}
		if j, ok := l.due(now); ok {
			running = true
			jobs <- j
			continue
		}
		if at, ok := l.next(); ok {
			timer.Reset(max(at.Sub(now), time.Millisecond))
		}
	}
}

// note takes one notification: a new folder is watched (with what is
// already in it), anything else is a path to look at again.
func (l *watchLoop) note(ev fsnotify.Event) {
	now := time.Now()
	if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Rename) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if filepath.Base(ev.Name) != ".git" {
				l.addTree(ev.Name, true)
				l.report()
			}
			return
		}
	}
	l.mark(ev.Name, now)
}

// mark notes a changed path.
func (l *watchLoop) mark(p string, now time.Time) {
	if l.full != "" {
		return
	}
	if len(l.dirty) >= maxDirty {
		l.owe(TriggerChange)
		return
	}
	if len(l.dirty) == 0 {
		l.first = now
	}
	l.dirty[p] = true
	l.last = now
}

// owe makes the next pass one over the whole roots.
func (l *watchLoop) owe(trigger string) {
	if l.full == "" {
		l.full = trigger
		l.first = time.Now()
	}
	l.last = time.Now()
	clear(l.dirty)
}

// due is the pass to start now, if one is.
func (l *watchLoop) due(now time.Time) (passJob, bool) {
	at, ok := l.next()
	if !ok || now.Before(at) {
		return passJob{}, false
	}
	if l.full != "" {
		j := passJob{trigger: l.full, full: true}
		l.full = ""
		return j, true
	}
	paths := make([]string, 0, len(l.dirty))
	for p := range l.dirty {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	clear(l.dirty)
	return passJob{trigger: TriggerChange, paths: paths}, true
}

// next is when the owed pass is due: once the files have been quiet for
// Debounce, and never later than MaxDelay after the first change (a
// periodic or overflow pass at once).
func (l *watchLoop) next() (time.Time, bool) {
	o := l.w.opts
	switch {
	case l.full == TriggerPeriodic || l.full == TriggerOverflow:
		return l.first, true
	case l.full != "" || len(l.dirty) > 0:
		return minTime(l.last.Add(o.Debounce), l.first.Add(o.MaxDelay)), true
	case len(l.retry) > 0:
		return l.retryAt, true
	}
	return time.Time{}, false
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// addTree watches dir and every folder under it (a .git folder below
// it excepted, as a pass skips it). A folder that appeared during the
// watch has its files marked: they may have been written before its watch
// was in place. Past the system's limit, folders are counted, not
// watched.
func (l *watchLoop) addTree(dir string, fresh bool) {
	now := time.Now()
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if e != nil && e.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		if !e.IsDir() {
			if fresh && e.Type().IsRegular() {
				l.mark(p, now)
			}
			return nil
		}
		if p != dir && e.Name() == ".git" {
			return fs.SkipDir
		}
		if l.limited {
			l.skipped++
			return nil
		}
		switch err := l.n.Add(p); {
		case err == nil:
			l.folders++
		case errors.Is(err, syscall.ENOSPC):
			// The inotify table is full: said once in the status, and
			// periodic passes cover this folder and every one after it.
			l.limited = true
			l.skipped++
			l.w.setStatus(func(s *WatchStatus) { s.Detail = err.Error() })
		default:
			// A folder that cannot be watched (gone, unreadable) has no
			// files a pass could read either.
		}
		return nil
	})
}

// report publishes the watch's counts.
func (l *watchLoop) report() {
	l.w.setStatus(func(s *WatchStatus) {
		s.Folders, s.Unwatched = l.folders, l.skipped
		s.State = WatchLive
		if l.limited {
			s.State, s.Setting, s.EverySeconds = WatchLimited, SettingMaxWatches, l.w.opts.Every.Seconds()
		}
	})
}

// pass runs one job: the structure phase over its files (or the roots),
// then the token and search phases over the results waiting in the
// sessions it wrote to.
func (w *Watcher) pass(ctx context.Context, roots []string, j passJob) passDone {
	started := time.Now()
	out := WatchPass{Trigger: j.trigger, Files: []string{}, Sessions: []int64{}, Results: []int64{}}
	var retry []string
	seenS, seenR := map[int64]bool{}, map[int64]bool{}
	opts := IndexOptions{OnChange: func(c FileChange) {
		if c.Retry {
			retry = append(retry, c.Path)
			return
		}
		out.Files = append(out.Files, c.Path)
		for _, id := range c.Sessions {
			if !seenS[id] {
				seenS[id] = true
				out.Sessions = append(out.Sessions, id)
			}
		}
		for _, id := range c.Results {
			if !seenR[id] {
				seenR[id] = true
				out.Results = append(out.Results, id)
			}
		}
	}}
	var err error
	if j.full {
		opts.Progress = w.opts.Progress
		_, err = w.db.Index(ctx, roots, opts)
	} else {
		_, err = w.db.IndexFiles(ctx, roots, j.paths, opts)
	}
	if err == nil && out.Changed() {
		out.Totals, err = w.db.Totals(ctx, roots)
		if err == nil && w.opts.OnChange != nil {
			out.Seconds = time.Since(started).Seconds()
			w.opts.OnChange(out)
		}
	}
	if err == nil && !w.opts.SkipEnrich && (out.Changed() || j.enrichAll) {
		eo := w.opts.Enrich
		eo.Sessions = out.Sessions
		if j.enrichAll {
			eo.Sessions = nil
			eo.Progress = w.opts.Progress
		}
		err = w.db.Enrich(ctx, eo)
	}
	if ctx.Err() != nil {
		return passDone{}
	}
	if err != nil {
		out.Error = err.Error()
	}
	out.Seconds = time.Since(started).Seconds()
	if (out.Changed() || out.Error != "" || j.trigger == TriggerStart) && w.opts.OnPass != nil {
		if j.trigger == TriggerStart && !out.Changed() && out.Error == "" {
			out.Totals, _ = w.db.Totals(ctx, roots)
		}
		w.opts.OnPass(out)
	}
	return passDone{retry: retry}
}
