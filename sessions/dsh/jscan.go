package dsh

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Most of a dsh log is text the reader never needs decoded (streamed
// deltas, reasoning, system prompts, tool schemas), and a tool result's
// text is needed once. encoding/json validates a whole value before it
// decodes it, and again for every nested RawMessage, so a big line would be
// walked five or six times; this scanner walks it once, in place, and hands
// out the byte ranges of the members asked for. What is kept is decoded
// (jstr, small objects through encoding/json) or copied, so nothing kept
// aliases the line buffer.

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		q := j + k
		esc := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			esc++
		}
		if esc%2 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
	return 0, false
}

// skipValue returns the index just past the value at b[i]. Containers are
// matched bracket by bracket; what is inside is not otherwise checked.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		var buf [32]byte
		stack := buf[:0]
		for i < len(b) {
			switch c := b[i]; c {
			case '"':
				e, ok := skipString(b, i)
				if !ok {
					return 0, false
				}
				i = e
				continue
			case '{':
				stack = append(stack, '}')
			case '[':
				stack = append(stack, ']')
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != c {
					return 0, false
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	default:
		j := i
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
			j++
		}
		return j, j > i
	}
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}

// fields calls fn with each member of the object v (its key without
// quotes, escapes left in, and its value's bytes) until fn returns false.
// It reports whether v is an object it could walk to the end.
func fields(v []byte, fn func(key, val []byte) bool) bool {
	i := skipWS(v, 0)
	if i >= len(v) || v[i] != '{' {
		return false
	}
	i = skipWS(v, i+1)
	if i < len(v) && v[i] == '}' {
		return true
	}
	for i < len(v) {
		if v[i] != '"' {
			return false
		}
		ke, ok := skipString(v, i)
		if !ok {
			return false
		}
		key := v[i+1 : ke-1]
		i = skipWS(v, ke)
		if i >= len(v) || v[i] != ':' {
			return false
		}
		i = skipWS(v, i+1)
		ve, ok := skipValue(v, i)
		if !ok {
			return false
		}
		if !fn(key, v[i:ve]) {
			return true
		}
		i = skipWS(v, ve)
		if i < len(v) && v[i] == '}' {
			return true
		}
		if i >= len(v) || v[i] != ',' {
			return false
		}
		i = skipWS(v, i+1)
	}
	return false
}

// items calls fn with each element of the array v until fn returns false.
func items(v []byte, fn func(val []byte) bool) bool {
	i := skipWS(v, 0)
	if i >= len(v) || v[i] != '[' {
		return false
	}
	i = skipWS(v, i+1)
	if i < len(v) && v[i] == ']' {
		return true
	}
	for i < len(v) {
		ve, ok := skipValue(v, i)
		if !ok {
			return false
		}
		if !fn(v[i:ve]) {
			return true
		}
		i = skipWS(v, ve)
		if i < len(v) && v[i] == ']' {
			return true
		}
		if i >= len(v) || v[i] != ',' {
			return false
		}
		i = skipWS(v, i+1)
	}
	return false
}

// field returns the value of one member of the object v.
func field(v []byte, key string) ([]byte, bool) {
	var out []byte
	found := false
	fields(v, func(k, val []byte) bool {
		if string(k) == key {
			out, found = val, true
			return false
		}
		return true
	})
	return out, found
}

// jstr decodes a string value as encoding/json does: escapes resolved, an
// unpaired surrogate escape and each invalid UTF-8 byte become U+FFFD.
func jstr(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	in := v[1 : len(v)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in), true
	}
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		c := in[i]
		if c != '\\' {
			// Copy the run up to the next escape at once when it is valid
			// UTF-8 (almost always).
			j := bytes.IndexByte(in[i:], '\\')
			if j < 0 {
				j = len(in) - i
			}
			if run := in[i : i+j]; utf8.Valid(run) {
				out = append(out, run...)
				i += j
				continue
			}
		}
		if c == '\\' {
			if i+1 >= len(in) {
				return "", false
			}
			switch e := in[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(in, i+2)
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(in, i+2); ok && i+1 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							out = utf8.AppendRune(out, d)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return "", false
			}
			i += 2
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, in[i:i+n]...)
		}
		i += n
	}
	return string(out), true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// jint decodes an integer value (no fraction or exponent).
func jint(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 {
		if len(v) > 18 {
			n, err := strconv.ParseInt(string(v), 10, 64)
			if neg {
				n = -n
			}
			return n, err == nil
		}
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func jtrue(v []byte) bool { return string(v) == "true" }

func isNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }
