package dsh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// A dsh .zstd log is a plain concatenation of independent, checksummed
// zstd frames: frame 1 holds the header line and each durable append batch
// adds one. Frames are found by walking their headers and block headers
// (as dsh's own scanZstdFrames does), so a torn last frame is told apart
// from a damaged one without decompressing anything, and a frame that fails
// its checksum can be dropped while reading goes on with the next.

const (
	zstdMagic     = 0xFD2FB528
	skippableMask = 0xFFFFFFF0
	skippableBase = 0x184D2A50
	maxBlockSize  = 128 << 10
	// maxWindow bounds what a hostile frame header can make the decoder
	// allocate; dsh writes at the default level, far below it.
	maxWindow = 64 << 20
	// frameBuffer is how much of a frame's output is held to verify its
	// checksum before any of its lines is used. A larger frame (a migrated
	// generation can be one) is verified by a first decoding pass and then
	// streamed by a second, so memory stays bounded either way.
	frameBuffer = 8 << 20
)

var (
	errTorn      = errors.New("frame ends before its last block")
	errNotZstd   = errors.New("no zstd frame magic")
	errStructure = errors.New("malformed zstd frame")
)

type frameInfo struct {
	start, end int64
	skippable  bool
}

// walkFrame finds where the frame starting at off ends. It returns errTorn
// when the data ends inside the frame and an errStructure (or errNotZstd)
// error when the bytes at off cannot be a frame.
func walkFrame(r io.ReaderAt, size, off int64) (frameInfo, error) {
	fi := frameInfo{start: off}
	var b [18]byte
	if size-off < 4 {
		return fi, errTorn
	}
	if _, err := r.ReadAt(b[:4], off); err != nil {
		return fi, err
	}
	magic := binary.LittleEndian.Uint32(b[:4])
	pos := off + 4
	if magic&skippableMask == skippableBase {
		if size-pos < 4 {
			return fi, errTorn
		}
		if _, err := r.ReadAt(b[:4], pos); err != nil {
			return fi, err
		}
		n := int64(binary.LittleEndian.Uint32(b[:4]))
		fi.end, fi.skippable = pos+4+n, true
		if fi.end > size {
			return fi, errTorn
		}
		return fi, nil
	}
	if magic != zstdMagic {
		return fi, errNotZstd
	}
	if size-pos < 1 {
		return fi, errTorn
	}
	if _, err := r.ReadAt(b[:1], pos); err != nil {
		return fi, err
	}
	d := b[0]
	pos++
	if d&0x08 != 0 {
		return fi, fmt.Errorf("%w: reserved frame-header bit set", errStructure)
	}
	single := d&0x20 != 0
	checksum := d&0x04 != 0
	dictBytes := [4]int64{0, 1, 2, 4}[d&3]
	fcsBytes := [4]int64{0, 2, 4, 8}[d>>6]
	if d>>6 == 0 && single {
		fcsBytes = 1
	}
	hdr := dictBytes + fcsBytes
	if !single {
		hdr++
	}
	if size-pos < hdr {
		return fi, errTorn
	}
	pos += hdr
	for {
		if size-pos < 3 {
			return fi, errTorn
		}
		if _, err := r.ReadAt(b[:3], pos); err != nil {
			return fi, err
		}
		h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		pos += 3
		last, typ, bsize := h&1 != 0, h>>1&3, int64(h>>3)
		switch typ {
		case 3:
			return fi, fmt.Errorf("%w: reserved block type", errStructure)
		case 1: // RLE: one byte stands for bsize bytes
			if bsize > maxBlockSize {
				return fi, fmt.Errorf("%w: block of %d bytes", errStructure, bsize)
			}
			bsize = 1
		default:
			if bsize > maxBlockSize {
				return fi, fmt.Errorf("%w: block of %d bytes", errStructure, bsize)
			}
		}
		if size-pos < bsize {
			return fi, errTorn
		}
		pos += bsize
		if last {
			break
		}
	}
	if checksum {
		if size-pos < 4 {
			return fi, errTorn
		}
		pos += 4
	}
	fi.end = pos
	return fi, nil
}

