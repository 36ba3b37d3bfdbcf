package dsh

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// ErrRewritten reports a cursor that no longer fits its file: the file is
// shorter than the cursor, or its header now names another session. Read
// it again from the start.
var ErrRewritten = errors.New("dsh: log was rewritten since the cursor was taken")

// DefaultMaxLine is the longest line read by default. A longer line is
// skipped with a diagnostic rather than held in memory.
const DefaultMaxLine = 256 << 20

// Options tune a read.
type Options struct {
	// Home is the dsh home attachments are under; "" means DefaultHome of
	// this process's environment.
	Home string
	// MaxLine is the longest line read (DefaultMaxLine when 0).
	MaxLine int
}

func (o Options) home() string {
	if o.Home != "" {
		return o.Home
	}
	uh, _ := os.UserHomeDir()
	return DefaultHome(os.Getenv, uh)
}

func (o Options) maxLine() int {
	if o.MaxLine > 0 {
		return o.MaxLine
	}
	return DefaultMaxLine
}

// Handler receives what a pass reads, in log order. Any of its functions
// may be nil. A Result's blocks are its own, but nothing is retained after
// the call: a huge log never sits in memory. An error returned stops the
// pass and is returned by Read.
type Handler struct {
	// Result is called once per call id, at the call's first tool/result
	// (or dispatch copy).
	Result func(*Result) error
	// Replace is called when a result's surface entry is replaced: by a
	// prune or other rewrite (new content) or a compaction summary.
	Replace func(*Replacement) error
	// Usage is called once per model call.
	Usage      func(Usage) error
	Compaction func(Compaction) error
	// Subagent is called for each subagent/catalog entry, and once for the
	// header's own parent link.
	Subagent   func(SubagentLink) error
	Diagnostic func(Diagnostic) error
}

// Stats count what a pass read.
type Stats struct {
	Lines        int64          `json:"lines"`
	Events       int64          `json:"events"`
	Frames       int            `json:"frames"`
	Bytes        int64          `json:"bytes"` // decoded bytes read
	Results      int            `json:"results"`
	Dispatches   int            `json:"dispatches"`
	Replacements int            `json:"replacements"`
	Usage        int            `json:"usage"`
	Compactions  int            `json:"compactions"`
	Diagnostics  int            `json:"diagnostics"`
	Unknown      map[string]int `json:"unknown,omitempty"`
	Ignored      map[string]int `json:"ignored,omitempty"`
	// Torn: the log ends inside a frame or line, which a later pass may
	// read once it is complete.
	Torn bool `json:"torn"`
}

// Cursor is where a pass stopped: the next line to read (zstd: the frame's
// offset and index and how many of its lines were read; raw: the line's
// offset) and everything the fold needs to carry on. It marshals to JSON,
// so an index can keep it between runs; its contents are opaque.
type Cursor struct {
	Offset int64
	Frame  int
	Skip   int
	Line   int64
	st     *state
}

type cursorJSON struct {
	Offset int64  `json:"offset"`
	Frame  int    `json:"frame"`
	Skip   int    `json:"skip"`
	Line   int64  `json:"line"`
	State  *state `json:"state"`
}

// MarshalJSON writes the cursor with its fold state.
func (c Cursor) MarshalJSON() ([]byte, error) {
	return json.Marshal(cursorJSON{c.Offset, c.Frame, c.Skip, c.Line, c.st})
}

// UnmarshalJSON reads a cursor MarshalJSON wrote.
func (c *Cursor) UnmarshalJSON(b []byte) error {
	var j cursorJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.State == nil {
		return errors.New("dsh: cursor has no state")
	}
	if j.State.Calls == nil {
		j.State.Calls = map[string]callInfo{}
	}
	if j.State.Seen == nil {
		j.State.Seen = map[string]string{}
	}
	if j.State.Dispatched == nil {
		j.State.Dispatched = map[string]bool{}
	}
	*c = Cursor{Offset: j.Offset, Frame: j.Frame, Skip: j.Skip, Line: j.Line, st: j.State}
	return nil
}

// Pass is the outcome of one Read.
type Pass struct {
	// Session is the session as read up to the cursor.
	Session Session `json:"session"`
	Cursor  Cursor  `json:"cursor"`
	Stats   Stats   `json:"stats"`
	// Pending is a v0/v1 step's usage that is still waiting for its
	// assistant/message (the log ends inside the step); a later pass
	// reports it as Usage once the step ends.
	Pending *Usage `json:"pending,omitempty"`
	// Zstd says the log is zstd-framed.
	Zstd bool `json:"zstd"`
}

func isZstd(f io.ReaderAt) bool {
	var b [4]byte
	if n, _ := f.ReadAt(b[:], 0); n < 4 {
		return false
	}
	m := binary.LittleEndian.Uint32(b[:])
	return m == zstdMagic || m&skippableMask == skippableBase
}

// headerLimit bounds how much is read to find the header line.
const headerLimit = 1 << 20

