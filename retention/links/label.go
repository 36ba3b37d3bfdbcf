package links

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on labels taken from a block. A name is longer than a type or a
// parameter; both are short enough that a label never dominates its line.
const (
	MaxNameRunes = 120
	MaxTypeRunes = 64
)

// Label makes s safe to show inside one line: control characters, Unicode
// format characters (bidi overrides, zero-width joiners) and the line and
// paragraph separators U+2028/U+2029 are removed, invalid UTF-8 becomes
// U+FFFD, the quote and bracket characters that delimit this package's lines
// are replaced by look-alikes that do not, and the result is cut to max
// runes with an ellipsis. So a label can neither start a line of its own nor
// close the line it sits in and forge another block's.
func Label(s string, max int) string { return clean(s, max, true) }

// clean is Label, with the delimiters replaced only when delims is set.
func clean(s string, max int, delims bool) string {
	if max <= 0 {
		return ""
	}
	if isPlainLabel(s, max, delims) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), max*4))
	n := 0
	for _, r := range s {
		switch {
		case delims && r == '"':
			r = '\''
		case delims && r == '[':
			r = '('
		case delims && r == ']':
			r = ')'
		case r == utf8.RuneError:
		case unicode.IsControl(r), r == 0x2028, r == 0x2029, unicode.Is(unicode.Cf, r):
			continue
		}
		if n == max {
			return trimEllipsis(b.String())
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// trimEllipsis replaces the last rune with an ellipsis to show a cut.
func trimEllipsis(s string) string {
	_, size := utf8.DecodeLastRuneInString(s)
	return s[:len(s)-size] + "…"
}

// isPlainLabel is the allocation-free fast path: short printable ASCII
// without delimiters.
func isPlainLabel(s string, max int, delims bool) bool {
	if len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || delims && (c == '"' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}
