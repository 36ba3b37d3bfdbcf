package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// whole reports whether b is one valid JSON value by Value.
func whole(b []byte) bool {
	i := SkipSpace(b, 0)
	end, ok := Value(b, i)
	return ok && SkipSpace(b, end) == len(b)
}

func TestValueAgreesWithEncodingJSON(t *testing.T) {
	tests := []string{
		`{}`, `[]`, `{"a":[1,-2.5e+3,0.1,true,false,null,"x\u00e9\n"]}`, ` [ {"k" : "v"} , 3 ] `,
		`{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `1e`, `"\x"`, `"\u12g4"`, "\"a\tb\"", `tru`, `nul`, `{"a" 1}`,
		`[1] [2]`, `{"a":"\ud800"}`, "\"\xff\"", `"`, `{`, `[`, `{"a":`, strings.Repeat("[", 100) + strings.Repeat("]", 100),
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			if got, want := whole([]byte(in)), json.Valid([]byte(in)); got != want {
				t.Errorf("Value says %v, encoding/json %v", got, want)
			}
		})
	}
}

func FuzzValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b\n",null]}`, `[1e5,-0.0]`, `"\ud83d\ude00"`, `{"a":}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if strings.Count(string(b), "[")+strings.Count(string(b), "{") >= MaxDepth {
			return
		}
		if got, want := whole(b), json.Valid(b); got != want {
			t.Fatalf("%q: Value says %v, encoding/json %v", b, got, want)
		}
	})
}

// Unescape decodes a valid string of valid UTF-8 as encoding/json does,
// into a separate buffer and over itself alike.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00"`, `"\ud83d\u0041"`, `"\udc00x"`, `"\/\\\"\b\f\r\t"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		b := []byte(in)
		end, _, valid, ok := String(b, 0)
		if !ok || end != len(b) || !valid {
			return
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%q validated but encoding/json says %v", in, err)
		}
		inner := b[1 : len(b)-1]
		dst := make([]byte, len(inner))
		n, ok := Unescape(dst, inner)
		if !ok || string(dst[:n]) != want || !utf8.Valid(dst[:n]) {
			t.Fatalf("%q: Unescape gives %q %v, want %q", in, dst[:n], ok, want)
		}
		if n, ok := Unescape(inner, inner); !ok || string(inner[:n]) != want {
			t.Fatalf("%q: in place gives %q", in, inner[:n])
		}
	})
}
