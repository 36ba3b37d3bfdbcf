package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"spillscope/retention/links"
	"spillscope/sessions"
)

// A page is masked as it reads within the file: the bytes around it are read
// too, back and forth to the nearest hard stop (links.RunStart), so a
// credential cut by a page edge is recognised from its name on the page
// before and masked on both pages. Context is read in growing steps up to
// maxMaskContext; past that the run cut by the edge is masked whole.
const (
	firstMaskContext = 4 << 10
	maxMaskContext   = 4 << 20
	// pageGrace lets a page run on to the end of the word (or URL, or
	// value) it would cut, so a value is not split over two pages.
	pageGrace = 16 << 10
)

// readSlice reads up to limit bytes of f (opened by the file rule, shown as
// path) from offset, ending on a UTF-8 boundary so the window never shows
// half a character (the next slice starts at Next), masked unless reveal.
func readSlice(f *os.File, path string, offset, limit int64, reveal bool) (FileSlice, error) {
	out := FileSlice{Path: path, Offset: offset, Next: offset, Revealed: reveal, State: sessions.FileExists}
	st, err := f.Stat()
	if err != nil {
		return out, fmt.Errorf("app: stat %s: %w", path, err)
	}
	size := st.Size()
	out.Exists, out.Size = true, size
	offset = min(offset, size)
	out.Offset = offset
	end := min(offset+limit, size)

	// The bytes after the page are read either way, so a page ends where it
	// would masked or not; the bytes before only matter to masking.
	lo := offset
	hi, err := contextEnd(f, end, size)
	if err != nil {
		return out, fmt.Errorf("app: read %s after %d: %w", path, end, err)
	}
	if !reveal {
		lo, err = contextStart(f, offset)
		if err != nil {
			return out, fmt.Errorf("app: read %s before %d: %w", path, offset, err)
		}
	}
	buf := make([]byte, hi-lo)
	n, err := f.ReadAt(buf, lo)
	if err != nil && !errors.Is(err, io.EOF) {
		return out, fmt.Errorf("app: read %s at %d: %w", path, lo, err)
	}
	buf = buf[:n]
	hi = lo + int64(n)
	end = min(end, hi)
	if end < hi {
		if e, ok := links.RunEnd(string(buf[end-lo:min(hi-lo, end-lo+pageGrace)]), 0); ok {
			end += int64(e)
		}
	}
	if end < size {
		// Drop a trailing partial sequence; it is read with the next slice.
		end = lo + int64(completeRunes(buf[:end-lo]))
	}
	out.Next, out.EOF = end, end >= size
	page := buf[offset-lo : end-lo]
	if reveal {
		out.Text = string(page)
		return out, nil
	}
	text, spans := links.MaskWindow(links.Window{
		Text: string(buf), Start: int(offset - lo), End: int(end - lo),
		Before: lo > 0, After: hi < size,
	})
	out.Text, out.Masks = text, maskSpans(spans)
	return out, nil
}

// contextStart is where reading must begin for a page at offset to be
// masked as the whole file would mask it: at a hard stop before offset, or
// at the start of the file, or maxMaskContext back.
func contextStart(f *os.File, offset int64) (int64, error) {
	for step := int64(firstMaskContext); ; step = min(step*16, maxMaskContext) {
		lo := max(0, offset-step)
		buf := make([]byte, offset-lo)
		n, err := f.ReadAt(buf, lo)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i, ok := links.RunStart(string(buf[:n]), n); ok {
			return lo + int64(i) - 1, nil
		}
		if lo == 0 || step >= maxMaskContext {
			return lo, nil
		}
	}
}

// contextEnd is where reading may stop for a page ending at end: at a hard
// stop after it, the end of the file, or maxMaskContext on.
func contextEnd(f *os.File, end, size int64) (int64, error) {
	for step := int64(firstMaskContext); ; step = min(step*16, maxMaskContext) {
		hi := min(size, end+step)
		buf := make([]byte, hi-end)
		n, err := f.ReadAt(buf, end)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i, ok := links.RunEnd(string(buf[:n]), 0); ok {
			return end + int64(i) + 1, nil
		}
		if hi == size || step >= maxMaskContext {
			return end + int64(n), nil
		}
	}
}

// completeRunes is the length of buf without a trailing incomplete UTF-8
// sequence (invalid bytes elsewhere are left for the caller to show).
func completeRunes(buf []byte) int {
	for back := 1; back <= utf8.UTFMax && back <= len(buf); back++ {
		i := len(buf) - back
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				return i
			}
			return len(buf)
		}
	}
	return len(buf)
}
