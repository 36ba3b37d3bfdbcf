package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"spillscope/sessions/samplegen"
)

const sampleUsage = `usage: spillscope sample --out DIR [--seed N] [--scale N] [--screenshot-bytes SIZE]
       spillscope sample --out DIR --bench-bytes SIZE [--replicate DIR] [--seed N]
       spillscope sample --out DIR --sessions N --results M [--seed N]

Writes invented agent sessions (Claude Code, Codex CLI, Gemini CLI and
spillscope's own spill layout, with large results, screenshots, signed and
plain links, spill files and a few bad lines) under DIR, and prints the
manifest of what it wrote as one JSON object. The same seed gives the same
files. DIR must not exist or be empty: the command never writes into a
folder that already holds files.

With --bench-bytes it builds a benchmark corpus of about SIZE bytes (e.g.
1GB): the sample once, then rounds of a copy of every Claude Code log under
--replicate (e.g. ../shared/fixtures/real/claude/projects), each with new
session, message, request and tool-use ids, and a generated session of
screenshots.

With --sessions and --results it writes an index of that shape instead: N
Claude Code sessions holding M small tool results between them (some
subagents and spill notices), for measuring the window's lists at scale
(e.g. --sessions 10000 --results 100000).

Flags:
`

// runSample writes the sample corpus or a benchmark corpus.
func runSample(env Env, args []string) int {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "folder to write (must not exist or be empty)")
	seed := fs.Int64("seed", 1, "seed; the same seed writes the same bytes")
	scale := fs.Int("scale", 1, "multiply the number of sessions of each kind")
	shot := fs.String("screenshot-bytes", "", "approximate size of each screenshot (default 24KiB; 500KiB in a bench corpus)")
	benchBytes := fs.String("bench-bytes", "", "build a benchmark corpus of about this size (e.g. 1GB) instead of the sample")
	replicate := fs.String("replicate", "", "folder of Claude Code projects to replicate into the benchmark corpus")
	shapeSessions := fs.Int("sessions", 0, "write this many sessions (with --results) instead of the sample")
	shapeResults := fs.Int("results", 0, "tool results spread over the --sessions sessions")
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "spillscope sample: "+format+"\n", a...)
		fmt.Fprintln(env.Stderr, "Run 'spillscope sample -h' for usage.")
		return exitUsage
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, sampleUsage)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		return exitOK
	}
	if err != nil {
		return usageErr("%v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q (the folder goes in --out)", fs.Arg(0))
	}
	if *out == "" {
		return usageErr("--out DIR is required")
	}
	if *scale < 1 {
		return usageErr("--scale must be 1 or more, got %d", *scale)
	}
	shotBytes := 0
	if *shot != "" {
		n, err := samplegen.ParseSize(*shot)
		if err != nil || n < 1 || n > 64<<20 {
			return usageErr("--screenshot-bytes %q: want a size between 1B and 64MiB", *shot)
		}
		shotBytes = int(n)
	}
	if *replicate != "" && *benchBytes == "" {
		return usageErr("--replicate needs --bench-bytes")
	}
	if *replicate != "" {
		if info, err := os.Stat(*replicate); err != nil || !info.IsDir() {
			return usageErr("--replicate %q is not a readable folder", *replicate)
		}
	}
	var target int64
	if *benchBytes != "" {
		n, err := samplegen.ParseSize(*benchBytes)
		if err != nil || n < 1 {
			return usageErr("--bench-bytes %q: want a size such as 500MB or 1GB", *benchBytes)
		}
		if *scale != 1 {
			return usageErr("--scale applies to the sample, not to a bench corpus (its size is --bench-bytes)")
		}
		target = n
	}
	shape := *shapeSessions != 0 || *shapeResults != 0
	if shape {
		if *benchBytes != "" || *scale != 1 || *shot != "" {
			return usageErr("--sessions and --results make their own corpus; drop --bench-bytes, --scale and --screenshot-bytes")
		}
		if *shapeSessions < 1 || *shapeResults < *shapeSessions {
			return usageErr("--sessions %d --results %d: want at least 1 session and at least as many results as sessions", *shapeSessions, *shapeResults)
		}
	}
	// Check before anything is written, so a refusal leaves no trace.
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		fmt.Fprintf(env.Stderr, "spillscope sample: %s already holds files; choose a new or empty folder (nothing was written)\n", *out)
		return exitFail
	}

	var m samplegen.Manifest
	if shape {
		m, err = samplegen.GenerateShape(*out, samplegen.ShapeOptions{Sessions: *shapeSessions, Results: *shapeResults, Seed: *seed})
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sample: %v\n", err)
			return exitFail
		}
	} else if target > 0 {
		opts := samplegen.BenchOptions{TargetBytes: target, ReplicateFrom: *replicate, Seed: *seed, ScreenshotBytes: shotBytes}
		if env.StderrIsTerminal {
			start := time.Now()
			opts.Progress = func(written, target int64) {
				fmt.Fprintf(env.Stderr, "\rspillscope sample: %d / %d MB (%.0f MB/s)   ", written>>20, target>>20,
					float64(written)/(1<<20)/max(time.Since(start).Seconds(), 0.001))
			}
		}
		m, err = samplegen.GenerateBenchCorpus(*out, opts)
		if env.StderrIsTerminal {
			fmt.Fprintln(env.Stderr)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sample: %v\n", err)
			return exitFail
		}
	} else {
		m, err = samplegen.Generate(*out, samplegen.Options{Seed: *seed, Scale: *scale, ScreenshotBytes: shotBytes})
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sample: %v\n", err)
			return exitFail
		}
	}
	if err := writeJSON(env.Stdout, m); err != nil {
		fmt.Fprintf(env.Stderr, "spillscope sample: %v\n", err)
		return exitFail
	}
	return exitOK
}
