package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"spillscope/app"
	"spillscope/sessions"
)

// The window's lists and result view as JSON: `sessions`, `results` and
// `show` read through the bound services themselves (app.Sessions), so
// every row, figure, mask and file verdict is the window's.

// viewStore opens the index the window would open (its configuration from
// the environment: the same roots for the file rule), or the one --db
// names, for reading: an index that is not there is an error, not a new
// empty file.
func viewStore(env Env, dbPath string) (*app.Store, error) {
	cfg, err := app.ConfigFromEnv(env.Getenv)
	if err != nil {
		return nil, err
	}
	path, err := dbPathOf(env, dbPath)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no index at %s (run 'spillscope index' first, or give --db): %w", path, err)
	}
	cfg.DBPath = path
	return app.NewStore(cfg, nil), nil
}

// viewCommand is what the view subcommands share: a flag set writing its
// usage to stderr, a failure printer naming the subcommand, and flags that
// may follow the positional arguments ("show 12 --reveal").
type viewCommand struct {
	name string
	env  Env
	fs   *flag.FlagSet
	db   *string
}

func newViewCommand(env Env, name, usage, about string) *viewCommand {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	c := &viewCommand{name: name, env: env, fs: fs}
	c.db = fs.String("db", "", "database file (default: the app's own, index.db in $SPILLSCOPE_DATA_DIR or $XDG_DATA_HOME/spillscope)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: "+usage)
		fmt.Fprintln(env.Stderr, about)
		fs.PrintDefaults()
	}
	return c
}

// parse reads flags wherever they stand and returns the positional
// arguments; done reports -h (exit 0) or a usage error (exit 2).
func (c *viewCommand) parse(args []string) (pos []string, code int, done bool) {
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, true
			}
			return nil, exitUsage, true
		}
		if c.fs.NArg() == 0 {
			return pos, 0, false
		}
		pos = append(pos, c.fs.Arg(0))
		args = c.fs.Args()[1:]
	}
}

// fail prints an error naming the subcommand and returns code.
func (c *viewCommand) fail(code int, format string, a ...any) int {
	fmt.Fprintf(c.env.Stderr, "spillscope %s: "+format+"\n", append([]any{c.name}, a...)...)
	if code == exitUsage {
		fmt.Fprintf(c.env.Stderr, "Run 'spillscope %s -h' for usage.\n", c.name)
	}
	return code
}

// open opens the index for the subcommand.
func (c *viewCommand) open() (*app.Store, error) { return viewStore(c.env, *c.db) }

// sessionPage is how many session rows one call of the window's list reads.
const sessionPage = app.MaxPage

// runSessions prints every indexed session row, one JSON object per line.
func runSessions(env Env, args []string) int {
	c := newViewCommand(env, "sessions", "spillscope sessions [--db PATH] [--harness NAME] [--order tokens]",
		"Prints every indexed session as the window's sessions list has it, one JSON object per line: id (the row id\n"+
			"'results --session' takes), harness, sessionId, project, model, route, started, ended, toolResults, images,\n"+
			"spillNotices, textBytes, provider usage, tokens and tokensExact (false while some result is approximated).")
	harness := c.fs.String("harness", "", "only this harness's sessions (a name 'spillscope harnesses' lists)")
	order := c.fs.String("order", "", `"tokens" for most tokens first (default: newest first)`)
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return c.fail(exitUsage, "unexpected argument %q", pos[0])
	}
	if *order != "" && *order != string(sessions.OrderTokens) {
		return c.fail(exitUsage, "--order %q: want tokens (or leave it out for newest first)", *order)
	}
	if *harness != "" {
		if _, ok := sessions.LookupHarness(*harness); !ok {
			return c.fail(exitUsage, "--harness %q: not a harness this build reads (see 'spillscope harnesses')", *harness)
		}
	}
	store, err := c.open()
	if err != nil {
		return c.fail(exitFail, "%v", err)
	}
	defer store.Close()
	svc := app.NewSessions(store)
	for offset := 0; ; offset += sessionPage {
		page, err := svc.List(app.SessionQuery{Harness: *harness, Order: *order, Limit: sessionPage, Offset: offset})
		if err != nil {
			return c.fail(exitFail, "%v", err)
		}
		rows := page.Rows
		for _, r := range rows {
			if err := writeJSON(env.Stdout, r); err != nil {
				return exitFail
			}
		}
		if len(rows) < sessionPage {
			return exitOK
		}
	}
}

