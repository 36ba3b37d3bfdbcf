package sessions

import (
	"bufio"
	"errors"
	"io"
)

// LineReader reads newline-terminated lines of any length. bufio.Scanner
// stops at 64 KB by default and at any fixed cap; a Claude Code line holding
// a screenshot or a 100 MB command output must still be read, so lines are
// accumulated from ReadSlice chunks instead.
type LineReader struct {
	r    *bufio.Reader
	buf  []byte
	off  int64 // byte offset of the next line
	line int64 // 1-based number of the next line
}

// NewLineReader reads r, which starts at byte offset off and line number
// line (1 for the start of a file).
func NewLineReader(r io.Reader, off, line int64) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 256<<10), off: off, line: line}
}

// Line is one line: its bytes without the trailing newline (or "\r\n"),
// where it starts, its 1-based number, its length including the newline, and
// whether it ended with a newline (false only for the last bytes of the
// input, which a writer may still be appending to).
type Line struct {
	Bytes    []byte
	Offset   int64
	Number   int64
	Length   int64
	Complete bool
}

// Next returns the next line; io.EOF after the last one. The returned bytes
// are valid until the next call.
func (lr *LineReader) Next() (Line, error) {
	if cap(lr.buf) > 16<<20 {
		// Let one huge line's buffer go rather than hold it for the rest
		// of the file.
		lr.buf = nil
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf) == 0 && err == nil {
			// Common case: the line fits the buffer; no copy.
			return lr.emit(chunk, true), nil
		}
		lr.buf = append(lr.buf, chunk...)
		if err == nil {
			return lr.emit(lr.buf, true), nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if len(lr.buf) == 0 {
				return Line{}, io.EOF
			}
			return lr.emit(lr.buf, false), nil
		}
		return Line{}, err
	}
}

func (lr *LineReader) emit(b []byte, complete bool) Line {
	l := Line{Offset: lr.off, Number: lr.line, Length: int64(len(b)), Complete: complete}
	lr.off += int64(len(b))
	lr.line++
	if complete {
		b = b[:len(b)-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	l.Bytes = b
	return l
}
