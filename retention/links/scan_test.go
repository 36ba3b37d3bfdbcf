package links

import (
	"strings"
	"testing"
)

func TestScanText(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		found []string // the exact text of each range, in order
		why   []string // "reason parameter" of each
	}{
		{"prose", "See https://example.com/a?token=SECRET1 for details.",
			[]string{"https://example.com/a?token=SECRET1"}, []string{"credential-parameter token"}},
		{"prose trailing full stop", "Download it from https://example.com/a?api_key=SECRET1.",
			[]string{"https://example.com/a?api_key=SECRET1"}, []string{"credential-parameter api_key"}},
		{"markdown link", "The [report](https://bucket.s3.amazonaws.com/r.csv?X-Amz-Signature=SECRET1) is ready.",
			[]string{"https://bucket.s3.amazonaws.com/r.csv?X-Amz-Signature=SECRET1"}, []string{"credential-parameter X-Amz-Signature"}},
		{"angled userinfo", "mirror: <https://bob:SECRET1@example.com/repo.git>",
			[]string{"https://bob:SECRET1@example.com/repo.git"}, []string{"userinfo "}},
		{"json escaped slashes", `{"url":"https:\/\/bucket.s3.amazonaws.com\/k?X-Amz-Credential=AKIA\u0026X-Amz-Signature=SECRET1","n":1}`,
			[]string{`https:\/\/bucket.s3.amazonaws.com\/k?X-Amz-Credential=AKIA\u0026X-Amz-Signature=SECRET1`}, []string{"credential-parameter X-Amz-Credential"}},
		{"json unicode ampersand before credential", `{"u":"https://x.example/?a=1\u0026token=SECRET1"}`,
			[]string{`https://x.example/?a=1\u0026token=SECRET1`}, []string{"credential-parameter token"}},
		{"html escaped ampersand", `<a href="https://x.example/?a=1&amp;token=SECRET1">x</a>`,
			[]string{"https://x.example/?a=1&amp;token=SECRET1"}, []string{"credential-parameter token"}},
		{"shell output", "$ curl -s https://api.example.com/v1/items?api_key=SECRET1 | jq .\n200 OK",
			[]string{"https://api.example.com/v1/items?api_key=SECRET1"}, []string{"credential-parameter api_key"}},
		{"shell escaped ampersand", `curl https://api.example.com/v1?a=1\&token=SECRET1 -o out`,
			[]string{`https://api.example.com/v1?a=1\&token=SECRET1`}, []string{"credential-parameter token"}},
		{"single quoted", "wget 'https://example.com/x?a=1&password=SECRET1'",
			[]string{"https://example.com/x?a=1&password=SECRET1"}, []string{"credential-parameter password"}},
		{"quote inside query before credential", "open 'https://example.com/x?q='b'&token=SECRET1'",
			[]string{"https://example.com/x?q='b'&token=SECRET1"}, []string{"credential-parameter token"}},
		{"www host", "log in at www.example.com/login?password=SECRET1 now",
			[]string{"www.example.com/login?password=SECRET1"}, []string{"credential-parameter password"}},
		{"scheme relative", `<script src="//cdn.example.com/x.js?token=SECRET1"></script>`,
			[]string{"//cdn.example.com/x.js?token=SECRET1"}, []string{"credential-parameter token"}},
		{"fragment route", "reset: https://app.example.com/#/reset?token=SECRET1",
			[]string{"https://app.example.com/#/reset?token=SECRET1"}, []string{"credential-parameter token"}},
		{"value that is punctuation", "https://example.com/?token=.",
			[]string{"https://example.com/?token=."}, []string{"credential-parameter token"}},
		{"cjk punctuation", "见https://example.com/a?token=SECRET1。谢谢",
			[]string{"https://example.com/a?token=SECRET1"}, []string{"credential-parameter token"}},
		{"two urls", "a https://a.example/?sid=SECRET1 b https://b.example/?v=1 c https://c.example/?code=SECRET2",
			[]string{"https://a.example/?sid=SECRET1", "https://c.example/?code=SECRET2"},
			[]string{"credential-parameter sid", "credential-parameter code"}},
		{"nested url in query", "https://a.example/r?next=https://b.example/?token=SECRET1",
			[]string{"https://a.example/r?next=https://b.example/?token=SECRET1"}, []string{"credential-parameter token"}},
		{"separator without scheme", "x -://example.com/?token=SECRET1 y",
			[]string{"://example.com/?token=SECRET1"}, []string{"credential-parameter token"}},
		{"safe links only", "Watch https://www.youtube.com/watch?v=abc, page https://example.com/list?page=2 and docs https://docs.example.com/auth#token.",
			nil, nil},
		{"no urls", "// a comment\nx := a//b\nwww.\n", nil, nil},
		{"port then full stop is not unparseable", "See https://example.com:8080.", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ScanText(tc.text)
			if len(got) != len(tc.found) {
				t.Fatalf("ScanText found %d (%v), want %d", len(got), spans(tc.text, got), len(tc.found))
			}
			for i, f := range got {
				if s := tc.text[f.Start:f.End]; s != tc.found[i] {
					t.Errorf("found[%d] = %q, want %q", i, s, tc.found[i])
				}
				if w := f.Reason + " " + f.Parameter; w != tc.why[i] {
					t.Errorf("found[%d] why = %q, want %q", i, w, tc.why[i])
				}
			}
		})
	}
}