// firstLine reads the header line: the first line of a raw log, or of the
// first frames of a zstd one, looking no further than headerLimit.
func firstLine(f io.ReaderAt, size int64, z bool) ([]byte, error) {
	var src io.Reader = io.NewSectionReader(f, 0, size)
	if z {
		dec, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			return nil, err
		}
		defer dec.Close()
		src = dec
	}
	var buf bytes.Buffer
	chunk := make([]byte, 32<<10)
	for buf.Len() < headerLimit {
		n, err := src.Read(chunk)
		buf.Write(chunk[:n])
		if i := bytes.IndexByte(buf.Bytes(), '\n'); i >= 0 {
			return buf.Bytes()[:i], nil
		}
		if err != nil {
			if err == io.EOF || buf.Len() > 0 {
				return nil, fmt.Errorf("%w: no complete first line", ErrNotSession)
			}
			return nil, fmt.Errorf("%w: %v", ErrNotSession, err)
		}
	}
	return nil, fmt.Errorf("%w: first line longer than %d bytes", ErrNotSession, headerLimit)
}

// ReadHeader reads the header line of the log at path.
func ReadHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Header{}, err
	}
	line, err := firstLine(f, st.Size(), isZstd(f))
	if err != nil {
		return Header{}, fmt.Errorf("%s: %w", path, err)
	}
	h, ok := parseHeader(line)
	if !ok {
		return Header{}, fmt.Errorf("%s: %w: line 1 is not {\"type\":\"session\",\"version\":N,\"id\":…}", path, ErrNotSession)
	}
	return h, nil
}

// IsSessionFile says whether path is a dsh session log: its first line
// (decompressed when the file is zstd) is a session header. A file that
// cannot be read is an error; one that is not dsh's is (false, nil).
func IsSessionFile(path string) (bool, error) {
	_, err := ReadHeader(path)
	if errors.Is(err, ErrNotSession) {
		return false, nil
	}
	return err == nil, err
}

// Read reads the log at path from cursor from (nil: from the start) to its
// current end, calling h for what it finds, and returns where it stopped.
// Only complete frames and lines are read; a torn tail is one diagnostic
// and is read by a later pass once complete.
func Read(path string, from *Cursor, opts Options, h Handler) (Pass, error) {
	f, err := os.Open(path)
	if err != nil {
		return Pass{}, err
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return Pass{}, err
	}
	return read(f, fst.Size(), path, from, opts, h)
}

func read(f io.ReaderAt, size int64, path string, from *Cursor, opts Options, h Handler) (Pass, error) {
	z := isZstd(f)
	line, err := firstLine(f, size, z)
	if err != nil {
		return Pass{}, fmt.Errorf("%s: %w", path, err)
	}
	hdr, ok := parseHeader(line)
	if !ok {
		return Pass{}, fmt.Errorf("%s: %w: line 1 is not {\"type\":\"session\",\"version\":N,\"id\":…}", path, ErrNotSession)
	}
	st := newState()
	start, lines, skip := pos{frame: 1}, int64(0), 0
	if from != nil && from.st != nil {
		if from.Offset > size || from.st.Session.ID != hdr.ID || from.st.Zstd != z {
			return Pass{}, fmt.Errorf("%s: %w", path, ErrRewritten)
		}
		st = from.st
		start, lines, skip = pos{off: from.Offset, frame: from.Frame}, from.Line, from.Skip
		if !z {
			skip = 0
		}
	} else {
		st.Zstd = z
		st.Session.Header = hdr
	}
	var stats Stats
	r := &reader{st: st, h: h, opts: opts, zstd: z, home: opts.home(), stats: &stats, unknown: map[string]*unknownType{}}
	if from == nil || from.st == nil {
		if hdr.Version > MaxVersion {
			if err := r.diag(Diagnostic{Code: CodeNewerVersion, Line: 1, Seq: -1, Params: map[string]string{"version": fmt.Sprint(hdr.Version)},
				Message: fmt.Sprintf("format version %d is newer than this reader knows (%d); read as far as known shapes go", hdr.Version, MaxVersion)}); err != nil {
				return Pass{}, err
			}
		}
		if hdr.ParentSession != "" && h.Subagent != nil {
			if err := h.Subagent(SubagentLink{Parent: hdr.ParentSession, Child: hdr.ID, Source: LinkHeader,
				Origin: hdr.Origin, Depth: hdr.DelegationDepth, HasDepth: hdr.HasDepth, Seq: -1, Line: 1}); err != nil {
				return Pass{}, err
			}
		}
	}
	lr := newLineReader(f, size, z, opts.maxLine())
	lr.ahead = true
	defer lr.close()
	frameDiag := func(d Diagnostic) error {
		d.Seq = -1
		return r.diag(d)
	}
	if err := lr.run(start, lines, skip, r.handleLine, frameDiag); err != nil {
		return Pass{}, err
	}
	if err := r.finishPass(); err != nil {
		return Pass{}, err
	}
	stats.Frames, stats.Bytes, stats.Torn = lr.frames, lr.outBytes, lr.torn
	p := Pass{Session: st.Session, Stats: stats, Zstd: z,
		Cursor: Cursor{Offset: lr.next.off, Frame: lr.next.frame, Skip: lr.next.skip, Line: lr.lines, st: st}}
	if a := st.Attempt; a != nil && a.Usage != nil {
		u := a.record(UsageChunk, false)
		p.Pending = &u
	}
	return p, nil
}

