package readkit

import (
	"bufio"
	"errors"
	"io"
)

// LineReader reads newline-terminated lines of any length: a tool result
// holding a 100 MB command output is one line, so no fixed cap applies.
type LineReader struct {
	r    *bufio.Reader
	buf  []byte
	off  int64
	line int64
}

// Line is one line without its "\n" (or "\r\n"): where it starts, its
// 1-based number, its length on disk including the newline, and whether it
// ended with a newline. Only the last bytes of a file can be incomplete, and
// those may still be being written.
type Line struct {
	Bytes    []byte
	Offset   int64
	Number   int64
	Length   int64
	Complete bool
}

// NewLineReader reads r, which starts at byte offset off and line number
// line (1 at the start of a file).
func NewLineReader(r io.Reader, off, line int64) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 256<<10), off: off, line: line}
}

// Next returns the next line, or io.EOF after the last. The bytes stay
// valid until the next call.
func (lr *LineReader) Next() (Line, error) {
	if cap(lr.buf) > 16<<20 {
		lr.buf = nil // one huge line's buffer is not kept for the rest of the file
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		switch {
		case err == nil && len(lr.buf) == 0:
			return lr.emit(chunk, true), nil
		case err == nil:
			lr.buf = append(lr.buf, chunk...)
			return lr.emit(lr.buf, true), nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.buf = append(lr.buf, chunk...)
		case errors.Is(err, io.EOF):
			lr.buf = append(lr.buf, chunk...)
			if len(lr.buf) == 0 {
				return Line{}, io.EOF
			}
			return lr.emit(lr.buf, false), nil
		default:
			return Line{}, err
		}
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
