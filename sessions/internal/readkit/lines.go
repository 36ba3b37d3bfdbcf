package readkit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
)

// LineReader reads newline-terminated lines of any length: a tool result
// holding a 100 MB command output is one line, so no fixed cap applies.
//
// Reading a file (NewLineReaderAt), a line longer than the buffer is first
// measured and then read once, from the file, into a buffer of exactly its
// size: one allocation of the line's size, where growing a buffer chunk by
// chunk would hold up to twice that while it copies, and leave it to the
// collector afterwards.
type LineReader struct {
	r    *bufio.Reader
	ra   io.ReaderAt // the file, for reading a long line whole; nil for a stream
	buf  []byte
	off  int64
	line int64
	// pooled: r came from readers, for Release to return.
	pooled bool
	// reuse: long lines of up to reuseMax bytes share one buffer (Reuse).
	reuse   bool
	scratch *[]byte
}

// reuseMax bounds the long lines Reuse reads into the shared buffer; a
// longer one gets a buffer of its own, left to the collector.
const reuseMax = 16 << 20

// longBuffers are the buffers Reuse's long lines share, across readers.
var longBuffers sync.Pool

// Reuse makes the long lines this reader returns share one buffer (of up
// to reuseMax bytes; a longer line still gets its own): a pass over a
// corpus whose long lines add up to hundreds of megabytes then allocates,
// clears and faults in its largest line's size instead of them all. Such a
// line is still Owned (its strings may be decoded in place) but only until
// the next call to Next or Release: the caller must drop everything that
// shares its bytes before reading on.
func (lr *LineReader) Reuse() { lr.reuse = true }

// Line is one line without its "\n" (or "\r\n"): where it starts, its
// 1-based number, its length on disk including the newline, and whether it
// ended with a newline. Only the last bytes of a file can be incomplete, and
// those may still be being written.
//
// Owned says Bytes is a buffer of the line's own, which the reader never
// touches again: a reader may decode JSON strings in place in it and keep
// strings that share its memory (a long text block then costs no second
// copy). Bytes of a line that is not owned are valid until the next call.
type Line struct {
	Bytes    []byte
	Offset   int64
	Number   int64
	Length   int64
	Complete bool
	Owned    bool
}

// bufferSize is the read buffer: a line that fits is handed out from it
// without a copy.
const bufferSize = 256 << 10

// NewLineReader reads r, which starts at byte offset off and line number
// line (1 at the start of a file).
func NewLineReader(r io.Reader, off, line int64) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, bufferSize), off: off, line: line}
}

// NewLineReaderAt reads the bytes of ra from offset off (line number line)
// up to limit, reading each line longer than the buffer whole into a buffer
// of its own (Line.Owned).
func NewLineReaderAt(ra io.ReaderAt, off, line, limit int64) *LineReader {
	r := io.NewSectionReader(ra, off, max(limit-off, 0))
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return &LineReader{r: br, ra: ra, off: off, line: line, pooled: true}
}

// readers are the read buffers of file readers (NewLineReaderAt), handed
// back by Release: a pass over thousands of files would otherwise allocate
// and collect one buffer a file.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, bufferSize) }}

// Release hands the read buffer back for another reader: the reader and
// every Line it returned that is not Owned (under Reuse, every line up to
// reuseMax bytes) are unusable afterwards. A reader of NewLineReader has
// nothing to hand back.
func (lr *LineReader) Release() {
	if lr.scratch != nil {
		longBuffers.Put(lr.scratch)
		lr.scratch = nil
	}
	if !lr.pooled || lr.r == nil {
		return
	}
	lr.r.Reset(nil)
	readers.Put(lr.r)
	lr.r = nil
}

// Next returns the next line, or io.EOF after the last.
func (lr *LineReader) Next() (Line, error) {
	if cap(lr.buf) > 16<<20 {
		lr.buf = nil // one huge line's buffer is not kept for the rest of the file
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		switch {
		case err == nil && len(lr.buf) == 0:
			return lr.emit(chunk, true, false), nil
		case errors.Is(err, bufio.ErrBufferFull) && lr.ra != nil:
			return lr.long(len(chunk))
		case err == nil:
			lr.buf = append(lr.buf, chunk...)
			return lr.emit(lr.buf, true, false), nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.buf = append(lr.buf, chunk...)
		case errors.Is(err, io.EOF):
			lr.buf = append(lr.buf, chunk...)
			if len(lr.buf) == 0 {
				return Line{}, io.EOF
			}
			return lr.emit(lr.buf, false, false), nil
		default:
			return Line{}, err
		}
	}
}

// long reads a line that overflowed the buffer (n bytes of it already
// consumed): the rest is skipped through the buffer to find where it ends,
// then the whole line is read from the file into a buffer of its size.
func (lr *LineReader) long(n int) (Line, error) {
	size := int64(n)
	complete := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += int64(len(chunk))
		if err == nil {
			complete = true
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		return Line{}, err
	}
	if size > int64(int(^uint(0)>>1)) {
		return Line{}, fmt.Errorf("readkit: line %d at byte %d is %d bytes, too long to read", lr.line, lr.off, size)
	}
	b := lr.longBuffer(int(size))
	if k, err := lr.ra.ReadAt(b, lr.off); int64(k) != size {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Line{}, fmt.Errorf("readkit: line %d at byte %d: %w", lr.line, lr.off, err)
	}
	return lr.emit(b, complete, true), nil
}

func (lr *LineReader) emit(b []byte, complete, owned bool) Line {
	l := Line{Offset: lr.off, Number: lr.line, Length: int64(len(b)), Complete: complete, Owned: owned}
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

// longBuffer is a buffer of size bytes for a long line: the shared one
// under Reuse (grown to the size when short of it), else its own.
func (lr *LineReader) longBuffer(size int) []byte {
	if !lr.reuse || size > reuseMax {
		return make([]byte, size)
	}
	if lr.scratch == nil {
		if bp, ok := longBuffers.Get().(*[]byte); ok {
			lr.scratch = bp
		} else {
			lr.scratch = new([]byte)
		}
	}
	if cap(*lr.scratch) < size {
		*lr.scratch = make([]byte, size)
	}
	return (*lr.scratch)[:size]
}
