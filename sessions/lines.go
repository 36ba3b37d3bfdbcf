package sessions

import (
	"io"

	"spillscope/sessions/internal/readkit"
)

// LineReader reads newline-terminated lines of any length (readkit's, the
// one line reader every JSONL harness shares). bufio.Scanner stops at 64 KB
// by default and at any fixed cap; a Claude Code line holding a screenshot
// or a 100 MB command output must still be read.
type LineReader = readkit.LineReader

// Line is one line: its bytes without the trailing newline (or "\r\n"),
// where it starts, its 1-based number, its length including the newline,
// whether it ended with a newline, and whether its bytes are a buffer of
// its own (see readkit.Line).
type Line = readkit.Line

// NewLineReader reads r, which starts at byte offset off and line number
// line (1 for the start of a file).
func NewLineReader(r io.Reader, off, line int64) *LineReader {
	return readkit.NewLineReader(r, off, line)
}

// heavyBytes is the size of a line, or of a result's source record or text,
// from which reading it is treated as heavy: the structure pass collects
// such a line as soon as it is read, and the slow phases read such results
// back one at a time (two workers each holding a 50 MB line would double a
// phase's memory for nothing).
const heavyBytes = 16 << 20
