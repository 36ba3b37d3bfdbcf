// Package cli runs spillscope's headless subcommands. It composes retention
// and sessions exactly as the window's services do, so a figure printed here
// is the figure the app shows. Nothing here initialises GTK or needs a display.
package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"spillscope/app"
)

// Env is what a subcommand reads and writes; tests pass buffers.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StderrIsTerminal turns on progress bars.
	StderrIsTerminal bool
	// Getenv looks up environment variables (XDG paths); nil means os.Getenv.
	Getenv func(string) string
	// Context ends a subcommand that runs until stopped (index --watch);
	// nil means SIGINT or SIGTERM ends it.
	Context context.Context
}

type command struct {
	summary string
	run     func(env Env, args []string) int
}

// Exit codes: 0 success, 1 a failure while running, 2 a usage error.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func commands() map[string]command {
	return map[string]command{
		"retain":    {"run the retention decision on one tool result (from stdin, or an indexed one)", runRetain},
		"price":     {"print the image token price of each image file on a route", runPrice},
		"tokens":    {"print the text token estimate of files or stdin", runTokens},
		"links":     {"classify URIs as a tool result's resource_link would be shown", runLinks},
		"index":     {"index agent session folders into the database", runIndex},
		"harnesses": {"list the session formats this build reads and their default roots here", runHarnesses},
		"sweep":     {"re-run retention on indexed results at many budgets", runSweep},
		"compare":   {"run several retention policies on one result, priced on one yardstick", runCompare},
		"sample":    {"write the bundled sample sessions (and benchmark corpora) to a folder", runSample},
		"export":    {app.ExportSummary, func(env Env, args []string) int { return app.RunExport(env.Stdout, env.Stderr, env.Getenv, args) }},
		"sessions":  {"print every indexed session as the window lists it (JSON lines)", runSessions},
		"results":   {"print every indexed tool result, or one session's, as the window lists them (JSON lines)", runResults},
		"show":      {"print one indexed tool result as the window's result view shows it", runShow},
		"timeline":  {"print how one session's context grew, call by call, as the window's timeline draws it (JSON)", runTimeline},
	}
}

// Headless reports whether args (without the program name) are for the
// CLI rather than the window, so main can decide before any GUI code runs:
// a subcommand, a help or version flag, or any other bare word, which Run
// answers as an unknown subcommand instead of opening a window the user did
// not ask for. Flags (a dev build's -devserver and -assetdir) and no
// arguments open the window.
func Headless(args []string) bool {
	if len(args) == 0 {
		return false
	}
	return IsSubcommand(args[0]) || !strings.HasPrefix(args[0], "-")
}

// IsSubcommand reports whether name is one of the headless subcommands (or a
// help flag).
func IsSubcommand(name string) bool {
	if name == "-h" || name == "--help" || name == "help" || name == "version" || name == "--version" {
		return true
	}
	_, ok := commands()[name]
	return ok
}

// Run dispatches args (without the program name) and returns the exit code.
func Run(env Env, args []string) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stdout, commands())
		return exitOK
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(env.Stdout, Version)
		return exitOK
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "spillscope: unknown subcommand %q\n", args[0])
		usage(env.Stderr, commands())
		return exitUsage
	}
	return cmd.run(env, args[1:])
}

// Version is the application version (the window's).
const Version = app.Version

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: spillscope [SUBCOMMAND] [FLAGS]")
	fmt.Fprintln(w, "With no subcommand, spillscope opens the desktop app.")
	fmt.Fprintln(w, "\nSubcommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'spillscope SUBCOMMAND -h' for a subcommand's flags.")
}

// writeJSON prints v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
