package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"spillscope/sessions"
)

// readSlice reads up to limit bytes of f (opened by the file rule, shown as
// path) from offset, ending on a UTF-8 boundary so the window never shows
// half a character (the next slice starts where this one ended).
func readSlice(f *os.File, path string, offset, limit int64) (FileSlice, error) {
	out := FileSlice{Path: path, Offset: offset, State: sessions.FileExists}
	st, err := f.Stat()
	if err != nil {
		return out, fmt.Errorf("app: stat %s: %w", path, err)
	}
	out.Exists, out.Size = true, st.Size()
	buf := make([]byte, limit)
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return out, fmt.Errorf("app: read %s at %d: %w", path, offset, err)
	}
	buf = buf[:n]
	if offset+int64(n) < st.Size() {
		// Drop a trailing partial sequence; it is read with the next slice.
		buf = buf[:completeRunes(buf)]
	}
	out.Text = string(buf)
	out.EOF = offset+int64(len(buf)) >= st.Size()
	return out, nil
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