// Log is a whole log read into memory by ReadAll: for tests, small logs
// and tools. The index streams with Read instead.
type Log struct {
	Session     Session        `json:"session"`
	Results     []*Result      `json:"results"`
	Usage       []Usage        `json:"usage"`
	Compactions []Compaction   `json:"compactions"`
	Subagents   []SubagentLink `json:"subagents"`
	Diagnostics []Diagnostic   `json:"diagnostics"`
	Stats       Stats          `json:"stats"`
	Cursor      Cursor         `json:"cursor"`
	Zstd        bool           `json:"zstd"`
}

// ReadAll reads the whole log at path, with every result's last-seen
// content and latest replacement folded in. A step still waiting for its
// message at the end counts as that step's usage.
func ReadAll(path string, opts Options) (*Log, error) {
	log := &Log{}
	byCall := map[string]*Result{}
	h := Handler{
		Result: func(r *Result) error {
			r.LastSeen = r.Blocks
			log.Results = append(log.Results, r)
			if !r.Dispatch {
				byCall[r.CallID] = r
			}
			return nil
		},
		Replace: func(rep *Replacement) error {
			if r := byCall[rep.CallID]; r != nil {
				if rep.Blocks != nil {
					r.LastSeen = rep.Blocks
				}
				r.ReplacedBy = rep
			}
			return nil
		},
		Usage:      func(u Usage) error { log.Usage = append(log.Usage, u); return nil },
		Compaction: func(c Compaction) error { log.Compactions = append(log.Compactions, c); return nil },
		Subagent:   func(l SubagentLink) error { log.Subagents = append(log.Subagents, l); return nil },
		Diagnostic: func(d Diagnostic) error { log.Diagnostics = append(log.Diagnostics, d); return nil },
	}
	p, err := Read(path, nil, opts, h)
	if err != nil {
		return nil, err
	}
	log.Session, log.Stats, log.Cursor, log.Zstd = p.Session, p.Stats, p.Cursor, p.Zstd
	if p.Pending != nil {
		log.Usage = append(log.Usage, *p.Pending)
	}
	if d := p.Session.Descriptor; d != nil {
		for i := range log.Subagents {
			if l := &log.Subagents[i]; l.Source == LinkHeader {
				l.Mode, l.Label = d.Mode, d.Label
			}
		}
	}
	return log, nil
}

// ReadResultAt reads back the tool result whose event a Locator names, as
// a Result with its content, images and notice. The tool's name and
// arguments sit on another line (its tool/call) and are left empty, except
// for a dispatch copy, which carries its own.
func ReadResultAt(path string, loc Locator, opts Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readResultAt(f, fst.Size(), path, loc, opts)
}

func readResultAt(f io.ReaderAt, size int64, path string, loc Locator, opts Options) (*Result, error) {
	z := isZstd(f)
	if z != loc.Zstd || loc.Offset >= size {
		return nil, fmt.Errorf("%s: %w: %s", path, ErrLocator, loc)
	}
	line, err := firstLine(f, size, z)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	hdr, ok := parseHeader(line)
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrNotSession)
	}
	st := newState()
	st.Session.Header = hdr
	var stats Stats
	var got *Result
	r := &reader{st: st, zstd: z, home: opts.home(), stats: &stats, unknown: map[string]*unknownType{}}
	r.h.Result = func(res *Result) error { got = res; return errStop }
	lr := newLineReader(f, size, z, opts.maxLine())
	defer lr.close()
	start, skip := pos{off: loc.Offset, frame: loc.Frame}, loc.Skip
	if !z {
		skip = 0
	}
	var bad error
	handle := func(b []byte, at pos, n int64) error {
		r.line, r.at = loc.Line, at
		var ev envelope
		if !parseEnvelope(b, &ev) {
			bad = fmt.Errorf("%s: %w: %s is not a JSON event", path, ErrLocator, loc)
			return errStop
		}
		switch ev.Type {
		case "tool/result":
			ev.SurfaceOp = nil
			if err := r.toolResult(&ev, seqOf(&ev), r.eventTime(&ev)); err != nil {
				return err
			}
		case "tool/code-dispatch", "tool/ptc-dispatch":
			if err := r.dispatchCopy(&ev, seqOf(&ev), r.eventTime(&ev)); err != nil {
				return err
			}
		}
		if got == nil {
			bad = fmt.Errorf("%s: %w: %s holds a %q event", path, ErrLocator, loc, shorten(ev.Type))
		}
		return errStop
	}
	if err := lr.run(start, loc.Line-1, skip, handle, func(Diagnostic) error { return nil }); err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, bad
	}
	if got == nil {
		return nil, fmt.Errorf("%s: %w: nothing at %s", path, ErrLocator, loc)
	}
	return got, nil
}

func seqOf(ev *envelope) int64 {
	if ev.HasSeq {
		return ev.Seq
	}
	return -1
}
