package dsh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

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
	// frameBuffer is the largest frame output held in memory to verify its
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
	// content is the decoded size the frame header declares, -1 if none.
	content int64
}

// walkFrame finds where the frame starting at off ends. It returns errTorn
// when the data ends inside the frame and an errStructure (or errNotZstd)
// error when the bytes at off cannot be a frame.
func walkFrame(r io.ReaderAt, size, off int64) (frameInfo, error) {
	fi := frameInfo{start: off, content: -1}
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
	if fcsBytes > 0 {
		if _, err := r.ReadAt(b[:hdr], pos); err != nil {
			return fi, err
		}
		f := b[hdr-fcsBytes : hdr]
		switch fcsBytes {
		case 1:
			fi.content = int64(f[0])
		case 2:
			fi.content = int64(binary.LittleEndian.Uint16(f)) + 256
		case 4:
			fi.content = int64(binary.LittleEndian.Uint32(f))
		case 8:
			fi.content = int64(binary.LittleEndian.Uint64(f) & (1<<63 - 1))
		}
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

// What a frame source hands on, frame by frame, in file order.
const (
	itemData   = iota // a verified frame's output
	itemStream        // a verified frame too large to hold: the reader streams it again
	itemSkip          // a skippable frame
	itemLost          // a frame or bytes dropped (diag says why); reading goes on at next
	itemTorn          // the data ends inside a frame (diag)
	itemStop          // no frame can be found any more (diag)
	itemEnd           // the end of the data
	itemErr           // an I/O error
)

type frameItem struct {
	kind      int
	fi        frameInfo
	n         int
	data      []byte
	diag      Diagnostic
	nextOff   int64
	nextFrame int
	err       error
}

// frameSource walks and decodes frames. Run inline it decodes one frame
// per call; run ahead (start) it decodes the next frames on another
// goroutine while the lines of this one are read, which is what keeps a
// zstd log nearly as fast to read as a raw one on two cores.
type frameSource struct {
	r      io.ReaderAt
	size   int64
	off    int64
	frame  int
	all    *zstd.Decoder // decodes a frame in memory
	verify *zstd.Decoder // checks a frame too large to hold
	cbuf   []byte

	ahead chan frameItem
	free  chan []byte
	done  chan struct{}
	wg    sync.WaitGroup
}

func newFrameSource(r io.ReaderAt, size int64) (*frameSource, error) {
	// The cap limit holds DecodeAll to the size the header declared, so a
	// frame that lies about it cannot grow the buffer.
	all, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow),
		zstd.WithDecoderMaxMemory(frameBuffer), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, err
	}
	verify, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		all.Close()
		return nil, err
	}
	return &frameSource{r: r, size: size, all: all, verify: verify}, nil
}

