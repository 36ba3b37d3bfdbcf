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
       spillscope sample --out DIR --hostile [--sessions N] [--huge-line-bytes SIZE] [--sparse-bytes SIZE] [--images N] [--seed N]
       spillscope sample --out DIR --sessions N --results M [--seed N]

Writes invented agent sessions (Claude Code, Codex CLI, Gemini CLI, OpenCode,
GitHub Copilot CLI, goose and spillscope's own spill layout, with large
results, screenshots, signed and
plain links, spill files and a few bad lines) under DIR, and prints the
manifest of what it wrote as one JSON object. The same seed gives the same
files. DIR must not exist or be empty: the command never writes into a
folder that already holds files.

With --bench-bytes it builds a benchmark corpus of about SIZE bytes (e.g.
1GB): the sample once, then rounds of a copy of every Claude Code log under
--replicate (e.g. ../shared/fixtures/real/claude/projects), each with new
session, message, request and tool-use ids, and a generated session of
screenshots.

With --hostile it writes a session folder written to be hostile: forged
spill notices naming /etc/shadow, /proc/self/environ, ~/.aws/credentials,
../../ paths and another session's spill file; credential URLs of every
family in every spelling with known values; script and HTML text; a result
of 200 images; two 50 MB single lines; a 2 GB sparse spill file; and, with
--sessions 10000, that many small sessions. Its manifest lists every secret
value it planted (none may reach the screen unless revealed). --huge-line-bytes
0 and --sparse-bytes 0 leave those parts out.

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
	hostileMode := fs.Bool("hostile", false, "write the hostile corpus instead of the sample")
	sessionsN := fs.Int("sessions", 0, "with --hostile: add this many small sessions (e.g. 10000); with --results: write this many sessions")
	shapeResults := fs.Int("results", 0, "write --sessions sessions holding this many tool results between them, instead of the sample")
	hugeLine := fs.String("huge-line-bytes", "50MB", "with --hostile: size of each huge single-line result (0 for none)")
	sparse := fs.String("sparse-bytes", "2GB", "with --hostile: size of the sparse spill file (0 for none)")
	images := fs.Int("images", samplegen.DefaultHostileImages, "with --hostile: images in the many-images result")
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
	var hostileOpts samplegen.HostileOptions
	if *hostileMode {
		if *benchBytes != "" || *scale != 1 || *shot != "" {
			return usageErr("--hostile writes its own corpus; it takes no --bench-bytes, --scale or --screenshot-bytes")
		}
		if *sessionsN < 0 || *sessionsN > 1_000_000 || *images < 1 || *images > 10_000 {
			return usageErr("--sessions %d / --images %d: want 0..1000000 sessions and 1..10000 images", *sessionsN, *images)
		}
		hl, err := samplegen.ParseSize(*hugeLine)
		if err != nil || hl < 0 || hl > 1<<30 {
			return usageErr("--huge-line-bytes %q: want a size up to 1GiB, or 0", *hugeLine)
		}
		sp, err := samplegen.ParseSize(*sparse)
		if err != nil || sp < 0 || sp > 1<<40 {
			return usageErr("--sparse-bytes %q: want a size up to 1TiB, or 0", *sparse)
		}
		hostileOpts = samplegen.HostileOptions{Seed: *seed, Sessions: *sessionsN, HugeLineBytes: int(hl), SparseBytes: sp, Images: *images}
		if hl == 0 {
			hostileOpts.HugeLineBytes = -1
		}
		if sp == 0 {
			hostileOpts.SparseBytes = -1
		}
	} else {
		var misplaced string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "huge-line-bytes", "sparse-bytes", "images":
				misplaced = f.Name
			}
		})
		if misplaced != "" {
			return usageErr("--%s applies to --hostile", misplaced)
		}
	}
	shape := !*hostileMode && (*sessionsN != 0 || *shapeResults != 0)
	if shape {
		if *benchBytes != "" || *scale != 1 || *shot != "" {
			return usageErr("--sessions and --results make their own corpus; drop --bench-bytes, --scale and --screenshot-bytes")
		}
		if *sessionsN < 1 || *shapeResults < *sessionsN {
			return usageErr("--sessions %d --results %d: want at least 1 session and at least as many results as sessions", *sessionsN, *shapeResults)
		}
	} else if *hostileMode && *shapeResults != 0 {
		return usageErr("--results applies to --sessions without --hostile")
	}
	// Check before anything is written, so a refusal leaves no trace.
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		fmt.Fprintf(env.Stderr, "spillscope sample: %s already holds files; choose a new or empty folder (nothing was written)\n", *out)
		return exitFail
	}

	if *hostileMode {
		hm, err := samplegen.GenerateHostile(*out, hostileOpts)
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sample: %v\n", err)
			return exitFail
		}
		if err := writeJSON(env.Stdout, hm); err != nil {
			fmt.Fprintf(env.Stderr, "spillscope sample: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	var m samplegen.Manifest
	if shape {
		m, err = samplegen.GenerateShape(*out, samplegen.ShapeOptions{Sessions: *sessionsN, Results: *shapeResults, Seed: *seed})
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
