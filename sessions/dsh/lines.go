package dsh

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// pos is where a line starts. Zstd: the frame it starts in (byte offset,
// 1-based index) and how many newlines of that frame's output come before
// it. Raw: its byte offset.
type pos struct {
	off   int64
	frame int
	skip  int
}

// lineFunc receives one complete line (without its newline; valid only
// during the call), where it starts and its 1-based number in the file.
type lineFunc func(line []byte, at pos, n int64) error

// diagFunc receives a problem with the file's bytes.
type diagFunc func(Diagnostic) error

var errStop = errors.New("stop")

// lineReader turns a log's bytes into lines, frame by frame for zstd,
// keeping at most one partial line and a few frame buffers in memory.
type lineReader struct {
	r       io.ReaderAt
	size    int64
	zstd    bool
	maxLine int
	ahead   bool          // decode frames ahead on another goroutine
	dec     *zstd.Decoder // streams a frame too large to hold
	buf     []byte

	// partial line
	carry      []byte
	carryStart pos
	inLine     bool
	overflow   bool

	cur      pos // start of a line beginning now
	toSkip   int // newlines still to skip before the first line (read-back)
	lines    int64
	next     pos // start of the first line not yet delivered
	frames   int
	outBytes int64
	torn     bool

	line lineFunc
	diag diagFunc
}

func newLineReader(r io.ReaderAt, size int64, isZstd bool, maxLine int) *lineReader {
	return &lineReader{r: r, size: size, zstd: isZstd, maxLine: maxLine}
}

func (lr *lineReader) close() {
	if lr.dec != nil {
		lr.dec.Close()
	}
}

// run reads from start (after lines lines) to the end of the data.
func (lr *lineReader) run(start pos, lines int64, skip int, line lineFunc, diag diagFunc) error {
	lr.line, lr.diag, lr.lines, lr.next, lr.toSkip = line, diag, lines, start, skip
	var err error
	if lr.zstd {
		err = lr.runZstd(start)
	} else {
		err = lr.runRaw(start.off)
	}
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// feed splits decoded bytes into lines. base is the file offset of b[0]
// in a raw log (unused for zstd, whose positions count the frame's lines).
func (lr *lineReader) feed(b []byte, base int64) error {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if lr.toSkip == 0 {
				lr.keep(b)
			}
			return nil
		}
		seg := b[:i]
		b = b[i+1:]
		base += int64(i + 1)
		start := lr.cur
		if lr.zstd {
			lr.cur.skip++
		} else {
			lr.cur = pos{off: base}
		}
		lr.next = lr.cur
		if lr.toSkip > 0 {
			lr.toSkip--
			continue
		}
		if lr.inLine {
			start = lr.carryStart
			lr.keep(seg)
			seg = lr.carry
		}
		overflow := lr.overflow
		lr.inLine, lr.overflow, lr.carry = false, false, lr.carry[:0]
		lr.lines++
		if overflow || len(seg) > lr.maxLine {
			if err := lr.diag(Diagnostic{Code: CodeLineTooLong, Line: lr.lines, Frame: start.frame, Offset: start.off,
				Params:  map[string]string{"limit": fmt.Sprint(lr.maxLine)},
				Message: fmt.Sprintf("line %d is longer than %d bytes and was skipped", lr.lines, lr.maxLine)}); err != nil {
				return err
			}
			continue
		}
		if err := lr.line(seg, start, lr.lines); err != nil {
			return err
		}
	}
	return nil
}

// keep adds bytes to the partial line, discarding it past maxLine.
func (lr *lineReader) keep(b []byte) {
	if !lr.inLine {
		lr.inLine, lr.carryStart, lr.carry = true, lr.cur, lr.carry[:0]
	}
	if lr.overflow {
		return
	}
	if len(lr.carry)+len(b) > lr.maxLine {
		lr.overflow, lr.carry = true, nil
		return
	}
	lr.carry = append(lr.carry, b...)
}

func (lr *lineReader) dropPartial() {
	lr.inLine, lr.overflow, lr.carry = false, false, lr.carry[:0]
}

func (lr *lineReader) runZstd(start pos) error {
	src, err := newFrameSource(lr.r, lr.size)
	if err != nil {
		return err
	}
	defer src.close()
	src.off, src.frame = start.off, max(start.frame, 1)
	if lr.ahead {
		src.start()
	}
	var buf []byte
	for {
		it := src.take(buf)
		buf = it.data
		switch it.kind {
		case itemEnd:
			return nil
		case itemErr:
			return it.err
		case itemTorn:
			lr.torn = true
			return lr.frameDiag(it.diag)
		case itemStop:
			return lr.frameDiag(it.diag)
		case itemLost:
			if lr.inLine {
				it.diag.Message += "; a line begun in the frame before it was lost"
			}
			lr.lostFrame(it.nextOff, it.nextFrame)
			if err := lr.frameDiag(it.diag); err != nil {
				return err
			}
			continue
		case itemData:
			lr.frames++
			lr.cur = pos{off: it.fi.start, frame: it.n}
			lr.outBytes += int64(len(it.data))
			if err := lr.feed(it.data, 0); err != nil {
				return err
			}
		case itemStream:
			lr.frames++
			lr.cur = pos{off: it.fi.start, frame: it.n}
			if err := lr.stream(it.fi); err != nil {
				return err
			}
		case itemSkip:
			lr.frames++
		}
		if !lr.inLine && lr.toSkip == 0 {
			lr.next = pos{off: it.fi.end, frame: it.n + 1}
		}
	}
}

func (lr *lineReader) frameDiag(d Diagnostic) error {
	d.Line = lr.lines + 1
	return lr.diag(d)
}

// lostFrame forgets a partial line that a dropped frame cut off, and lets
// the next line start with the next frame.
func (lr *lineReader) lostFrame(off int64, frame int) {
	lr.dropPartial()
	lr.toSkip = 0
	lr.next = pos{off: off, frame: frame}
}

// stream reads a verified frame too large to hold by decoding it again.
func (lr *lineReader) stream(fi frameInfo) error {
	if lr.dec == nil {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			return err
		}
		lr.dec = dec
	}
	if err := lr.dec.Reset(io.NewSectionReader(lr.r, fi.start, fi.end-fi.start)); err != nil {
		return err
	}
	chunk := make([]byte, 256<<10)
	for {
		k, err := lr.dec.Read(chunk)
		lr.outBytes += int64(k)
		if ferr := lr.feed(chunk[:k], 0); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// It decoded once: the file changed under the reader.
			return fmt.Errorf("frame %d at byte %d: %w", lr.cur.frame, fi.start, err)
		}
	}
}

func (lr *lineReader) runRaw(off int64) error {
	const chunk = 256 << 10
	if lr.buf == nil {
		lr.buf = make([]byte, chunk)
	}
	lr.cur = pos{off: off}
	for off < lr.size {
		n, err := lr.r.ReadAt(lr.buf[:min(int64(chunk), lr.size-off)], off)
		if n == 0 && err != nil {
			return err
		}
		lr.outBytes += int64(n)
		if ferr := lr.feed(lr.buf[:n], off); ferr != nil {
			return ferr
		}
		off += int64(n)
	}
	if lr.inLine {
		lr.torn = true
		return lr.diag(Diagnostic{Code: CodePartialLine, Offset: lr.next.off, Line: lr.lines + 1,
			Params:  map[string]string{"bytes": fmt.Sprint(lr.size - lr.next.off)},
			Message: fmt.Sprintf("the last %d bytes are a line without its newline; it is read once it is complete", lr.size-lr.next.off)})
	}
	return nil
}
