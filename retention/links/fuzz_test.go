package links

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"spillscope/retention"
)

// listedNames is every name on the credential list, for fuzz targets that
// build credential-bearing URIs.
func listedNames() []string {
	var out []string
	for _, f := range credentialFamilies {
		out = append(out, f.Params...)
	}
	return out
}

// spell writes a listed name the way form asks: as listed, camelCase, upper,
// dashes, brackets, or percent-encoded.
func spell(name string, form uint8) string {
	switch form % 6 {
	case 1:
		parts := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' })
		for i := 1; i < len(parts); i++ {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
		return strings.Join(parts, "")
	case 2:
		return strings.ToUpper(name)
	case 3:
		return strings.ReplaceAll(name, "_", "-")
	case 4:
		return name + "[]"
	case 5:
		return fmt.Sprintf("%%%02X", name[0]) + name[1:]
	}
	return name
}

// placeParam puts name=value into base the way where asks: query, fragment,
// fragment route, after ';', or after a '?' inside the query.
func placeParam(base, name, value string, where uint8) string {
	switch where % 5 {
	case 1:
		return base + "#" + name + "=" + value
	case 2:
		return base + "#/route?x=1&" + name + "=" + value
	case 3:
		return base + "?a=1;" + name + "=" + value
	case 4:
		return base + "?next=/p?" + name + "=" + value
	}
	return base + "?a=1&" + name + "=" + value
}

func distinctive(prefix string, seed uint64) string {
	return fmt.Sprintf("%s%016xQ", prefix, seed)
}

func FuzzCheckURI(f *testing.F) {
	f.Add("https://example.com/p", uint8(0), uint8(0), uint64(1))
	f.Add("https://x.example/a;b", uint8(7), uint8(3), uint64(42))
	f.Add("file:///tmp/x?y", uint8(200), uint8(4), uint64(7))
	f.Add("", uint8(1), uint8(2), uint64(9))
	f.Add("https://a\n#b?", uint8(9), uint8(1), uint64(3))
	f.Add("http://a_b:80/x?y#z", uint8(3), uint8(5), uint64(11))
	f.Add("ftp://h:/%41", uint8(4), uint8(6), uint64(12))
	names := listedNames()
	f.Fuzz(func(t *testing.T, base string, pick, form uint8, seed uint64) {
		CheckURI(base) // no panic on any input
		if _, err := url.Parse(base); parses(base) && err != nil {
			t.Fatalf("parses accepts %q, which url.Parse refuses: %v", base, err)
		}
		value := distinctive("V", seed)
		name := spell(names[int(pick)%len(names)], form)
		uri := placeParam("https://example.com/p", name, value, form/6)
		if strings.Contains(base, "#") || strings.Contains(base, "?") {
			uri = placeParam(sanitizeBase(base), name, value, form/6)
		}
		reason, param, hide := CheckURI(uri)
		if !hide {
			t.Fatalf("CheckURI(%q) shows a URI holding %s", uri, name)
		}
		if strings.Contains(reason+param, value) {
			t.Fatalf("reason %q / parameter %q holds the value", reason, param)
		}
		d := LinkLine(retention.Block{Type: retention.TypeResourceLink, URI: uri, Name: "n"})
		if d.Shown || strings.Contains(d.Line, value) {
			t.Fatalf("LinkLine(%q) = %+v holds the value", uri, d)
		}
		user, pass := distinctive("U", seed), distinctive("P", ^seed)
		withUser := "https://" + user + ":" + pass + "@example.com/" + sanitizeBase(base)
		d = LinkLine(retention.Block{Type: retention.TypeResourceLink, URI: withUser, Name: "n"})
		if d.Shown || strings.Contains(d.Line, user) || strings.Contains(d.Line, pass) {
			t.Fatalf("LinkLine(%q) = %+v holds the userinfo", withUser, d)
		}
		// The audit's host column: never the userinfo, never a path or a
		// line break, within its bound.
		for _, u := range []string{base, withUser, uri} {
			h := URIHost(u)
			if strings.Contains(h, user) || strings.Contains(h, pass) || strings.ContainsAny(h, "/?#@\n\r") ||
				utf8.RuneCountInString(h) > MaxHostRunes {
				t.Fatalf("URIHost(%q) = %q", u, h)
			}
		}
	})
}

// sanitizeBase keeps fuzz bytes that cannot end an authority or start a new
// parameter ahead of the one the target places.
func sanitizeBase(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '?', '#', '\\', '@':
			return '-'
		}
		return r
	}, s)
}

