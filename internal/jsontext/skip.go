package jsontext

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// The walkers below find where values end without validating what is
// inside them: a session log is mostly text the readers never need (progress
// copies, reasoning, tool schemas), and skipping a string is a memchr where
// validating it is a look at every byte. Brackets are matched and object
// and array separators checked where a walker descends; a value skipped
// whole is trusted to be JSON. Readers that keep a value decode it with
// Decode, or validate it with Value.

// SkipString returns the index just past the string starting at
// b[i] == '"', finding its closing quote by the backslashes before it.
func SkipString(b []byte, i int) (int, bool) {
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

// SkipValue returns the index just past the value starting at b[i] (no
// leading whitespace). Containers are matched bracket by bracket, strings
// skipped by SkipString; literals are checked whole and numbers by their
// characters.
func SkipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		var buf [64]byte
		stack := buf[:0]
		for i < len(b) {
			switch c := b[i]; c {
			case '"':
				e, ok := SkipString(b, i)
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
		for j < len(b) && numberByte[b[j]] {
			j++
		}
		return j, j > i
	}
}

// numberByte marks the bytes a JSON number is written with.
var numberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eE") {
		t[c] = true
	}
	return t
}()

// EachMember calls fn for each member of the object starting at b[i] (after
// whitespace) with its key's raw bytes (between the quotes, escapes left
// in) and its value's range b[vs:ve], found by SkipValue. fn returns false
// to stop early, and stopped reports that. end is the index just past the
// object, or past the last value seen when stopped; ok is false for input
// the walk cannot follow.
func EachMember(b []byte, i int, fn func(key []byte, vs, ve int) bool) (end int, stopped, ok bool) {
	return WalkMembers(b, i, func(key []byte, vs int) (int, bool, bool) {
		ve, ok := SkipValue(b, vs)
		if !ok {
			return 0, false, false
		}
		return ve, !fn(key, vs, ve), true
	})
}

// WalkMembers is EachMember for a caller that walks the values it wants
// itself, descending into them once instead of skipping them whole and
// walking them again: fn gets each key and where its value starts, and
// returns where the value ends, as SkipValue would (and SkipValue's answer
// for a value it does not walk), whether to stop, and false where SkipValue
// fails.
func WalkMembers(b []byte, i int, fn func(key []byte, vs int) (ve int, stop, ok bool)) (end int, stopped, ok bool) {
	return container(b, SkipSpace(b, i), '{', '}', func(ks int) (int, bool, bool) {
		if b[ks] != '"' {
			return 0, false, false
		}
		ke, ok := SkipString(b, ks)
		if !ok {
			return 0, false, false
		}
		vs, ok := valueStart(b, ke)
		if !ok {
			return 0, false, false
		}
		return fn(b[ks+1:ke-1], vs)
	})
}

// EachElement calls fn for each element of the array starting at b[i]
// (after whitespace) with its index and range b[vs:ve], as EachMember does
// for an object's members.
func EachElement(b []byte, i int, fn func(idx, vs, ve int) bool) (end int, stopped, ok bool) {
	return WalkElements(b, i, func(idx, vs int) (int, bool, bool) {
		ve, ok := SkipValue(b, vs)
		if !ok {
			return 0, false, false
		}
		return ve, !fn(idx, vs, ve), true
	})
}

// WalkElements is WalkMembers for an array's elements.
func WalkElements(b []byte, i int, fn func(idx, vs int) (ve int, stop, ok bool)) (end int, stopped, ok bool) {
	n := 0
	return container(b, SkipSpace(b, i), '[', ']', func(vs int) (int, bool, bool) {
		ve, stop, ok := fn(n, vs)
		n++
		return ve, stop, ok
	})
}

// Decode decodes a string value (its exact bytes, quotes included) as
// encoding/json decodes it: escapes resolved, a surrogate escape that is not
// half of a pair and each byte of invalid UTF-8 become U+FFFD. ok is false
// for anything but a quoted string and for an escape JSON does not have.
// Tool output is full of \n and \t, and a memchr'd copy between them is
// several times faster than encoding/json.
func Decode(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	in := v[1 : len(v)-1]
	valid := utf8.Valid(in)
	if valid && bytes.IndexByte(in, '\\') < 0 {
		return string(in), true
	}
	buf := make([]byte, len(in))
	n, ok := Unescape(buf, in)
	if !ok {
		return "", false
	}
	out := buf[:n]
	if !valid {
		// A decoded escape is a whole UTF-8 sequence that starts with a
		// lead byte, so no sequence spans a raw run and an escape: the
		// invalid bytes of the output are exactly those of the input.
		out = replaceInvalid(out)
	}
	if len(out) == 0 {
		return "", true
	}
	// buf is this call's own and never written again.
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// replaceInvalid replaces each byte of b that does not start a valid UTF-8
// sequence with U+FFFD, as encoding/json does.
func replaceInvalid(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/2)
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// Int decodes an integer value (no fraction or exponent) as encoding/json
// decodes it into an int64.
func Int(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	d := v
	if neg {
		d = v[1:]
	}
	if len(d) == 0 {
		return 0, false
	}
	if len(d) > 18 {
		// Long enough to overflow: let strconv say.
		n, err := strconv.ParseInt(string(v), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, c := range d {
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