func spans(text string, fs []Found) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = text[f.Start:f.End]
	}
	return out
}

func TestFindURLs(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"prose", "Watch https://www.youtube.com/watch?v=abc, then stop.", []string{"https://www.youtube.com/watch?v=abc"}},
		{"markdown", "[docs](https://example.com/a_(b)) and (https://example.com/c)", []string{"https://example.com/a_(b)", "https://example.com/c"}},
		{"single quotes", "open 'https://example.com/x?a=1'; done", []string{"https://example.com/x?a=1"}},
		{"json", `["https:\/\/example.com\/a"]`, []string{`https:\/\/example.com\/a`}},
		{"www", "(www.example.com/x)", []string{"www.example.com/x"}},
		{"port", "at http://localhost:8080.", []string{"http://localhost:8080"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := spans(tc.text, FindURLs(tc.text))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("FindURLs = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"prose", "See https://example.com/a?token=SECRET1 for details.",
			"See [redacted URL: credential-parameter token] for details."},
		{"userinfo", "git clone https://bob:SECRET1@example.com/r.git",
			"git clone [redacted URL: userinfo]"},
		{"presigned in json", `{"u":"https:\/\/b.s3.amazonaws.com\/k?X-Amz-Signature=SECRET1"}`,
			`{"u":"[redacted URL: credential-parameter X-Amz-Signature]"}`},
		{"safe text unchanged", "Watch https://www.youtube.com/watch?v=abc.", "Watch https://www.youtube.com/watch?v=abc."},
		{"unparseable", "bad https://example.com/%zz?x=1 end", "bad [redacted URL: unparseable] end"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Redact(tc.text)
			if got != tc.want {
				t.Errorf("Redact = %q, want %q", got, tc.want)
			}
			if strings.Contains(got, "SECRET1") {
				t.Errorf("redacted text holds the value: %q", got)
			}
			if again := Redact(got); again != got {
				t.Errorf("Redact is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// TestScanNeverReportsPartialURLSafe embeds credential-bearing URLs in the
// wrappers text puts around them and checks the value is always inside a
// reported range.
func TestScanNeverReportsPartialURLSafe(t *testing.T) {
	urls := []string{
		"https://example.com/x?a=1&token=VALUEX1",
		"https://example.com/x?a=(1)&token=VALUEX1",
		"https://example.com/x?a='1'&token=VALUEX1",
		"https://example.com/x?a=1;token=VALUEX1",
		"https://example.com/#/r?a=1&token=VALUEX1",
		"https://example.com/x?a=1,2.&token=VALUEX1",
		"https://example.com/x?a=[1]&token[]=VALUEX1",
		"https://user:VALUEX1@example.com/x",
	}
	wrap := []struct{ name, open, close string }{
		{"bare", "", ""}, {"double quotes", `"`, `"`}, {"single quotes", "'", "'"},
		{"angle", "<", ">"}, {"parens", "(", ")"}, {"markdown", "[l](", ")"},
		{"sentence", "", "."}, {"comma list", "", ", next"}, {"backticks", "`", "`"},
	}
	for _, u := range urls {
		for _, w := range wrap {
			for _, enc := range []string{"plain", "json", "shell"} {
				t.Run(w.name+"/"+enc+"/"+u, func(t *testing.T) {
					body := u
					switch enc {
					case "json":
						body = strings.NewReplacer("/", `\/`, "&", `\u0026`, "'", `\u0027`).Replace(u)
					case "shell":
						body = strings.NewReplacer("&", `\&`, ";", `\;`, "(", `\(`, ")", `\)`).Replace(u)
					}
					text := "before " + w.open + body + w.close + " after"
					assertValueCovered(t, text, "VALUEX1")
				})
			}
		}
	}
}

func assertValueCovered(t *testing.T, text, value string) {
	t.Helper()
	found := ScanText(text)
	for off := 0; ; {
		i := strings.Index(text[off:], value)
		if i < 0 {
			break
		}
		at := off + i
		covered := false
		for _, f := range found {
			if f.Start <= at && at+len(value) <= f.End {
				covered = true
			}
		}
		if !covered {
			t.Fatalf("value at %d not inside a reported range in %q (found %q)", at, text, spans(text, found))
		}
		off = at + len(value)
	}
	if r := Redact(text); strings.Contains(r, value) {
		t.Fatalf("Redact(%q) = %q holds the value", text, r)
	}
}

func TestScanTemplatesAreUnparseable(t *testing.T) {
	for _, text := range []string{
		`fmt.Sprintf("https://api.example.com/users/%s", id)`,
		"curl https://${HOST}/api/v1/items",
	} {
		t.Run(text, func(t *testing.T) {
			got := ScanText(text)
			if len(got) != 1 || got[0].Reason != ReasonUnparseable {
				t.Errorf("ScanText(%q) = %+v, want one unparseable URL", text, got)
			}
		})
	}
}