func FuzzLinkLine(f *testing.F) {
	f.Add("https://example.com/r.csv", "r.csv", "text/csv")
	f.Add("https://example.com/?token=abc", "n\n[x]", "a\u2028b")
	f.Add("https://u:p@h/", "", "")
	f.Add("", "x", "y")
	f.Fuzz(func(t *testing.T, uri, name, mime string) {
		d := LinkLine(retention.Block{Type: retention.TypeResourceLink, URI: uri, Name: name, MimeType: mime})
		if strings.ContainsAny(d.Line, "\n\r\u2028\u2029") {
			t.Fatalf("line %q holds a line break", d.Line)
		}
		if !strings.HasPrefix(d.Line, "[") || !strings.HasSuffix(d.Line, "]") {
			t.Fatalf("line %q is not one bracketed line", d.Line)
		}
		if d.Shown {
			if _, _, hide := CheckURI(uri); hide || !strings.Contains(d.Line, uri) {
				t.Fatalf("shown line %q for a URI that hides or is missing", d.Line)
			}
			return
		}
		if d.Reason == "" {
			t.Fatalf("hidden without a reason: %+v", d)
		}
		if len(uri) >= 16 && !strings.Contains(name+mime, uri) && strings.Contains(d.Line, uri) {
			t.Fatalf("stub %q holds the URI", d.Line)
		}
	})
}

func FuzzScanText(f *testing.F) {
	f.Add("see", "end.", uint8(0), uint8(0), uint8(0), uint64(1))
	f.Add(`{"a":"`, `"}`, uint8(5), uint8(3), uint8(1), uint64(2))
	f.Add("curl", "| jq", uint8(11), uint8(7), uint8(2), uint64(3))
	f.Add("[x](", ")", uint8(30), uint8(13), uint8(3), uint64(4))
	f.Add("https://a.example/?q=", "www.", uint8(2), uint8(2), uint8(4), uint64(5))
	names := listedNames()
	f.Fuzz(func(t *testing.T, prefix, suffix string, pick, form, wrap uint8, seed uint64) {
		FindURLs(prefix + suffix) // no panic on any input
		value := distinctive("V", seed)
		if strings.Contains(prefix+suffix, value[:8]) {
			t.Skip()
		}
		name := spell(names[int(pick)%len(names)], form)
		u := placeParam("https://example.com/p", name, value, form/6)
		if wrap%2 == 1 {
			u = "https://" + distinctive("U", seed) + ":" + value + "@example.com/p?x=1"
		}
		text := prefix + " " + wrapURL(u, wrap/2) + " " + suffix
		found := ScanText(text)
		covered := false
		at := len(prefix) + 1 + strings.Index(wrapURL(u, wrap/2), value)
		for _, fd := range found {
			if strings.Contains(fd.Reason+fd.Parameter, value) {
				t.Fatalf("Found %+v holds the value", fd)
			}
			if fd.Start <= at && at+len(value) <= fd.End {
				covered = true
			}
		}
		if !covered {
			t.Fatalf("value not inside a reported range: text %q found %q", text, spans(text, found))
		}
	})
}

// wrapURL puts u in one of the surroundings text gives a URL.
func wrapURL(u string, how uint8) string {
	switch how % 8 {
	case 1:
		return `"` + u + `"`
	case 2:
		return "'" + u + "'"
	case 3:
		return "<" + u + ">"
	case 4:
		return "[link](" + u + ")"
	case 5:
		return `{"url":"` + strings.NewReplacer("/", `\/`, "&", `\u0026`).Replace(u) + `"}`
	case 6:
		return strings.NewReplacer("&", `\&`, ";", `\;`).Replace(u) + " | jq ."
	case 7:
		return u + "."
	}
	return u
}

func FuzzRedact(f *testing.F) {
	f.Add("see https://example.com/?token=abc.", uint8(0), uint64(1))
	f.Add(`{"u":"https:\/\/x\/?sig=a\u0026b=c"}`, uint8(3), uint64(2))
	f.Add("www.x.com/?password=p <https://u:p@h/>", uint8(5), uint64(3))
	names := listedNames()
	f.Fuzz(func(t *testing.T, text string, pick uint8, seed uint64) {
		r := Redact(text)
		if again := Redact(r); again != r {
			t.Fatalf("Redact not idempotent: %q -> %q", r, again)
		}
		value := distinctive("V", seed)
		if strings.Contains(text, value[:8]) {
			t.Skip()
		}
		u := placeParam("https://example.com/p", spell(names[int(pick)%len(names)], pick/8), value, pick/48)
		for _, w := range []uint8{0, 1, 2, 3, 4, 5, 6, 7} {
			mixed := text + " " + wrapURL(u, w) + " " + text
			if out := Redact(mixed); strings.Contains(out, value) {
				t.Fatalf("Redact(%q) = %q holds the value", mixed, out)
			}
		}
	})
}
