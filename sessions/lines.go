package sessions

import (
	"io"

	"spillscope/sessions/internal/readkit"
)

// LineReader reads newline-terminated lines of any length. bufio.Scanner
// stops at 64 KB by default and at any fixed cap; a Claude Code line holding
// a screenshot or a 100 MB command output must still be read. It is the one
// line reader every harness shares (readkit's).
type LineReader = readkit.LineReader

// Line is one line: its bytes without the trailing newline (or "\r\n"),
// where it starts, its 1-based number, its length including the newline, and
// whether it ended with a newline (false only for the last bytes of the
// input, which a writer may still be appending to).
type Line = readkit.Line

// NewLineReader reads r, which starts at byte offset off and line number
// line (1 for the start of a file).
func NewLineReader(r io.Reader, off, line int64) *LineReader {
	return readkit.NewLineReader(r, off, line)
}
