package sessions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// What the JSONL harnesses (Claude Code, Codex CLI) share: reading a log
// line by line, resuming after the last complete line when the file only
// grew, and reading one result back from its line.

// lineCursor is a line log's resume point: the byte offset and number of
// the next line, and a fingerprint of the bytes before it, which tells an
// append (the prefix unchanged) from a rewrite.
type lineCursor struct {
	offset, line int64
	fp           string
}

func (c lineCursor) String() string { return fmt.Sprintf("%d:%d:%s", c.offset, c.line, c.fp) }

func parseLineCursor(s string) (lineCursor, bool) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 {
		return lineCursor{}, false
	}
	off, err1 := strconv.ParseInt(parts[0], 10, 64)
	line, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || off <= 0 || line < 1 || parts[2] == "" {
		return lineCursor{}, false
	}
	return lineCursor{offset: off, line: line, fp: parts[2]}, true
}

// readLineLog reads a JSONL source into p: from the cursor when the file
// only grew since (ReadAppended), else whole (ReadAll). newLine makes the
// reader's line function, seeded with the tool names of calls stored
// earlier when resuming. label names the harness in a "not a session"
// diagnostic.
func readLineLog(ctx context.Context, src Source, p *Parsed, label string, newLine func(names map[string]string) func(Line, *Parsed)) (ReadState, error) {
	f, err := os.Open(src.Path)
	if err != nil {
		p.Diag(0, DiagUnreadable, map[string]string{"error": errText(err)})
		return ReadState{Mode: ReadAll}, nil
	}
	defer f.Close()
	start, mode := lineCursor{line: 1}, ReadAll
	var names map[string]string
	if c, ok := parseLineCursor(src.Cursor); ok && src.Size >= c.offset {
		if sameFingerprint(f, c.offset, c.fp) {
			start, mode = c, ReadAppended
			if src.KnownCalls != nil {
				if names, err = src.KnownCalls(); err != nil {
					return ReadState{}, err
				}
			}
		}
	}
	end, endLine, err := readLines(ctx, f, start.offset, start.line, src.Size, newLine(names), p, src.Progress)
	if err != nil {
		return ReadState{}, err
	}
	if mode == ReadAll {
		notASession(p, label)
	}
	next := lineCursor{offset: end, line: endLine}
	if end > 0 {
		next.fp, _ = fingerprint(f, end)
	}
	return ReadState{Cursor: next.String(), Mode: mode}, nil
}

// readLines feeds complete lines of f from offset start (line number line)
// up to limit to fn, and returns where the next pass must resume: after the
// last complete line. An unterminated last line is read only if it is
// already a whole JSON object (a file that does not end in a newline);
// otherwise a writer is still appending it.
func readLines(ctx context.Context, f *os.File, start, line, limit int64, fn func(Line, *Parsed), p *Parsed, onRead func(int64)) (int64, int64, error) {
	lr := readkit.NewLineReaderAt(f, start, line, limit)
	if p.Transient {
		// Nothing of a line outlives fn but what it copied (AddResult
		// drops the blocks that share a long line's bytes).
		lr.Reuse()
	}
	// fn is done with every line that is not its own when this returns.
	defer lr.Release()
	end, next := start, line
	reported := start
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.Diag(next, DiagUnreadable, map[string]string{"error": errText(err)})
			break
		}
		if !l.Complete {
			if _, err := wholeObject(l.Bytes, func([]byte, int, int) bool { return true }); err != nil {
				break
			}
		}
		fn(l, p)
		if l.Owned && l.Length > heavyBytes {
			// Nothing of a huge line outlives fn: collecting it now lets
			// the next one reuse its memory instead of doubling the heap.
			l.Bytes = nil
			runtime.GC()
		}
		end, next = l.Offset+l.Length, l.Number+1
		if end-reported >= 8<<20 {
			reported = end
			if err := ctx.Err(); err != nil {
				return end, next, err
			}
			if onRead != nil {
				onRead(end)
			}
		}
	}
	return end, next, nil
}

