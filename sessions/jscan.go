package sessions

import (
	"bytes"
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

// eachField calls fn for every member of the object starting at b[i] (after
// whitespace) with the raw key bytes (between the quotes) and the value's
// range. fn returns false to stop early; stopped reports that. end is the
// index just past the object (or past the last value seen when stopped).
func eachField(b []byte, i int, fn func(key []byte, vs, ve int) bool) (end int, stopped bool, err error) {
	end, stopped, ok := jsontext.EachMember(b, i, fn)
	if !ok {
		return 0, false, errJSON
	}
	return end, stopped, nil
}

// eachItem calls fn for every element of the array starting at b[i].
func eachItem(b []byte, i int, fn func(idx, vs, ve int) bool) (int, error) {
	end, _, ok := jsontext.EachElement(b, i, fn)
	if !ok {
		return 0, errJSON
	}
	return end, nil
}

// wholeObject checks that b holds one object and nothing but whitespace after
// it, calling fn for each top-level member.
func wholeObject(b []byte, fn func(key []byte, vs, ve int) bool) (stopped bool, err error) {
	return walkObject(b, func(k []byte, vs int) (int, bool, bool) {
		ve, ok := jsontext.SkipValue(b, vs)
		if !ok {
			return 0, false, false
		}
		return ve, !fn(k, vs, ve), true
	})
}

// walkObject is wholeObject for a caller that walks the values it wants as
// it meets them (jsontext.WalkMembers).
func walkObject(b []byte, fn func(key []byte, vs int) (ve int, stop, ok bool)) (stopped bool, err error) {
	end, stopped, ok := jsontext.WalkMembers(b, 0, fn)
	if !ok {
		return false, errJSON
	}
	if stopped {
		return true, nil
	}
	if jsontext.SkipSpace(b, end) != len(b) {
		return false, errJSON
	}
	return false, nil
}

// str decodes a JSON string value as encoding/json does; anything else
// yields "" and false.
func str(v []byte) (string, bool) { return jsontext.Decode(v) }

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

// isTrue reports a JSON true literal.
func isTrue(v []byte) bool { return string(v) == "true" }

// num decodes a non-negative JSON integer, ignoring anything else (usage
// fields are integers; a float or string there is not worth a diagnostic).
func num(v []byte) int64 {
	n, ok := jsontext.Int(v)
	if !ok || n < 0 || n > 1<<53 {
		return 0
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
