package samplegen

import (
	"strconv"
	"unicode/utf8"
)

// kv is one member of an ordered JSON object. The harnesses write their keys
// in a fixed order (tool_use_id before type in Claude Code's tool_result, for
// example); a Go map would sort them and the corpus would stop looking real.
type kv struct {
	K string
	V any
}

// obj is a JSON object whose members keep the order they were given.
type obj []kv

// o builds an obj from alternating keys and values.
func o(pairs ...any) obj {
	out := make(obj, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, kv{K: pairs[i].(string), V: pairs[i+1]})
	}
	return out
}

// with returns a copy of x with one more member at the end.
func (x obj) with(k string, v any) obj {
	out := make(obj, len(x), len(x)+1)
	copy(out, x)
	return append(out, kv{K: k, V: v})
}

// rawJSON is inserted verbatim.
type rawJSON []byte

// appendJSON encodes v compactly, the way JavaScript's JSON.stringify does:
// no HTML escaping, non-ASCII written as UTF-8, control characters as \n or
// \u001b. Claude Code and Gemini CLI are JavaScript programs, so their logs
// look like this; Codex (Rust serde) escapes the same way.
func appendJSON(b []byte, v any) []byte { return appendJSONIndent(b, v, "", 0) }

// appendJSONIndent is appendJSON with JSON.stringify(v, null, indent) layout
// when indent is not empty (Gemini CLI writes its chats with two spaces).
func appendJSONIndent(b []byte, v any, indent string, depth int) []byte {
	newline := func(b []byte, d int) []byte {
		if indent == "" {
			return b
		}
		b = append(b, '\n')
		for i := 0; i < d; i++ {
			b = append(b, indent...)
		}
		return b
	}
	colon := ":"
	if indent != "" {
		colon = ": "
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case obj:
		if len(x) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, m := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			b = appendString(b, m.K)
			b = append(b, colon...)
			b = appendJSONIndent(b, m.V, indent, depth+1)
		}
		b = newline(b, depth)
		return append(b, '}')
	case []any:
		if len(x) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			b = appendJSONIndent(b, e, indent, depth+1)
		}
		b = newline(b, depth)
		return append(b, ']')
	case []obj:
		items := make([]any, len(x))
		for i := range x {
			items[i] = x[i]
		}
		return appendJSONIndent(b, items, indent, depth)
	case []string:
		items := make([]any, len(x))
		for i := range x {
			items[i] = x[i]
		}
		return appendJSONIndent(b, items, indent, depth)
	case string:
		return appendString(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	case bool:
		return strconv.AppendBool(b, x)
	case rawJSON:
		return append(b, x...)
	default:
		// Every value the generator builds is one of the cases above; an
		// unexpected type is a generator bug, written visibly rather than
		// dropped so a test catches it.
		return appendString(b, "samplegen: unsupported value")
	}
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Invalid UTF-8 is replaced by
// U+FFFD so the output is always valid JSON.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
