package links

import "strings"

// ScrubValues returns text with the value of every listed credential
// parameter written as name=value replaced by "[redacted]", wherever it
// stands and however it is escaped: in a URL Redact does not see as one (a
// doubly JSON-escaped https:\\/\\/…, a fully percent-encoded
// https%3A%2F%2F…), in shell or environment text (X-Amz-Signature=… on its
// own), with "=" written as %3D or \u003d. Names are compared as CheckURI
// compares them (NormalizeName), so access_token, accessToken and
// access%5Ftoken are all caught; the name itself is kept. Text without such
// a pair is returned as it is, without copying.
//
// It is for text that is stored, such as the full-text index, where a
// credential value must never land even when the URL around it was not
// recognised; it is wider than Redact (a listed name such as code or key is
// scrubbed outside URLs too) and is meant to run after it.
func ScrubValues(text string) string {
	var b *strings.Builder
	last := 0
	for i := 0; i < len(text); {
		eq, width := nextEquals(text, i)
		if eq < 0 {
			break
		}
		vStart := eq + width
		if !listedNameBefore(text, eq) {
			i = vStart
			continue
		}
		if strings.HasPrefix(text[vStart:], redactedValue) {
			i = vStart + len(redactedValue) // scrubbed before
			continue
		}
		vEnd := valueEnd(text, vStart)
		if vEnd == vStart {
			i = vStart
			continue
		}
		if b == nil {
			b = &strings.Builder{}
			b.Grow(len(text))
		}
		b.WriteString(text[last:vStart])
		b.WriteString(redactedValue)
		last = vEnd
		i = vEnd
	}
	if b == nil {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// redactedValue replaces a scrubbed value.
const redactedValue = "[redacted]"

// nextEquals finds the next "=", "%3D" (either case) or "\u003d" (either
// case, any number of backslashes before it) at or after i.
func nextEquals(s string, i int) (at, width int) {
	for i < len(s) {
		j := strings.IndexAny(s[i:], "=%\\")
		if j < 0 {
			return -1, 0
		}
		k := i + j
		switch s[k] {
		case '=':
			return k, 1
		case '%':
			if k+2 < len(s) && s[k+1] == '3' && (s[k+2] == 'D' || s[k+2] == 'd') {
				return k, 3
			}
		case '\\':
			if k+5 < len(s) && s[k+1] == 'u' && s[k+2] == '0' && s[k+3] == '0' && s[k+4] == '3' && (s[k+5] == 'd' || s[k+5] == 'D') {
				return k, 6
			}
		}
		i = k + 1
	}
	return -1, 0
}

// maxNameRun bounds how far back a name is looked for.
const maxNameRun = 96

func isNameByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.' || c == '%' || c == '[' || c == ']'
}

// listedNameBefore reports whether the run of name bytes ending at eq, or a
// part of it that follows an escaped separator (%3F, %26, %3B, %23 or
// u0026, as a fully encoded or JSON-escaped URL writes ? and &), is a
// listed credential name. Backslashes before the "=" (an escaped \u003d
// whose backslashes were doubled) are not part of the name.
func listedNameBefore(s string, eq int) bool {
	end := eq
	for end > 0 && s[end-1] == '\\' {
		end--
	}
	start := end
	for start > 0 && end-start < maxNameRun && isNameByte(s[start-1]) {
		start--
	}
	run := s[start:end]
	if run == "" {
		return false
	}
	if _, ok := credentialName(run); ok {
		return true
	}
	for p := 1; p < len(run); p++ {
		if !escapedSeparatorEndsAt(run, p) {
			continue
		}
		if _, ok := credentialName(run[p:]); ok {
			return true
		}
	}
	return false
}

// escapedSeparatorEndsAt reports whether run[:p] ends with an escaped query
// separator.
func escapedSeparatorEndsAt(run string, p int) bool {
	if p >= 3 && run[p-3] == '%' {
		hi, lo := run[p-2], run[p-1]|0x20
		if hi == '3' && (lo == 'f' || lo == 'b') || hi == '2' && (lo == '6' || lo == '3') {
			return true
		}
	}
	if p >= 5 && run[p-5] == 'u' && run[p-4] == '0' && run[p-3] == '0' {
		hi, lo := run[p-2], run[p-1]|0x20
		if hi == '2' && lo == '6' || hi == '3' && lo == 'f' {
			return true
		}
	}
	return false
}

// valueEnd is where a value starting at i ends: at whitespace, a quote, an
// angle bracket, a backtick, a backslash (an escape follows), a closing
// bracket, &, ; or #, or a percent-encoded space, quote or separator.
func valueEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '<', '>', '`', '\\', ')', ']', '}', '&', ';', '#', ',':
			return j
		case '%':
			if j+2 < len(s) {
				hi, lo := s[j+1], s[j+2]|0x20
				if hi == '2' && (lo == '6' || lo == '0' || lo == '2' || lo == '3' || lo == '7' || lo == 'c') || hi == '3' && (lo == 'b' || lo == 'c' || lo == 'e') {
					return j
				}
			}
		}
	}
	return len(s)
}
