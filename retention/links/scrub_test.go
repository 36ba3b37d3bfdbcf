package links

import (
	"math/rand"
	"strings"
	"testing"
)

func TestScrubValues(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain pair in prose", "signed with X-Amz-Signature=abc123def then", "signed with X-Amz-Signature=[redacted] then"},
		{"query string", "?X-Amz-Date=20240101&X-Amz-Signature=abc123&x=1", "?X-Amz-Date=20240101&X-Amz-Signature=[redacted]&x=1"},
		{"doubly JSON-escaped URL", `"https:\\/\\/b.s3.amazonaws.com\\/k?X-Amz-Signature=abc123\\u0026X-Amz-Date=1"`, `"https:\\/\\/b.s3.amazonaws.com\\/k?X-Amz-Signature=[redacted]\\u0026X-Amz-Date=1"`},
		{"percent-encoded URL", "u=https%3A%2F%2Fb.s3.amazonaws.com%2Fk%3FX-Amz-Signature%3Dabc%2B123%26X-Amz-Date%3D1", "u=https%3A%2F%2Fb.s3.amazonaws.com%2Fk%3FX-Amz-Signature%3D[redacted]%26X-Amz-Date%3D1"},
		{"lower-case %3d", "sig%3dabc123", "sig%3d[redacted]"},
		{"JSON \\u003d", `access_token\u003dya29.abc\u0026x`, `access_token\u003d[redacted]\u0026x`},
		{"JSON \\\\u003d", `access_token\\u003dya29.abc\\u0026x`, `access_token\\u003d[redacted]\\u0026x`},
		{"JSON-escaped & before the name", `x=1\u0026sig=abc`, `x=1\u0026sig=[redacted]`},
		{"name spellings", "AccessToken=a1 ACCESS-TOKEN=a2 access%5Ftoken=a3", "AccessToken=[redacted] ACCESS-TOKEN=[redacted] access%5Ftoken=[redacted]"},
		{"environment line", "export ACCESS_TOKEN=FwoGZXIvYXdzE\n", "export ACCESS_TOKEN=[redacted]\n"},
		{"base64 padding stays in the value", "sig=YWJj+/de==&b=1", "sig=[redacted]&b=1"},
		{"value ends at a quote", `"token=abc" rest`, `"token=[redacted]" rest`},
		{"value ends at an encoded space", "token%3Dabc%20rest", "token%3D[redacted]%20rest"},
		{"several", "key=k1;sig=s1 code=c1", "key=[redacted];sig=[redacted] code=[redacted]"},
		{"unlisted names kept", "monkey=1 sortkey=abc x=2 tokenizer=bpe", "monkey=1 sortkey=abc x=2 tokenizer=bpe"},
		{"empty value", "token= next", "token= next"},
		{"comparison, not a pair", "if a == token { }", "if a == token { }"},
		{"placeholder untouched", "[redacted URL: credential-parameter X-Amz-Signature]", "[redacted URL: credential-parameter X-Amz-Signature]"},
		{"nothing", "", ""},
		{"trailing equals", "token=", "token="},
		{"lone escape", `\u003d`, `\u003d`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ScrubValues(tc.in); got != tc.want {
				t.Errorf("ScrubValues(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if got := ScrubValues(ScrubValues(tc.in)); got != ScrubValues(tc.in) {
				t.Errorf("not idempotent: %q", got)
			}
		})
	}
}

// Every listed name, in every way "=" and the separators are written,
// inside text Redact leaves alone: the value never survives.
func TestScrubValuesEveryListedName(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	equals := []string{"=", "%3D", "%3d", `\u003d`, `\\u003d`}
	before := []string{"", "?", "&", " ", "%3F", "%26", `\u0026`, `\\u0026`, "https:\\\\/\\\\/h\\\\/p?"}
	for _, fam := range Families() {
		for _, name := range fam.Params {
			for _, eq := range equals {
				for _, pre := range before {
					value := "V4lu3" + strings.Repeat(string(rune('a'+r.Intn(26))), 8) + "+/_-.~"
					in := "lead " + pre + name + eq + value + " tail"
					out := ScrubValues(Redact(in))
					if strings.Contains(out, "V4lu3") {
						t.Fatalf("%s (%s): value kept in %q -> %q", name, fam.Name, in, out)
					}
				}
			}
		}
	}
}

func FuzzScrubValues(f *testing.F) {
	f.Add("lead ", "X-Amz-Signature", "=", " tail")
	f.Add("https%3A%2F%2Fh%2Fp%3F", "sig", "%3D", "%26a%3Db")
	f.Add(`"u":"https:\\/\\/h\\/p?`, "access_token", `\\u003d`, `\\u0026x"`)
	f.Fuzz(func(t *testing.T, pre, name, eq, post string) {
		if _, ok := credentialName(name); !ok || len(name) > 40 {
			return
		}
		for i := 0; i < len(name); i++ {
			if !isNameByte(name[i]) {
				return // a name in text is one run of name bytes
			}
		}
		switch eq {
		case "=", "%3D", "%3d", `\u003d`, `\\u003d`:
		default:
			return
		}
		// The name must stand on its own: what precedes it cannot extend it.
		if pre != "" && isNameByte(pre[len(pre)-1]) {
			pre += " "
		}
		const value = "Zq7Secret9Zq7"
		out := ScrubValues(pre + name + eq + value + post)
		if strings.Contains(out, value) && !strings.Contains(pre+post, value) {
			t.Fatalf("value kept: %q", out)
		}
		if ScrubValues(out) != out {
			t.Fatalf("not idempotent on %q", out)
		}
	})
}

func BenchmarkScrubValues(b *testing.B) {
	text := strings.Repeat("2024-01-01T00:00:00Z INFO request done status=200 bytes=1234 path=/api/v1/items?id=42&page=3 user=alice\n", 10000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		ScrubValues(text)
	}
}
