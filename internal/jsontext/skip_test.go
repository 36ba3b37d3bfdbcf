package jsontext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	tests := []struct{ name, in string }{
		{"plain", `"abc"`},
		{"empty", `""`},
		{"escapes", `"a\nb\tc\"d\\e\/f\r\b\f"`},
		{"unicode", `"\u00e9\u4e2d"`},
		{"surrogate pair", `"\ud83d\ude00"`},
		{"lone surrogate", `"\ud83d x"`},
		{"reversed surrogates", `"\ude00\ud83d"`},
		{"invalid utf-8", "\"a\xffb\xe2\x82\""},
		{"invalid utf-8 beside escapes", "\"\xc3\\u00a9\xe2\x82\\n\x80\""},
		{"replacement char as written", "\"\xef\xbf\xbd\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want string
			if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
				t.Fatal(err)
			}
			got, ok := Decode([]byte(tt.in))
			if !ok || got != want {
				t.Errorf("got %q %v, want %q", got, ok, want)
			}
		})
	}
	for _, bad := range []string{`"\x"`, `"\u12"`, `abc`, `"`, `"a\"`} {
		if got, ok := Decode([]byte(bad)); ok {
			t.Errorf("Decode(%q) = %q, true; want false", bad, got)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00"`, `"\u12"`, `"\x"`, "\"\xff\\n\"", "\"\xe2\\u00ac\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var want string
		if json.Unmarshal([]byte(in), &want) != nil || strings.TrimSpace(in) != in {
			Decode([]byte(in)) // must not panic
			return
		}
		if got, ok := Decode([]byte(in)); !ok || got != want {
			t.Fatalf("Decode(%q) = %q %v, want %q", in, got, ok, want)
		}
	})
}

func TestSkipValue(t *testing.T) {
	tests := []struct {
		in   string
		end  int // -1: not ok
		name string
	}{
		{`"a\"b" x`, 6, "escaped quote"},
		{`"a\\" x`, 5, "escaped backslash"},
		{`{"a":[1,"]",{}]} x`, 16, "nested"},
		{`[1,2] x`, 5, "array"},
		{`true,`, 4, "true"},
		{`tru`, -1, "short literal"},
		{`nul]`, -1, "wrong literal"},
		{`-1.5e+3,`, 7, "number"},
		{`{"a":1]`, -1, "mismatched"},
		{`{"a":"`, -1, "open string"},
		{`x`, -1, "not a value"},
		{strings.Repeat("[", 200) + strings.Repeat("]", 200), 400, "deeper than the stack buffer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			end, ok := SkipValue([]byte(tt.in), 0)
			if !ok {
				end = -1
			}
			if end != tt.end {
				t.Errorf("SkipValue(%q) = %d, want %d", tt.in, end, tt.end)
			}
		})
	}
}

func TestEachMemberStops(t *testing.T) {
	b := []byte(` { "a" : 1 , "b":[2], "c":3} `)
	var keys []string
	end, stopped, ok := EachMember(b, 0, func(k []byte, vs, ve int) bool {
		keys = append(keys, string(k))
		return string(k) != "b"
	})
	if !ok || !stopped || string(b[:end]) != ` { "a" : 1 , "b":[2]` || strings.Join(keys, ",") != "a,b" {
		t.Errorf("end %d stopped %v ok %v keys %v", end, stopped, ok, keys)
	}
	end, stopped, ok = EachElement([]byte(`[]`), 0, func(int, int, int) bool { return true })
	if !ok || stopped || end != 2 {
		t.Errorf("empty array: end %d stopped %v ok %v", end, stopped, ok)
	}
}

