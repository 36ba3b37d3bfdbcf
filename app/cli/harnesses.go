package cli

import (
	"errors"
	"flag"
	"fmt"

	"spillscope/sessions"
)

// runHarnesses prints every registered harness with its default roots on
// this machine and whether they exist, as one JSON object.
func runHarnesses(env Env, args []string) int {
	fs := flag.NewFlagSet("harnesses", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: spillscope harnesses")
		fmt.Fprintln(env.Stderr, "Prints the session formats this build reads: each harness's name (as the index stores it), label,")
		fmt.Fprintln(env.Stderr, "spill-notice kinds, and default roots on this machine with whether they exist (JSON).")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "spillscope harnesses: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	out := struct {
		Harnesses []sessions.HarnessInfo `json:"harnesses"`
	}{sessions.DescribeHarnesses(harnessEnv(env))}
	if err := writeJSON(env.Stdout, out); err != nil {
		return exitFail
	}
	return exitOK
}