// runResults prints every tool result row of the index or of one session,
// one JSON object per line.
func runResults(env Env, args []string) int {
	c := newViewCommand(env, "results", "spillscope results [--db PATH] [--session ID] [--order tokens]",
		"Prints every indexed tool result as the window's lists have it, one JSON object per line: id (what 'show'\n"+
			"and 'retain --result' take), sessionId, tool, callId, time, textBytes, images, tokens and tokensExact\n"+
			"(false while tokens is a size-based approximation), estimatedTokens, the spill notice and its file's state,\n"+
			"file and line.")
	session := c.fs.String("session", "", "only this session: a row id from 'spillscope sessions' (its id), or a harness session id\n(every transcript sharing it, subagents included)")
	order := c.fs.String("order", "", `"tokens" for most tokens first (default: source order)`)
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return c.fail(exitUsage, "unexpected argument %q", pos[0])
	}
	if *order != "" && *order != string(sessions.OrderTokens) {
		return c.fail(exitUsage, "--order %q: want tokens (or leave it out for source order)", *order)
	}
	q := app.ResultListQuery{Order: *order}
	if s := strings.TrimSpace(*session); s != "" {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			if id <= 0 {
				return c.fail(exitUsage, "--session %q: a row id is a positive number", *session)
			}
			q.SessionID = id
		} else {
			q.HarnessSessionID = s
		}
	} else if *session != "" {
		return c.fail(exitUsage, "--session %q: give a session's row id or harness session id", *session)
	}
	store, err := c.open()
	if err != nil {
		return c.fail(exitFail, "%v", err)
	}
	defer store.Close()
	svc := app.NewSessions(store)
	rows, err := svc.ResultList(q)
	if err != nil {
		return c.fail(exitFail, "%v", err)
	}
	if len(rows) == 0 && *session != "" && !sessionExists(svc, q) {
		return c.fail(exitFail, "--session %q: no such session in the index", *session)
	}
	for _, r := range rows {
		if err := writeJSON(env.Stdout, r); err != nil {
			return exitFail
		}
	}
	return exitOK
}

// sessionExists tells an empty session from an id the index does not have.
func sessionExists(svc *app.Sessions, q app.ResultListQuery) bool {
	for offset := 0; ; offset += sessionPage {
		page, err := svc.List(app.SessionQuery{Limit: sessionPage, Offset: offset})
		if err != nil {
			return false
		}
		rows := page.Rows
		for _, r := range rows {
			if r.ID == q.SessionID || q.HarnessSessionID != "" && r.SessionID == q.HarnessSessionID {
				return true
			}
		}
		if len(rows) < sessionPage {
			return false
		}
	}
}

// firstPage is how much of a spill file `show` prints: the window's first
// page (FILE_PAGE in frontend/src/stores/result.ts).
const firstPage = 64 << 10

// showOutput is what the result view shows: the header's row and session,
// the recorded blocks (credentials masked unless revealed), and the spill
// file as the file pane has it.
type showOutput struct {
	app.ResultDetail
	// Spill is the file rule's verdict on the spill file the result's text
	// names (state, path, detail) with its first page when it may be
	// opened; null for a result that names none.
	Spill *app.FileSlice `json:"spill"`
}

// runShow prints one result as the result view shows it.
func runShow(env Env, args []string) int {
	c := newViewCommand(env, "show", "spillscope show ID [--reveal] [--db PATH]",
		"Prints tool result ID (an id from 'spillscope results') as the window's result view shows it, as one JSON\n"+
			"object: row and session (the header's figures), blocks (the recorded content, each text shortened as the\n"+
			"window shows it, credential values masked unless --reveal), route, estimator, masked, revealed, and spill:\n"+
			"the spill file's state by the file rule (exists, missing, outside: not opened, unreadable), its path, and\n"+
			"its first page when it may be opened (null when the result names no spill file).")
	reveal := c.fs.Bool("reveal", false, "show credential values instead of masking them")
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return c.fail(exitUsage, "give one result ID (got %d arguments)", len(pos))
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return c.fail(exitUsage, "result ID %q is not a positive number", pos[0])
	}
	store, err := c.open()
	if err != nil {
		return c.fail(exitFail, "%v", err)
	}
	defer store.Close()
	svc := app.NewSessions(store)
	d, err := svc.Result(app.ResultQuery{ID: id, Reveal: *reveal})
	if err != nil {
		return c.fail(exitFail, "result ID %d: %v", id, err)
	}
	out := showOutput{ResultDetail: d}
	if d.Row.NoticeKind != "" {
		sl, err := svc.SpillFile(app.SpillQuery{ResultID: id, Limit: firstPage, Reveal: *reveal})
		if err != nil {
			return c.fail(exitFail, "result ID %d: spill file: %v", id, err)
		}
		out.Spill = &sl
	}
	if err := writeJSON(env.Stdout, out); err != nil {
		return exitFail
	}
	return exitOK
}