// The walkers find the same members and elements encoding/json finds, with
// the same raw values, in any JSON it accepts.
func FuzzEachMember(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,{"c":"}"}],"d":"\\"}`, `[1,"]",{}]`, `{"k":"\ud83d"}`, ` [ true , null ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil && m != nil {
			seen := map[string]string{}
			end, _, ok := EachMember(b, 0, func(k []byte, vs, ve int) bool {
				key, _ := Decode(append(append([]byte{'"'}, k...), '"'))
				seen[key] = string(b[vs:ve])
				return true
			})
			if !ok || SkipSpace(b, end) != len(b) {
				t.Fatalf("EachMember could not walk %q", b)
			}
			for k, v := range m {
				if seen[k] != string(v) {
					t.Fatalf("key %q: EachMember %q, encoding/json %q", k, seen[k], v)
				}
			}
			if len(seen) != len(m) {
				t.Fatalf("EachMember found %d keys in %q, encoding/json %d", len(seen), b, len(m))
			}
		}
		var a []json.RawMessage
		if json.Unmarshal(b, &a) == nil && a != nil {
			var got [][]byte
			end, _, ok := EachElement(b, 0, func(_, vs, ve int) bool {
				got = append(got, b[vs:ve])
				return true
			})
			if !ok || SkipSpace(b, end) != len(b) || len(got) != len(a) {
				t.Fatalf("EachElement walked %q to %d (%v), %d elements; encoding/json %d", b, end, ok, len(got), len(a))
			}
			for i := range a {
				if !bytes.Equal(got[i], a[i]) {
					t.Fatalf("element %d: %q, encoding/json %q", i, got[i], a[i])
				}
			}
		}
		EachElement(b, 0, func(int, int, int) bool { return true })
	})
}

func TestInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"42", 42, true}, {"-7", -7, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false},
		{"1.5", 0, false}, {"", 0, false}, {"-", 0, false}, {"1e3", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := Int([]byte(tt.in))
			if ok != tt.ok || ok && got != tt.want {
				t.Errorf("Int(%q) = %d %v, want %d %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// walkTree rebuilds the value at b[i] by descending with WalkMembers and
// WalkElements (keys decoded, the last of a name winning, as
// encoding/json keeps), and returns where the walk ended.
func walkTree(t *testing.T, b []byte, i int) (any, int, bool) {
	switch b[i] {
	case '{':
		m := map[string]any{}
		end, _, ok := WalkMembers(b, i, func(k []byte, vs int) (int, bool, bool) {
			key, ok := Decode(append(append([]byte{'"'}, k...), '"'))
			if !ok || vs >= len(b) {
				return 0, false, false
			}
			v, ve, ok := walkTree(t, b, vs)
			m[key] = v
			return ve, false, ok
		})
		return m, end, ok
	case '[':
		a := []any{}
		end, _, ok := WalkElements(b, i, func(idx, vs int) (int, bool, bool) {
			if idx != len(a) || vs >= len(b) {
				t.Fatalf("element %d at %d, %d seen", idx, vs, len(a))
			}
			v, ve, ok := walkTree(t, b, vs)
			a = append(a, v)
			return ve, false, ok
		})
		return a, end, ok
	}
	ve, ok := SkipValue(b, i)
	if !ok {
		return nil, 0, false
	}
	var v any
	if err := json.Unmarshal(b[i:ve], &v); err != nil {
		return nil, 0, false
	}
	return v, ve, true
}

// A walk that descends into every object and array (WalkMembers,
// WalkElements) finds what encoding/json finds in any JSON it accepts, and
// ends where SkipValue ends; on any input it agrees with SkipValue about
// where a value it walked whole ends.
func FuzzWalkMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,{"c":"}"}],"d":"\\"}`, `[1,"]",{}]`, `{"k":"\ud83d","k":2}`, ` [ true , null ] `,
		`{"message":{"content":[{"type":"tool_result","content":"x\"y"}]}}`, `{"a":{"b" 1}}`, `{"a":[1 2]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		i := SkipSpace(b, 0)
		if i >= len(b) {
			return
		}
		got, end, ok := walkTree(t, b, i)
		if ok {
			if se, sok := SkipValue(b, i); !sok || se != end {
				t.Fatalf("walk of %q ended at %d, SkipValue at %d (%v)", b, end, se, sok)
			}
		}
		var want any
		if json.Unmarshal(b, &want) != nil {
			return
		}
		if !ok || SkipSpace(b, end) != len(b) {
			t.Fatalf("could not walk %q (ended at %d, %v)", b, end, ok)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(gj, wj) {
			t.Fatalf("walk of %q found %s, encoding/json %s", b, gj, wj)
		}
	})
}