// resync looks for the next offset after off where a complete frame starts.
func resync(r io.ReaderAt, size, off int64) (int64, bool) {
	const chunk = 64 << 10
	buf := make([]byte, chunk+3)
	magic := []byte{0x28, 0xB5, 0x2F, 0xFD}
	for base := off + 1; base < size; base += chunk {
		n, _ := r.ReadAt(buf[:min(int64(len(buf)), size-base)], base)
		for i := 0; i+4 <= n; {
			j := bytes.Index(buf[i:n], magic)
			if j < 0 {
				break
			}
			cand := base + int64(i+j)
			if _, err := walkFrame(r, size, cand); err == nil {
				return cand, true
			}
			i += j + 1
		}
	}
	return 0, false
}

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
// keeping at most one partial line and one frame buffer in memory.
type lineReader struct {
	r       io.ReaderAt
	size    int64
	zstd    bool
	maxLine int
	dec     *zstd.Decoder
	buf     []byte

	// partial line
	carry      []byte
	carryStart pos
	inLine     bool
	overflow   bool

	// current frame
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

func newLineReader(r io.ReaderAt, size int64, isZstd bool, maxLine int) (*lineReader, error) {
	lr := &lineReader{r: r, size: size, zstd: isZstd, maxLine: maxLine}
	if isZstd {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			return nil, err
		}
		lr.dec = dec
	}
	return lr, nil
}

func (lr *lineReader) close() {
	if lr.dec != nil {
		lr.dec.Close()
	}
}

// run reads from start (line number lines-so-far) to the end of the data.
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

// feed splits output bytes into lines; the current frame's position is in
// lr.cur.
func (lr *lineReader) feed(b []byte) error {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if lr.toSkip > 0 {
			if i < 0 {
				return nil
			}
			lr.toSkip--
			lr.cur.skip++
			lr.next = lr.cur
			b = b[i+1:]
			continue
		}
		if i < 0 {
			lr.keep(b)
			return nil
		}
		seg := b[:i]
		b = b[i+1:]
		start := lr.cur
		if lr.inLine {
			start = lr.carryStart
			lr.keep(seg)
			seg = lr.carry
		}
		overflow := lr.overflow
		lr.inLine, lr.overflow, lr.carry = false, false, lr.carry[:0]
		lr.cur.skip++
		lr.lines++
		lr.next = lr.cur
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
	off, frame := start.off, start.frame
	if frame == 0 {
		frame = 1
	}
	for off < lr.size {
		fi, err := walkFrame(lr.r, lr.size, off)
		if errors.Is(err, errTorn) {
			lr.torn = true
			return lr.diag(Diagnostic{Code: CodeTornFrame, Frame: frame, Offset: off, Line: lr.lines + 1,
				Params:  map[string]string{"bytes": fmt.Sprint(lr.size - off)},
				Message: fmt.Sprintf("the last %d bytes (frame %d at byte %d) are an incomplete frame; everything before it was read", lr.size-off, frame, off)})
		}
		if err != nil {
			if !errors.Is(err, errStructure) && !errors.Is(err, errNotZstd) {
				return err
			}
			nextOff, ok := resync(lr.r, lr.size, off)
			if !ok {
				return lr.diag(Diagnostic{Code: CodeBadFrame, Frame: frame, Offset: off, Line: lr.lines + 1,
					Params:  map[string]string{"reason": err.Error()},
					Message: fmt.Sprintf("frame %d at byte %d is not a zstd frame (%v) and no later frame was found; reading stopped", frame, off, err)})
			}
			if err := lr.diag(Diagnostic{Code: CodeSkippedBytes, Frame: frame, Offset: off, Line: lr.lines + 1,
				Params:  map[string]string{"reason": err.Error(), "bytes": fmt.Sprint(nextOff - off)},
				Message: fmt.Sprintf("%d bytes at byte %d are not a zstd frame (%v); reading went on at byte %d", nextOff-off, off, err, nextOff)}); err != nil {
				return err
			}
			lr.lostFrame(nextOff, frame+1)
			off, frame = nextOff, frame+1
			continue
		}
		lr.frames++
		if !fi.skippable {
			if err := lr.frame(fi, frame); err != nil {
				return err
			}
		}
		off, frame = fi.end, frame+1
		if !lr.inLine && lr.toSkip == 0 {
			lr.next = pos{off: off, frame: frame}
		}
	}
	return nil
}

