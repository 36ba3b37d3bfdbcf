// Package jsontext reads JSON text where it lies: it validates values and
// decodes strings without encoding/json's reflection, and can decode a
// string over its own bytes, so a 10 MB tool result is walked once and its
// text costs no copy. The session readers and the retention core's parser
// share its string decoding; it knows nothing of either.
package jsontext

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting Value accepts; deeper input is reported
// invalid, for a caller to hand to encoding/json (whose own limit is 10000).
const MaxDepth = 512

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// String validates the string starting at b[i] == '"' as JSON does (no raw
// control characters; only JSON's escapes) and returns the index just past
// it, whether it holds an escape, and whether it is valid UTF-8 (which
// encoding/json would decode with replacement characters).
func String(b []byte, i int) (end int, escaped, validUTF8, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false, false, false
	}
	validUTF8 = true
	j := i + 1
	for j < len(b) {
		// Runs of plain ASCII go by in a tight loop; the rest is looked at
		// byte by byte.
		for j < len(b) && plain[b[j]] {
			j++
		}
		if j >= len(b) {
			break
		}
		c := b[j]
		switch {
		case c == '"':
			return j + 1, escaped, validUTF8, true
		case c == '\\':
			escaped = true
			if j+1 >= len(b) {
				return 0, false, false, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
					return 0, false, false, false
				}
				j += 6
			default:
				return 0, false, false, false
			}
		case c < 0x20:
			return 0, false, false, false
		case c < utf8.RuneSelf:
			j++
		default:
			r, n := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && n == 1 {
				validUTF8 = false
			}
			j += n
		}
	}
	return 0, false, false, false
}

// plain marks the bytes a string holds as they are: printable ASCII other
// than the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Value validates the JSON value starting at b[i] (no leading whitespace)
// and returns the index just past it; ok is false for anything
// encoding/json would reject, and for nesting deeper than MaxDepth.
func Value(b []byte, i int) (end int, ok bool) { return value(b, i, 0) }

func value(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		e, _, _, ok := String(b, i)
		return e, ok
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			return 0, false
		}
		if c == '[' {
			e, _, ok := container(b, i, '[', ']', func(e int) (int, bool, bool) {
				e, ok := value(b, e, depth+1)
				return e, false, ok
			})
			return e, ok
		}
		return Fields(b, i, func(_ []byte, _ bool, vs int) (int, bool) { return value(b, vs, depth+1) })
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return number(b, i)
	}
	return 0, false
}

func literal(b []byte, i int, word string) (int, bool) {
	if !bytes.HasPrefix(b[i:], []byte(word)) {
		return 0, false
	}
	return i + len(word), true
}

// number validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func number(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	return i, true
}

// Span is a validated value's place in the input: [Start, End), and for a
// string whether it holds an escape and whether it is valid UTF-8.
type Span struct {
	Start, End int
	Escaped    bool
	UTF8       bool
}

// Members calls fn for each member of the object at b[i] (no leading
// whitespace) with its key's raw bytes (between the quotes; an escaped key
// is passed as written, with keyEscaped set) and its value's Span, after
// validating the value. It returns the index past the object, and false
// for invalid JSON or when fn returns false.
func Members(b []byte, i int, fn func(key []byte, keyEscaped bool, v Span) bool) (int, bool) {
	return Fields(b, i, func(key []byte, keyEscaped bool, vs int) (int, bool) {
		v := Span{Start: vs}
		var ok bool
		if vs < len(b) && b[vs] == '"' {
			v.End, v.Escaped, v.UTF8, ok = String(b, vs)
		} else {
			v.End, ok = value(b, vs, 1)
		}
		return v.End, ok && fn(key, keyEscaped, v)
	})
}

// Fields is Members for a caller that validates each value itself: fn gets
// where the value starts and returns the index past it, or false.
func Fields(b []byte, i int, fn func(key []byte, keyEscaped bool, vs int) (ve int, ok bool)) (int, bool) {
	e, _, ok := container(b, i, '{', '}', func(ks int) (int, bool, bool) {
		ke, esc, _, ok := String(b, ks)
		if !ok {
			return 0, false, false
		}
		vs, ok := valueStart(b, ke)
		if !ok || vs >= len(b) {
			return 0, false, false
		}
		e, ok := fn(b[ks+1:ke-1], esc, vs)
		return e, false, ok
	})
	return e, ok
}

// valueStart is where a member's value starts, its key ending at ke: past
// the colon and the whitespace around it; false without the colon.
func valueStart(b []byte, ke int) (int, bool) {
	c := SkipSpace(b, ke)
	if c >= len(b) || b[c] != ':' {
		return 0, false
	}
	return SkipSpace(b, c+1), true
}

// Items calls fn for each element of the array at b[i] (no leading
// whitespace) with where it starts; fn validates the element and returns
// the index past it, or false. Items returns the index past the array, and
// false for invalid JSON or when fn returns false.
func Items(b []byte, i int, fn func(start int) (end int, ok bool)) (int, bool) {
	e, _, ok := container(b, i, '[', ']', func(s int) (int, bool, bool) {
		e, ok := fn(s)
		return e, false, ok
	})
	return e, ok
}

// container walks the object or array opening at b[i], for the validating
// and the skipping walkers alike: elem reads one member or element starting
// at its index and returns the index past it, and stop to end the walk
// there; container checks the separators and the closing bracket. stopped
// reports a walk elem ended (end is then past that element).
func container(b []byte, i int, open, closer byte, elem func(int) (end int, stop, ok bool)) (end int, stopped, ok bool) {
	if i >= len(b) || b[i] != open {
		return 0, false, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, false, true
	}
	for {
		if i >= len(b) {
			return 0, false, false
		}
		e, stop, ok := elem(i)
		if !ok {
			return 0, false, false
		}
		if stop {
			return e, true, true
		}
		i = SkipSpace(b, e)
		if i >= len(b) {
			return 0, false, false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case closer:
			return i + 1, false, true
		default:
			return 0, false, false
		}
	}
}

// Unescape decodes the JSON string escapes of in (a string's bytes between
// its quotes) into dst and returns the decoded length. dst may be in itself:
// an escape never decodes longer than it is written, so the write position
// never passes the read position. A surrogate escape that is not half of a
// pair decodes as U+FFFD, as encoding/json decodes it. ok is false for an
// escape JSON does not have, having written part of dst; valid UTF-8 in
// gives valid UTF-8 out.
func Unescape(dst, in []byte) (n int, ok bool) {
	w := 0
	for i := 0; i < len(in); {
		j := bytes.IndexByte(in[i:], '\\')
		if j < 0 {
			w += copy(dst[w:], in[i:])
			break
		}
		w += copy(dst[w:], in[i:i+j])
		i += j
		if i+1 >= len(in) {
			return w, false
		}
		c := in[i+1]
		switch c {
		case '"', '\\', '/':
		case 'n':
			c = '\n'
		case 't':
			c = '\t'
		case 'r':
			c = '\r'
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'u':
			r, ok := hex4(in, i+2)
			if !ok {
				return w, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+1 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
					if r2, ok := hex4(in, i+2); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							w += utf8.EncodeRune(dst[w:], dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			w += utf8.EncodeRune(dst[w:], r)
			continue
		default:
			return w, false
		}
		dst[w] = c
		w++
		i += 2
	}
	return w, true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
