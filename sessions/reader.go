package sessions

import "fmt"

// scanLine is the envelope check every JSONL reader (Claude Code, Codex)
// makes before it looks inside a line. It scans l as one JSON object,
// passing each top-level field to fn, which stores the line's type through
// typ and may stop early once it knows the line is to be skipped. It reports
// false for a blank line, and, having recorded one diagnostic, for a line
// that is not an object or whose type is missing or not in known: a bad line
// never stops the file, and both formats word the fault the same way.
func scanLine(l Line, p *Parsed, known map[string]bool, typ *string, fn func(k []byte, vs, ve int) bool) bool {
	b := l.Bytes
	if skipWS(b, 0) == len(b) {
		return false
	}
	// A stop means fn had what it needed; the rest of the line may be
	// anything, as it is never read.
	if stopped, err := wholeObject(b, fn); err != nil && !stopped {
		p.diag(l.Number, fmt.Sprintf("not a JSON object (%s)", lineStart(b)))
		return false
	}
	switch {
	case *typ == "":
		p.diag(l.Number, `line has no "type"`)
		return false
	case !known[*typ]:
		p.diag(l.Number, fmt.Sprintf("unknown line type %q", *typ))
		return false
	}
	return true
}

// lineStart quotes the first bytes of a bad line so a diagnostic says what
// was there without echoing a whole (possibly secret-bearing) line.
func lineStart(b []byte) string {
	const n = 2
	if len(b) > n {
		b = b[:n]
	}
	return fmt.Sprintf("starts with %q", b)
}

// resultProblems records what did not convert in a tool result's content as
// diagnostics on the result's line, each naming the call.
func resultProblems(p *Parsed, line int64, callID string, problems []string) {
	for _, m := range problems {
		p.diag(line, fmt.Sprintf("tool result %s: %s", callID, m))
	}
}

// splitCached splits an input count that includes its cache reads (as Codex
// and Gemini CLI report it) into the fresh part and the cached part, the way
// Claude reports them. A cached count above the input is held to the input,
// so neither part goes negative.
func splitCached(in, cached int64) (fresh, read int64) {
	if cached > in {
		cached = in
	}
	return in - cached, cached
}
