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

// strIn decodes what str decodes, in place for a large value of an owned
// line, whatever the escapes: the padding makes every case large.
func TestStrInMatchesStr(t *testing.T) {
	pad := strings.Repeat("x", ownedMin)
	tests := []struct{ name, inner string }{
		{"no escapes", pad},
		{"escapes", `a\nb\tc\"d\\e\/f\r\b\f` + pad + `\n`},
		{"unicode", `\u00e9\u4e2d` + pad},
		{"surrogate pair", pad + `\ud83d\ude00`},
		{"lone surrogate", `\ud83d x` + pad},
		{"reversed surrogates", `\ude00\ud83d` + pad},
		{"raw multibyte", "é中" + pad},
		{"invalid utf-8", "\xff\xfe" + pad},
		{"bad escape", pad + `\x`},
		{"short unicode escape", pad + `\u12`},
		{"small value", `a\nb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := []byte(`"` + tt.inner + `"`)
			want, wantOK := str(append([]byte(nil), v...))
			got, ok := strIn(v, true)
			if got != want || ok != wantOK {
				t.Errorf("strIn gives %d bytes %v, str %d bytes %v", len(got), ok, len(want), wantOK)
			}
			if notOwned, ok := strIn([]byte(`"`+tt.inner+`"`), false); notOwned != want || ok != wantOK {
				t.Errorf("strIn of a shared line differs from str")
			}
		})
	}
}

func FuzzStrIn(f *testing.F) {
	for _, s := range []string{`a\nb`, `\ud83d\ude00`, `\u12`, `\x`, "\xff"} {
		f.Add(s, uint16(0))
	}
	f.Fuzz(func(t *testing.T, inner string, pad uint16) {
		v := []byte(`"` + strings.Repeat("p", int(pad)%(ownedMin+2)) + inner + `"`)
		want, wantOK := str(append([]byte(nil), v...))
		if got, ok := strIn(v, true); got != want || ok != wantOK {
			t.Fatalf("strIn(%q) = %q %v, str gives %q %v", v, got, ok, want, wantOK)
		}
	})
}