// fingerprint hashes the first and last 64 KB of the first n bytes of f,
// and n: enough to tell an append (the parsed prefix unchanged) from a
// rewrite without reading the file. The hash is CRC-32C and CRC-32 (IEEE)
// side by side, 64 bits, both in hardware here: a fingerprint only tells
// an accidental change, nobody's forgery (the file's owner can rewrite it
// anyway), and sha256 over those windows was some 4% of a first index.
// Its prefix names the scheme, so an index written with sha256 fingerprints
// still resumes (sameFingerprint).
func fingerprint(f io.ReaderAt, n int64) (string, error) {
	sum, err := hashWindows(f, n, newCRCPair())
	if err != nil {
		return "", err
	}
	return fpCRC + hex.EncodeToString(sum), nil
}

// fpCRC prefixes a CRC-pair fingerprint; one without it is sha256 hex.
const fpCRC = "c2:"

// sameFingerprint reports whether the first n bytes of f still have
// fingerprint fp, of either scheme.
func sameFingerprint(f io.ReaderAt, n int64, fp string) bool {
	if strings.HasPrefix(fp, fpCRC) {
		got, err := fingerprint(f, n)
		return err == nil && got == fp
	}
	sum, err := hashWindows(f, n, sha256.New())
	return err == nil && hex.EncodeToString(sum) == fp
}

// hashWindows writes the first and last 64 KB of the first n bytes of f,
// then "|n", to h and returns its sum.
func hashWindows(f io.ReaderAt, n int64, h hash.Hash) ([]byte, error) {
	const w = 64 << 10
	bp := fpBuffers.Get().(*[w]byte)
	defer fpBuffers.Put(bp)
	head := min(n, w)
	buf := bp[:head]
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	h.Write(buf)
	if n > w {
		ts := max(n-w, head)
		tail := bp[:n-ts]
		if _, err := f.ReadAt(tail, ts); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		h.Write(tail)
	}
	fmt.Fprintf(h, "|%d", n)
	return h.Sum(nil), nil
}

// crcPair is CRC-32C and CRC-32 (IEEE) over the same bytes, as one hash.
type crcPair struct{ c, i hash.Hash32 }

func newCRCPair() *crcPair {
	return &crcPair{c: crc32.New(castagnoli), i: crc32.NewIEEE()}
}

func (p *crcPair) Write(b []byte) (int, error) {
	p.c.Write(b)
	return p.i.Write(b)
}

func (p *crcPair) Sum(b []byte) []byte { return p.i.Sum(p.c.Sum(b)) }
func (p *crcPair) Reset()              { p.c.Reset(); p.i.Reset() }
func (p *crcPair) Size() int           { return 8 }
func (p *crcPair) BlockSize() int      { return 1 }

// fpBuffers are fingerprint's read buffers (one window at a time).
var fpBuffers = sync.Pool{New: func() any { return new([64 << 10]byte) }}

// readSpan reads the byte range a locator names.
func readSpan(path string, loc Locator) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	defer f.Close()
	if loc.Length < 0 || loc.Length > 1<<34 {
		return nil, fmt.Errorf("%w: %s at %d: bad length %d", ErrResultGone, path, loc.Offset, loc.Length)
	}
	buf := make([]byte, loc.Length)
	if _, err := f.ReadAt(buf, loc.Offset); err != nil {
		return nil, fmt.Errorf("%w: %s at %d: %v", ErrResultGone, path, loc.Offset, err)
	}
	return bytes.TrimRight(buf, "\r\n"), nil
}

// lineResult reads one result back from its line: the locator's byte range
// is the line, Index the result's place in it.
func lineResult(path string, loc Locator, callID string, readLine func(Line, *Parsed)) (retention.Result, error) {
	buf, err := readSpan(path, loc)
	if err != nil {
		return retention.Result{}, err
	}
	p := &Parsed{}
	// The buffer is the line's own: its text blocks are decoded in place
	// and share it, so a 50 MB result read back costs one copy, not two.
	readLine(Line{Bytes: buf, Offset: loc.Offset, Length: loc.Length, Number: 1, Complete: true, Owned: true}, p)
	for _, r := range p.Results {
		if r.Index == loc.Index && r.CallID == callID {
			return retention.Result{Content: r.Blocks, IsError: r.IsError}, nil
		}
	}
	return retention.Result{}, fmt.Errorf("%w: %s at %d has no result %q", ErrResultGone, path, loc.Offset, callID)
}

// namedPath is the path a notice names: as written when absolute, else
// relative to the folder of the source that holds the notice.
func namedPath(named, source string) string {
	if filepath.IsAbs(named) {
		return filepath.Clean(named)
	}
	return filepath.Join(filepath.Dir(source), filepath.FromSlash(named))
}
