package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"spillscope/sessions"
)

// harnessEnv is the harnesses' view of the machine, through env.Getenv.
func harnessEnv(env Env) sessions.Env { return sessions.Env{Getenv: env.Getenv} }

// rootsFrom spells the ROOT arguments as the indexer does, or gives every
// registered harness's default roots that exist here.
func rootsFrom(env Env, args []string) ([]string, error) {
	if len(args) == 0 {
		return sessions.DefaultRoots(harnessEnv(env)), nil
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		r, err := sessions.NormalizeRoot(a, harnessEnv(env))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// defaultRootsText names the default roots for usage and error messages.
func defaultRootsText(env Env) string {
	var names []string
	for _, h := range sessions.DescribeHarnesses(harnessEnv(env)) {
		for _, r := range h.Roots {
			names = append(names, r.Path)
		}
	}
	return strings.Join(names, ", ")
}

// dbPathOf is the --db path or the app's own database.
func dbPathOf(env Env, path string) (string, error) {
	if path != "" {
		return path, nil
	}
	return sessions.DefaultDBPath(env.Getenv)
}

// runIndex indexes session folders and prints what the index holds for them.
func runIndex(env Env, args []string) int {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	dbPath := fs.String("db", "", "database file (default: the app's own, index.db in $SPILLSCOPE_DATA_DIR or $XDG_DATA_HOME/spillscope)")
	structureOnly := fs.Bool("structure-only", false, "skip the token-estimate and full-text phases")
	watch := fs.Bool("watch", false, "after the pass, keep watching the folders and index what changes, one JSON line per pass, until SIGINT or SIGTERM")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: spillscope index [--db PATH] [--structure-only] [--watch] [ROOT...]")
		fmt.Fprintf(env.Stderr, "Indexes agent session folders (default: each harness's own, where they exist: %s)\n", defaultRootsText(env))
		fmt.Fprintln(env.Stderr, "and prints one JSON object with what the index holds for them, in all and per harness (perHarness).")
		fmt.Fprintln(env.Stderr, "With --watch it watches them and prints one JSON object per pass instead: what triggered it")
		fmt.Fprintln(env.Stderr, "(start, change, periodic, overflow), the files, session and result rows it changed, and the")
		fmt.Fprintln(env.Stderr, "totals after it (the same object as without --watch), until SIGINT or SIGTERM.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	roots, err := rootsFrom(env, fs.Args())
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope index: %v\n", err)
		return exitUsage
	}
	if len(roots) == 0 {
		fmt.Fprintf(env.Stderr, "spillscope index: no session folders found (%s); pass ROOT folders to index others\n", defaultRootsText(env))
	}
	path, err := dbPathOf(env, *dbPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope index: %v\n", err)
		return exitFail
	}
	// Checked before opening: opening creates the file.
	if err := sessions.CheckDBPath(path, roots); err != nil {
		fmt.Fprintf(env.Stderr, "spillscope index: %v\n", err)
		if errors.Is(err, sessions.ErrDBInsideRoot) {
			return exitUsage
		}
		return exitFail
	}
	db, err := sessions.Open(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope index: %v\n", err)
		return exitFail
	}
	defer db.Close()
	db.SetEnv(harnessEnv(env))
	if *watch {
		return watchIndex(env, db, roots, *structureOnly)
	}
	started := time.Now()
	ctx := context.Background()
	bar := newProgressBar(env)
	var sum sessions.Summary
	withHeapFloor(structureHeapFloor, func() {
		sum, err = db.Index(ctx, roots, sessions.IndexOptions{Progress: bar.show})
	})
	bar.done()
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope index: %v\n", err)
		if errors.Is(err, sessions.ErrDBInsideRoot) {
			return exitUsage
		}
		return exitFail
	}
	if !*structureOnly {
		if err := db.Enrich(ctx, sessions.EnrichOptions{Progress: bar.show}); err != nil {
			bar.done()
			fmt.Fprintf(env.Stderr, "spillscope index: %v\n", err)
			return exitFail
		}
		bar.done()
	}
	sum.Seconds = time.Since(started).Seconds()
	if err := writeJSON(env.Stdout, sum); err != nil {
		return exitFail
	}
	return exitOK
}

// watchIndex watches roots and keeps their index up to date until the
// context (or SIGINT, SIGTERM) ends: the folders are watched first, then
// a pass over the roots (trigger "start") catches up, so nothing written
// between the two is missed. Each pass that changed something (and the
// first) is one JSON line; a watch limit reached is said once on stderr.
func watchIndex(env Env, db *sessions.DB, roots []string, structureOnly bool) int {
	ctx, stop := watchContext(env)
	defer stop()
	var mu sync.Mutex
	failed := false
	said := ""
	bar := newProgressBar(env)
	w := sessions.NewWatcher(db, roots, sessions.WatchOptions{
		CatchUp:       true,
		EnrichWaiting: true,
		SkipEnrich:    structureOnly,
		Progress:      bar.show,
		OnPass: func(p sessions.WatchPass) {
			mu.Lock()
			defer mu.Unlock()
			bar.done()
			if writeJSON(env.Stdout, p) != nil {
				failed = true
			}
		},
		OnStatus: func(s sessions.WatchStatus) {
			mu.Lock()
			defer mu.Unlock()
			if line := watchLimitLine(s); line != "" && s.State != said {
				said = s.State
				fmt.Fprintln(env.Stderr, line)
			}
		},
	})
	if err := w.Run(ctx); err != nil {
		fmt.Fprintf(env.Stderr, "spillscope index: %v\n", err)
		return exitFail
	}
	mu.Lock()
	defer mu.Unlock()
	if failed {
		return exitFail
	}
	return exitOK
}

// watchContext is env.Context, or one SIGINT and SIGTERM end.
func watchContext(env Env) (context.Context, context.CancelFunc) {
	if env.Context != nil {
		return context.WithCancel(env.Context)
	}
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// watchLimitLine words a watch that cannot see every folder, naming the
// setting that would let it and how to raise it; "" for a full watch.
func watchLimitLine(s sessions.WatchStatus) string {
	raise := ""
	if s.Setting != "" {
		raise = fmt.Sprintf("; raise %s (sudo sysctl %s=524288, and a line in /etc/sysctl.d/ to keep it) and restart to watch them all", s.Setting, s.Setting)
	}
	switch s.State {
	case sessions.WatchLimited:
		return fmt.Sprintf("spillscope index: the system's inotify watch limit is reached: %d folders are watched, the others are re-read every %gs%s (%s)",
			s.Folders, s.EverySeconds, raise, s.Detail)
	case sessions.WatchPolling:
		return fmt.Sprintf("spillscope index: no file notifications (%s): every folder is re-read every %gs%s", s.Detail, s.EverySeconds, raise)
	}
	return ""
}

// progressBar draws one status line on stderr, only on a terminal.
type progressBar struct {
	w    io.Writer
	on   bool
	last time.Time
	drew bool
}

func newProgressBar(env Env) *progressBar {
	return &progressBar{w: env.Stderr, on: env.StderrIsTerminal}
}

func (b *progressBar) show(p sessions.Progress) {
	if !b.on {
		return
	}
	final := (p.FilesTotal > 0 && p.Files == p.FilesTotal) || (p.ItemsTotal > 0 && p.Items == p.ItemsTotal)
	if !final && time.Since(b.last) < 100*time.Millisecond {
		return
	}
	b.last = time.Now()
	b.drew = true
	switch p.Phase {
	case sessions.PhaseStructure:
		fmt.Fprintf(b.w, "\r\x1b[K%s %s %d/%d files  %.1f/%.1f MB  %.1f MB/s",
			p.Phase, bar(p.Bytes, p.BytesTotal), p.Files, p.FilesTotal, mb(p.Bytes), mb(p.BytesTotal), mb(int64(p.Rate())))
	default:
		rate := 0.0
		if p.Elapsed > 0 {
			rate = float64(p.Items) / p.Elapsed.Seconds()
		}
		fmt.Fprintf(b.w, "\r\x1b[K%s %s %d/%d results  %.0f/s",
			p.Phase, bar(int64(p.Items), int64(p.ItemsTotal)), p.Items, p.ItemsTotal, rate)
	}
}

func (b *progressBar) done() {
	if b.on && b.drew {
		fmt.Fprintln(b.w)
		b.drew = false
	}
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func bar(n, total int64) string {
	const width = 24
	fill := 0
	if total > 0 {
		fill = int(n * width / total)
	}
	fill = min(max(fill, 0), width)
	out := make([]byte, 0, width+2)
	out = append(out, '[')
	for i := 0; i < width; i++ {
		if i < fill {
			out = append(out, '#')
		} else {
			out = append(out, '.')
		}
	}
	return string(append(out, ']'))
}
