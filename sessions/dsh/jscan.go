package dsh

import "spillscope/internal/jsontext"

// Most of a dsh log is text the reader never needs decoded (streamed
// deltas, reasoning, system prompts, tool schemas), and a tool result's
// text is needed once. encoding/json validates a whole value before it
// decodes it, and again for every nested RawMessage, so a big line would be
// walked five or six times; internal/jsontext walks it once, in place, and
// hands out the byte ranges of the members asked for. What is kept is
// decoded (jstr, small objects through encoding/json) or copied, so nothing
// kept aliases the line buffer. The helpers below give its walkers the
// value-slice shape this package's readers use.

// fields calls fn with each member of the object v (its key without
// quotes, escapes left in, and its value's bytes) until fn returns false.
// It reports whether v is an object it could walk to the end.
func fields(v []byte, fn func(key, val []byte) bool) bool {
	_, _, ok := jsontext.EachMember(v, 0, func(k []byte, vs, ve int) bool { return fn(k, v[vs:ve]) })
	return ok
}

// items calls fn with each element of the array v until fn returns false.
func items(v []byte, fn func(val []byte) bool) bool {
	_, _, ok := jsontext.EachElement(v, 0, func(_, vs, ve int) bool { return fn(v[vs:ve]) })
	return ok
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

// jstr decodes a string value as encoding/json does.
func jstr(v []byte) (string, bool) { return jsontext.Decode(v) }

// jint decodes an integer value (no fraction or exponent).
func jint(v []byte) (int64, bool) { return jsontext.Int(v) }

func jtrue(v []byte) bool { return string(v) == "true" }

func isNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }
