package readkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrShape reports JSON whose structure is not what the walker was asked
// to walk (an array where an object belongs).
var ErrShape = errors.New("readkit: unexpected JSON shape")

// Fields walks the object the decoder is about to read, calling fn with
// each key; fn must consume exactly that key's value (Decode, Skip, Fields
// or Items). It reads the closing brace too.
func Fields(dec *json.Decoder, fn func(key string) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, ok := t.(string)
		if !ok {
			return fmt.Errorf("%w: object key is %T", ErrShape, t)
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

// Items walks the array the decoder is about to read, calling fn with each
// index; fn must consume exactly that item. It reads the closing bracket.
func Items(dec *json.Decoder, fn func(i int) error) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for i := 0; dec.More(); i++ {
		if err := fn(i); err != nil {
			return err
		}
	}
	return expectDelim(dec, ']')
}

// Raw reads the next value and returns its bytes and the offset of its
// first byte in the decoder's input.
func Raw(dec *json.Decoder) (json.RawMessage, int64, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, 0, err
	}
	return raw, dec.InputOffset() - int64(len(raw)), nil
}

// Skip reads and drops the next value.
func Skip(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("%w: want %q, found %v", ErrShape, want, t)
	}
	return nil
}

// LineTracker counts the lines of what a decoder has read, so a byte offset
// the decoder reports becomes a line number without keeping the document:
// only the bytes read past the last asked offset are held, which is what
// the decoder itself buffers.
type LineTracker struct {
	r       io.Reader
	pending []byte // bytes read but not yet counted, starting at base
	base    int64
	line    int64 // 1-based line at base
}

// NewLineTracker wraps r, which starts at line 1, offset 0.
func NewLineTracker(r io.Reader) *LineTracker { return &LineTracker{r: r, line: 1} }

// Read passes reads through, remembering the bytes for LineAt.
func (t *LineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.pending = append(t.pending, p[:n]...)
	return n, err
}

// LineAt is the 1-based line holding byte offset off. Offsets must not go
// backwards between calls; an offset before the last one answers the last
// line known.
func (t *LineTracker) LineAt(off int64) int64 {
	if off <= t.base {
		return t.line
	}
	n := off - t.base
	if n > int64(len(t.pending)) {
		n = int64(len(t.pending))
	}
	t.line += int64(bytes.Count(t.pending[:n], []byte{'\n'}))
	t.pending = append(t.pending[:0], t.pending[n:]...)
	t.base += n
	return t.line
}
