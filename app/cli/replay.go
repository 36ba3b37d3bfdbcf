package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"spillscope/sessions"
)

const replayUsage = `usage: spillscope retain --result ID --replay [--budget N] [--db PATH]

Replays an indexed tool result's recorded retention decision as recorded:
the policy and era its spill notice shows, the notice's locator and hint,
the harness's estimator (dsh-meter for dsh) and the session's route, with
the spill file's text (read through the file rule) as the original. dsh
logs no budget: without --budget the shipped default is tried and, where
it does not reproduce, the range of budgets that does is searched for.
Prints one JSON object: reproduced (true when the replay gives the recorded
model-facing content byte for byte), budget, budgetUnit, budgetSource
(given, default or range), budgetRange {min,max}, difference {block,
offset, reason, recorded, replayed} (where it first differs; excerpts
masked), policy, tried, estimator, route, notice, omittedBytes,
omittedImages, spillPath, spillState, and replayable with a reason when
there is nothing to replay from (no notice, the spill file missing or in
another session's folder).

Flags:
`

// replayOutput is what `retain --result ID --replay` prints.
type replayOutput struct {
	ResultID int64 `json:"resultId"`
	sessions.ReplaySummary
}

// isReplay says whether a retain command asks for a replay; it then runs
// runRetainReplay, which reads an indexed result instead of stdin.
func isReplay(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--replay" || a == "-replay" || a == "--replay=true" || a == "-replay=true" {
			return true
		}
	}
	return false
}

// runRetainReplay replays an indexed result as recorded.
func runRetainReplay(env Env, args []string) int {
	fs := flag.NewFlagSet("retain", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	id := fs.Int64("result", 0, "the indexed result's id (as the window and the results list show it)")
	fs.Bool("replay", false, "replay the result's recorded decision")
	dbPath := fs.String("db", "", "database file (default: the app's own)")
	var bud budgetFlag
	fs.Var(&bud, "budget", "replay at this budget, in the policy's own unit (default: the shipped default, then the range that reproduces)")
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "spillscope retain: "+format+"\n", a...)
		if code == exitUsage {
			fmt.Fprintln(env.Stderr, "Run 'spillscope retain --replay -h' for usage.")
		}
		return code
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, replayUsage)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		return exitOK
	}
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if fs.NArg() > 0 {
		return fail(exitUsage, "unexpected argument %q", fs.Arg(0))
	}
	if *id <= 0 {
		return fail(exitUsage, "--replay needs --result ID (an indexed result's id)")
	}
	var budget *int64
	if bud.set {
		n, err := parseBudget(bud.raw)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		budget = &n
	}
	path, err := dbPathOf(env, *dbPath)
	if err != nil {
		return fail(exitFail, "%v", err)
	}
	if _, err := os.Stat(path); err != nil {
		return fail(exitFail, "no index at %s (run 'spillscope index' first): %v", path, err)
	}
	db, err := sessions.Open(path)
	if err != nil {
		return fail(exitFail, "%v", err)
	}
	defer db.Close()
	db.SetEnv(harnessEnv(env))
	rep, err := db.Replay(context.Background(), *id, sessions.ReplayOptions{Budget: budget})
	if errors.Is(err, sessions.ErrNotFound) {
		return fail(exitFail, "no indexed result %d", *id)
	}
	if err != nil {
		return fail(exitFail, "%v", err)
	}
	if err := writeJSON(env.Stdout, replayJSON(*id, rep)); err != nil {
		return fail(exitFail, "%v", err)
	}
	return exitOK
}

func replayJSON(id int64, rep sessions.Replay) replayOutput {
	return replayOutput{ResultID: id, ReplaySummary: rep.Summary()}
}
