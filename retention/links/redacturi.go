package links

import "strings"

// MaxURIRunes bounds a redacted URI as the links audit shows it.
const MaxURIRunes = 400

// Elided stands for a parameter's value in a redacted URI.
const Elided = "…"

// RedactURI shows a URI as the links audit lists it: scheme, host, port,
// path and the names of its parameters, never a value. The userinfo shows as
// [redacted]@ and every parameter's value (query, fragment and path
// parameters, listed or not) as …, so
//
//	https://bob:pw@h.example/p;jsessionid=1?X-Amz-Signature=abc&v=2#access_token=t
//
// reads https://[redacted]@h.example/p;jsessionid=…?X-Amz-Signature=…&v=…#access_token=….
// The query and fragment are split on &, ?, ; and # alike, so a route kept
// in a fragment (#/reset?token=…) loses its values too. A URI that does not
// parse is read the same way, part by part. The result holds no control or
// line-breaking character and at most MaxURIRunes runes. Known limit, as for
// CheckURI: a credential carried in the path itself is shown.
func RedactURI(uri string) string {
	var b strings.Builder
	b.Grow(len(uri))
	rest := uri
	if s, e, ok := userinfoSpan(uri); ok {
		b.WriteString(uri[:s])
		b.WriteString(Masked)
		rest = uri[e:]
	}
	hierEnd := strings.IndexAny(rest, "?#")
	if hierEnd < 0 {
		hierEnd = len(rest)
	}
	hier := rest[:hierEnd]
	if i := strings.IndexByte(hier, ';'); i >= 0 {
		b.WriteString(hier[:i+1])
		writeNames(&b, hier[i+1:], ";")
	} else {
		b.WriteString(hier)
	}
	if hierEnd < len(rest) {
		b.WriteByte(rest[hierEnd])
		writeNames(&b, rest[hierEnd+1:], "&?;#")
	}
	return clean(b.String(), MaxURIRunes, false)
}

// writeNames writes s split on seps with each part's value elided; the
// separators stay as written.
func writeNames(b *strings.Builder, s, seps string) {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && strings.IndexByte(seps, s[i]) < 0 {
			continue
		}
		part := s[start:i]
		if eq := strings.IndexByte(part, '='); eq >= 0 {
			b.WriteString(part[:eq+1])
			if eq < len(part)-1 {
				b.WriteString(Elided)
			}
		} else {
			b.WriteString(part)
		}
		if i < len(s) {
			b.WriteByte(s[i])
		}
		start = i + 1
	}
}

// FoundURI is the URI a Found range of text spells, with the JSON and shell
// escapes the scanner reads through undone, for RedactURI.
func FoundURI(text string, f Found) string {
	if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
		return ""
	}
	return unescape(text[f.Start:f.End], false).s
}

// MaxHostRunes bounds a host as the links audit stores and shows it (a DNS
// name is at most 253 characters).
const MaxHostRunes = 253

// URIHost is the host a URI names, as the links audit groups and filters
// links by it: lower-cased, without userinfo, port or trailing dot, read as
// userinfoSpan reads an authority (after any run of / or \ for the special
// schemes, after // for the others), and for a www. host written without a
// scheme, as the scanner reads one. A URI without an authority (mailto:,
// a relative path) has none: "". The host is no credential: a URI's
// userinfo never reaches it.
func URIHost(uri string) string {
	_, auth, ok := authority(uri)
	if !ok {
		scheme, rest := splitScheme(uri)
		if scheme != "" || len(rest) <= 4 || !strings.EqualFold(rest[:4], "www.") {
			return ""
		}
		auth = authorityEnd(rest, true)
	}
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
	}
	if strings.HasPrefix(auth, "[") {
		if end := strings.IndexByte(auth, ']'); end > 0 {
			auth = auth[:end+1]
		}
	} else if c := strings.LastIndexByte(auth, ':'); c >= 0 {
		auth = auth[:c]
	}
	auth = strings.TrimSuffix(strings.ToLower(auth), ".")
	return clean(auth, MaxHostRunes, false)
}
