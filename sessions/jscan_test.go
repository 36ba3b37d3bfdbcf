package sessions

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStrMatchesEncodingJSON(t *testing.T) {
	tests := []struct{ name, in string }{
		{"plain", `"abc"`},
		{"escapes", `"a\nb\tc\"d\\e\/f\r\b\f"`},
		{"unicode", `"\u00e9\u4e2d"`},
		{"surrogate pair", `"\ud83d\ude00"`},
		{"lone surrogate", `"\ud83d x"`},
		{"reversed surrogates", `"\ude00\ud83d"`},
		{"ansi escape", `"\u001b[1mRUN\u001b[22m"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want string
			if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
				t.Fatal(err)
			}
			got, ok := str([]byte(tt.in))
			if !ok || got != want {
				t.Errorf("got %q %v, want %q", got, ok, want)
			}
		})
	}
}

func FuzzStr(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00"`, `"\u12"`, `"\x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var want string
		// str takes a value's exact range, as the scanner yields it:
		// no surrounding whitespace.
		if json.Unmarshal([]byte(in), &want) != nil || strings.TrimSpace(in) != in {
			str([]byte(in)) // must not panic
			return
		}
		if got, ok := str([]byte(in)); !ok || got != want {
			t.Fatalf("str(%q) = %q %v, want %q", in, got, ok, want)
		}
	})
}
