package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
	"unsafe"

	"spillscope/internal/jsontext"
)

// The scanner below walks JSON in place instead of decoding it: session logs
// are dominated by lines the index never needs in full (progress copies,
// thinking blocks, file snapshots), and skipping a string is a memchr while
// decoding it is an allocation and a copy. Values are addressed by byte
// ranges of the line, which is also how offsets of embedded tool results are
// found without a second pass.

// errJSON reports input the scanner cannot walk.
var errJSON = errors.New("sessions: malformed JSON")

func skipWS(b []byte, i int) int {
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

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for j <= len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errJSON
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
	return 0, errJSON
}

// skipValue returns the index just past the value starting at b[i] (no
// leading whitespace). Brackets are matched; commas and colons inside nested
// containers are not checked, which is enough to find where a value ends.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch c := b[i]; c {
	case '"':
		return skipString(b, i)
	case '{', '[':
		var stackBuf [64]byte
		stack := stackBuf[:0]
		for i < len(b) {
			switch b[i] {
			case '"':
				e, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = e
				continue
			case '{':
				stack = append(stack, '}')
			case '[':
				stack = append(stack, ']')
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != b[i] {
					return 0, errJSON
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errJSON
	case 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		j := i + 1
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j, nil
			case '"', '{', '[', ':':
				return 0, errJSON
			}
			j++
		}
		return j, nil
	default:
		return 0, errJSON
	}
}

// eachField calls fn for every member of the object starting at b[i] (after
// whitespace) with the raw key bytes (between the quotes) and the value's
// range. fn returns false to stop early; stopped reports that. end is the
// index just past the object (or past the last value seen when stopped).
func eachField(b []byte, i int, fn func(key []byte, vs, ve int) bool) (end int, stopped bool, err error) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, false, errJSON
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, false, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false, errJSON
		}
		ke, err := skipString(b, i)
		if err != nil {
			return 0, false, err
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, false, errJSON
		}
		vs := skipWS(b, i+1)
		ve, err := skipValue(b, vs)
		if err != nil {
			return 0, false, err
		}
		if !fn(key, vs, ve) {
			return ve, true, nil
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return 0, false, errJSON
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, false, nil
		default:
			return 0, false, errJSON
		}
	}
}

// eachItem calls fn for every element of the array starting at b[i].
func eachItem(b []byte, i int, fn func(idx, vs, ve int) bool) (int, error) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '[' {
		return 0, errJSON
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		vs := i
		ve, err := skipValue(b, vs)
		if err != nil {
			return 0, err
		}
		if !fn(n, vs, ve) {
			return ve, nil
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return 0, errJSON
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, errJSON
		}
	}
}

// wholeObject checks that b holds one object and nothing but whitespace after
// it, calling fn for each top-level member.
func wholeObject(b []byte, fn func(key []byte, vs, ve int) bool) (stopped bool, err error) {
	end, stopped, err := eachField(b, 0, fn)
	if err != nil || stopped {
		return stopped, err
	}
	if skipWS(b, end) != len(b) {
		return false, errJSON
	}
	return false, nil
}

// str decodes a JSON string value; anything else yields "" and false.
func str(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	// Invalid UTF-8 goes through encoding/json, which replaces it with
	// U+FFFD, so sizes and text agree with any other JSON reader.
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	if s, ok := unescape(inner); ok {
		return s, true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// ownedMin is the size from which a string of an owned line is decoded in
// place rather than copied: below it a copy is cheap, and a small string
// (a name, an id) that outlives the line must not keep a huge line alive.
const ownedMin = 64 << 10

// strIn decodes a JSON string value of a line, as str does. When the line's
// bytes are its own (Line.Owned) and the value is large, the escapes are
// decoded in place, over the value's own bytes (an escape never decodes
// longer than it is written), and the string shares that memory: a 50 MB
// text block then costs nothing beyond the line that holds it. The value's
// bytes are garbage afterwards, so the caller must be done scanning them and
// must never decode the same value twice. Invalid UTF-8 (which decodes
// longer, as U+FFFD) falls back to a copy.
func strIn(v []byte, owned bool) (string, bool) {
	if !owned || len(v) < ownedMin {
		return str(v)
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if !utf8.Valid(inner) {
		return str(v)
	}
	n := len(inner)
	if bytes.IndexByte(inner, '\\') >= 0 {
		var ok bool
		// A bad escape fails encoding/json too, so str's answer would be
		// the same; valid UTF-8 with valid escapes decodes to valid UTF-8.
		if n, ok = jsontext.Unescape(inner, inner); !ok {
			return "", false
		}
	}
	// The line's buffer is never written again (Line.Owned), so the string
	// is immutable as Go requires for as long as it lives.
	return unsafe.String(unsafe.SliceData(inner), n), true
}

// unescape decodes JSON string escapes. Tool output is full of \n and \t;
// a hand loop over memchr'd runs is several times faster than
// encoding/json. Anything odd (a bad escape, invalid UTF-8) falls back to
// encoding/json.
func unescape(in []byte) (string, bool) {
	buf := make([]byte, len(in))
	n, ok := jsontext.Unescape(buf, in)
	if !ok || !utf8.Valid(buf[:n]) {
		return "", false
	}
	return string(buf[:n]), true
}

// isTrue reports a JSON true literal.
func isTrue(v []byte) bool { return string(v) == "true" }

// num decodes a non-negative JSON integer, ignoring anything else (usage
// fields are integers; a float or string there is not worth a diagnostic).
func num(v []byte) int64 {
	var n int64
	if len(v) == 0 {
		return 0
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
		if n > 1<<53 {
			return 0
		}
	}
	return n
}

// field returns the value range of key in the object at b[i:], or ok false.
func field(b []byte, key string) (v []byte, ok bool) {
	_, _, err := eachField(b, 0, func(k []byte, vs, ve int) bool {
		if string(k) == key {
			v, ok = b[vs:ve], true
			return false
		}
		return true
	})
	if err != nil && !ok {
		return nil, false
	}
	return v, ok
}