// next produces the item for the frame at s.off, decoding into buf.
func (s *frameSource) next(buf []byte) frameItem {
	if s.off >= s.size {
		return frameItem{kind: itemEnd}
	}
	off, n := s.off, s.frame
	fi, err := walkFrame(s.r, s.size, off)
	if errors.Is(err, errTorn) {
		s.off = s.size
		return frameItem{kind: itemTorn, n: n, diag: Diagnostic{Code: CodeTornFrame, Frame: n, Offset: off,
			Params:  map[string]string{"bytes": fmt.Sprint(s.size - off)},
			Message: fmt.Sprintf("the last %d bytes (frame %d at byte %d) are an incomplete frame; everything before it was read", s.size-off, n, off)}}
	}
	if err != nil {
		if !errors.Is(err, errStructure) && !errors.Is(err, errNotZstd) {
			return frameItem{kind: itemErr, err: err}
		}
		nextOff, ok := resync(s.r, s.size, off)
		if !ok {
			s.off = s.size
			return frameItem{kind: itemStop, n: n, diag: Diagnostic{Code: CodeBadFrame, Frame: n, Offset: off,
				Params:  map[string]string{"reason": err.Error()},
				Message: fmt.Sprintf("frame %d at byte %d is not a zstd frame (%v) and no later frame was found; reading stopped", n, off, err)}}
		}
		s.off, s.frame = nextOff, n+1
		return frameItem{kind: itemLost, n: n, nextOff: nextOff, nextFrame: n + 1, diag: Diagnostic{Code: CodeSkippedBytes, Frame: n, Offset: off,
			Params:  map[string]string{"reason": err.Error(), "bytes": fmt.Sprint(nextOff - off)},
			Message: fmt.Sprintf("%d bytes at byte %d are not a zstd frame (%v); reading went on at byte %d", nextOff-off, off, err, nextOff)}}
	}
	s.off, s.frame = fi.end, n+1
	if fi.skippable {
		return frameItem{kind: itemSkip, fi: fi, n: n}
	}
	if fi.content >= 0 && fi.content <= frameBuffer && fi.end-fi.start <= frameBuffer+1024 {
		csize := int(fi.end - fi.start)
		if cap(s.cbuf) < csize {
			s.cbuf = make([]byte, csize)
		}
		cb := s.cbuf[:csize]
		if _, err := s.r.ReadAt(cb, fi.start); err != nil {
			return frameItem{kind: itemErr, err: err}
		}
		if cap(buf) < int(fi.content) {
			buf = make([]byte, 0, int(fi.content))
		}
		out, err := s.all.DecodeAll(cb, buf[:0])
		if err != nil {
			return s.bad(fi, n, err, out)
		}
		return frameItem{kind: itemData, fi: fi, n: n, data: out}
	}
	if err := s.verify.Reset(io.NewSectionReader(s.r, fi.start, fi.end-fi.start)); err != nil {
		return s.bad(fi, n, err, buf)
	}
	if _, err := io.Copy(io.Discard, s.verify); err != nil {
		return s.bad(fi, n, err, buf)
	}
	return frameItem{kind: itemStream, fi: fi, n: n, data: buf}
}

func (s *frameSource) bad(fi frameInfo, n int, err error, buf []byte) frameItem {
	code, what := CodeBadFrame, "cannot be decoded"
	if errors.Is(err, zstd.ErrCRCMismatch) {
		code, what = CodeFrameChecksum, "fails its checksum"
	}
	return frameItem{kind: itemLost, fi: fi, n: n, data: buf, nextOff: fi.end, nextFrame: n + 1, diag: Diagnostic{Code: code, Frame: n, Offset: fi.start,
		Params:  map[string]string{"reason": err.Error(), "bytes": fmt.Sprint(fi.end - fi.start)},
		Message: fmt.Sprintf("frame %d at byte %d %s (%v); its lines were skipped and reading went on with the next frame", n, fi.start, what, err)}}
}

// start runs the source ahead on its own goroutine, with up to two frames
// decoded and waiting.
func (s *frameSource) start() {
	s.ahead = make(chan frameItem, 2)
	s.free = make(chan []byte, 4)
	s.done = make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.ahead)
		for {
			var buf []byte
			select {
			case buf = <-s.free:
			default:
			}
			it := s.next(buf)
			select {
			case s.ahead <- it:
			case <-s.done:
				return
			}
			if it.kind == itemEnd || it.kind == itemTorn || it.kind == itemStop || it.kind == itemErr {
				return
			}
		}
	}()
}

// take returns the next item, from the goroutine when started.
func (s *frameSource) take(buf []byte) frameItem {
	if s.ahead == nil {
		return s.next(buf)
	}
	if buf != nil {
		select {
		case s.free <- buf[:0]:
		default:
		}
	}
	it, ok := <-s.ahead
	if !ok {
		return frameItem{kind: itemEnd}
	}
	return it
}

func (s *frameSource) close() {
	if s.done != nil {
		close(s.done)
		s.wg.Wait()
	}
	s.all.Close()
	s.verify.Close()
}