// lostFrame forgets a partial line that a dropped frame cut off, and lets
// the next line start with the next frame.
func (lr *lineReader) lostFrame(off int64, frame int) {
	lr.dropPartial()
	lr.toSkip = 0
	lr.next = pos{off: off, frame: frame}
}

// frame decodes one complete frame. Its lines are used only once its
// checksum has held.
func (lr *lineReader) frame(fi frameInfo, n int) error {
	if err := lr.dec.Reset(io.NewSectionReader(lr.r, fi.start, fi.end-fi.start)); err != nil {
		return lr.badFrame(fi, n, err)
	}
	if lr.buf == nil {
		lr.buf = make([]byte, 0, 256<<10)
	}
	buf := lr.buf[:0]
	var err error
	for {
		if len(buf) == cap(buf) {
			if cap(buf) >= frameBuffer {
				break
			}
			buf = append(buf, 0)[:len(buf)]
		}
		var k int
		k, err = lr.dec.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err != nil {
			break
		}
	}
	lr.buf = buf[:0]
	lr.cur = pos{off: fi.start, frame: n}
	if err == io.EOF {
		lr.outBytes += int64(len(buf))
		return lr.feed(buf)
	}
	if err != nil {
		return lr.badFrame(fi, n, err)
	}
	// Too large to hold: verify it whole, then decode it again to read it.
	if _, err := io.Copy(io.Discard, lr.dec); err != nil {
		return lr.badFrame(fi, n, err)
	}
	if err := lr.dec.Reset(io.NewSectionReader(lr.r, fi.start, fi.end-fi.start)); err != nil {
		return lr.badFrame(fi, n, err)
	}
	chunk := lr.buf[:cap(lr.buf)]
	for {
		k, err := lr.dec.Read(chunk)
		lr.outBytes += int64(k)
		if ferr := lr.feed(chunk[:k]); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (lr *lineReader) badFrame(fi frameInfo, n int, err error) error {
	code := CodeBadFrame
	what := "cannot be decoded"
	if errors.Is(err, zstd.ErrCRCMismatch) {
		code, what = CodeFrameChecksum, "fails its checksum"
	}
	lost := lr.inLine
	lr.lostFrame(fi.end, n+1)
	msg := fmt.Sprintf("frame %d at byte %d %s (%v); its lines were skipped and reading went on with the next frame", n, fi.start, what, err)
	if lost {
		msg += "; a line begun in the frame before it was lost"
	}
	return lr.diag(Diagnostic{Code: code, Frame: n, Offset: fi.start, Line: lr.lines + 1,
		Params: map[string]string{"reason": err.Error(), "bytes": fmt.Sprint(fi.end - fi.start)}, Message: msg})
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
		if ferr := lr.feedRaw(lr.buf[:n], off); ferr != nil {
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

// feedRaw is feed with byte offsets as positions.
func (lr *lineReader) feedRaw(b []byte, base int64) error {
	at := base
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if lr.toSkip > 0 {
			if i < 0 {
				return nil
			}
			lr.toSkip--
			at += int64(i + 1)
			b = b[i+1:]
			lr.next = pos{off: at}
			continue
		}
		if i < 0 {
			lr.cur = pos{off: at}
			lr.keep(b)
			return nil
		}
		seg := b[:i]
		start := pos{off: at}
		if lr.inLine {
			start = lr.carryStart
			lr.keep(seg)
			seg = lr.carry
		}
		overflow := lr.overflow
		lr.inLine, lr.overflow, lr.carry = false, false, lr.carry[:0]
		at += int64(i + 1)
		b = b[i+1:]
		lr.lines++
		lr.next = pos{off: at}
		if overflow || len(seg) > lr.maxLine {
			if err := lr.diag(Diagnostic{Code: CodeLineTooLong, Line: lr.lines, Offset: start.off,
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
