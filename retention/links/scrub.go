package links

import (
	"strings"
	"unicode/utf8"
)

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
// scrubbed outside URLs too) and is meant to run after it. Its pairs are
// the pair half of Mask's recogniser: the text Mask shows has every value
// ScrubValues removes removed too.
func ScrubValues(text string) string {
	k := sink{text: text}
	pairSecrets(text, &k)
	if len(k.got) == 0 {
		return text
	}
	masked, _ := apply(text, 0, len(text), k.got)
	return masked
}

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
// listed credential name, and the list's spelling of it. Backslashes before
// the "=" (an escaped \u003d whose backslashes were doubled) are not part of
// the name.
func listedNameBefore(s string, eq int) (string, bool) {
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
		return "", false
	}
	if name, ok := credentialName(run); ok {
		return name, true
	}
	for p := 1; p < len(run); p++ {
		if !escapedSeparatorEndsAt(run, p) {
			continue
		}
		if name, ok := credentialName(run[p:]); ok {
			return name, true
		}
	}
	return "", false
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

// valueEnd is where a value starting at i ends: at whitespace or any other
// control character, a quote, an angle bracket, a backtick, a backslash (an
// escape follows), a closing bracket, &, ; or #, or a percent-encoded space,
// quote or separator. So a value never holds a hard stop (see RunStart).
func valueEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		if c := s[j]; c < utf8.RuneSelf && stopASCII[c] {
			return j
		}
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
