package links

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// This file is the one recogniser of credentials: CheckURI (a link's stub),
// ScanText and Redact (URLs in text), ScrubValues (the search index) and
// Mask (the screen) all find credentials through it, so what hides a link,
// what leaves the index and what is masked on screen cannot drift apart.
//
// It works on positions. A URL in text may be written with JSON or shell
// escapes (\/ \u0026 \&) and its query may be percent-encoded; the rule reads
// the decoded URL, and each decoding keeps a map back to the bytes it read,
// so a value found in the decoded URL is masked where it is written.

// secret is one credential: the byte range of its value (or of a URL's
// userinfo), its kind, and for a parameter the list's spelling of its name.
type secret struct {
	start, end int
	kind       string
	param      string
}

// sink collects secrets. With first set it stops at the first one, as
// CheckURI needs; text, when set, is what the ranges index, and a range that
// already reads Masked is passed over, so masking masked text finds nothing.
type sink struct {
	first bool
	text  string
	got   []secret
	// hit and found hold the first secret when first is set; ranges are
	// not mapped back then (only the kind and name are read).
	hit   secret
	found bool
}

// add records s and reports whether the search goes on.
func (k *sink) add(s secret) bool {
	if k.first {
		k.hit, k.found = s, true
		return false
	}
	if s.end <= s.start {
		return true
	}
	if k.text != "" && k.text[s.start:s.end] == Masked {
		return true
	}
	k.got = append(k.got, s)
	return true
}

// edit says that raw[raw:raw+rawLen] was decoded to dec[dec:dec+decLen];
// bytes between edits were copied as they were.
type edit struct{ dec, raw, decLen, rawLen int }

// layer is one round of decoding, its edits in order.
type layer []edit

// locate is the index of the last edit starting at or before x, or -1.
func (l layer) locate(x int) int {
	i, _ := slices.BinarySearchFunc(l, x, func(e edit, x int) int {
		if e.dec <= x {
			return -1
		}
		return 1
	})
	return i - 1
}

// toRaw maps the decoded range [a, b) (b > a) to the raw bytes it came from;
// a range that begins or ends inside an escape takes the whole escape.
func (l layer) toRaw(a, b int) (int, int) {
	if len(l) == 0 {
		return a, b
	}
	ra, rb := a, b
	if i := l.locate(a); i >= 0 {
		e := l[i]
		if a < e.dec+e.decLen {
			ra = e.raw
		} else {
			ra = e.raw + e.rawLen + (a - e.dec - e.decLen)
		}
	}
	if j := l.locate(b - 1); j >= 0 {
		e := l[j]
		if b-1 < e.dec+e.decLen {
			rb = e.raw + e.rawLen
		} else {
			rb = e.raw + e.rawLen + (b - e.dec - e.decLen)
		}
	}
	return ra, rb
}

// decoded is a string after rounds of decoding, with the map back.
type decoded struct {
	s      string
	layers []layer
}

func (d decoded) toRaw(a, b int) (int, int) {
	for i := len(d.layers) - 1; i >= 0; i-- {
		a, b = d.layers[i].toRaw(a, b)
	}
	return a, b
}

// unescapeOnce undoes one level of JSON and shell backslash escapes: \uXXXX
// becomes its character, a backslash before any other byte becomes that
// byte, and a lone trailing backslash stays. With record it keeps the map.
func unescapeOnce(s string, record bool) (string, layer, bool) {
	var b []byte
	var l layer
	last := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s))
		}
		b = append(b, s[last:i]...)
		dec := len(b)
		if s[i+1] == 'u' {
			if r, ok := hex4(s, i+2); ok {
				b = utf8.AppendRune(b, r)
				if record {
					l = append(l, edit{dec, i, len(b) - dec, 6})
				}
				i += 5
				last = i + 1
				continue
			}
		}
		b = append(b, s[i+1])
		if record {
			l = append(l, edit{dec, i, 1, 2})
		}
		i++
		last = i + 1
	}
	if b == nil {
		return s, nil, false
	}
	return string(append(b, s[last:]...)), l, true
}

// unescape undoes backslash escapes up to three levels deep, so the rule
// reads the URL the text encodes.
func unescape(s string, record bool) decoded { return rounds(s, 3, '\\', record, unescapeOnce) }

// rounds decodes s with once up to max times, while it holds the escape
// byte and changes, keeping each round's map when record is set.
func rounds(s string, max int, escape byte, record bool, once func(string, bool) (string, layer, bool)) decoded {
	d := decoded{s: s}
	for round := 0; round < max && containsByte(d.s, escape); round++ {
		next, l, changed := once(d.s, record)
		if !changed {
			break
		}
		d.s = next
		if record {
			d.layers = append(d.layers, l)
		}
	}
	return d
}

// pctOnce decodes one level of percent escapes; malformed ones stay.
func pctOnce(s string, record bool) (string, layer, bool) {
	var b []byte
	var l layer
	last := 0
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '%' || !isHex(s[i+1]) || !isHex(s[i+2]) {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s))
		}
		b = append(b, s[last:i]...)
		if record {
			l = append(l, edit{len(b), i, 1, 3})
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
		last = i + 1
	}
	if b == nil {
		return s, nil, false
	}
	return string(append(b, s[last:]...)), l, true
}

// percentDecode decodes up to four times, so %2574oken (an encoded
// "%74oken") reads as token.
func percentDecode(s string, record bool) decoded { return rounds(s, 4, '%', record, pctOnce) }

// uriSecrets finds every credential CheckURI's rule reads in uri, in the
// rule's order: the userinfo, a nested URL's userinfo in the query or
// fragment, then each listed parameter with a value (path parameters, the
// query, the fragment; each read with & alone, with &, ?, ; and # as
// separators, and percent-decoded). Ranges index uri. It reports whether
// the sink wants more.
func uriSecrets(uri string, k *sink) bool {
	if s, e, ok := userinfoSpan(uri); ok {
		if !k.add(secret{s, e, MaskUserinfo, ""}) {
			return false
		}
	}
	if q := strings.IndexAny(uri, "?#"); q >= 0 {
		if !nestedUserinfo(uri, q+1, k) {
			return false
		}
	}
	return paramSecrets(uri, k)
}

// userinfoSpan finds a non-empty userinfo before the host.
func userinfoSpan(uri string) (int, int, bool) {
	if !containsByte(uri, '@') {
		return 0, 0, false
	}
	off, auth, ok := authority(uri)
	if !ok {
		return 0, 0, false
	}
	at := strings.LastIndexByte(auth, '@')
	if at <= 0 {
		return 0, 0, false
	}
	return off, off + at, true
}

// authority finds a URI's authority (userinfo, host and port): where it
// begins and its text. For the special schemes it is read as browsers read
// it: after any run of / or \, or none, and up to /, \, ? or #; for the
// others after // and up to /, ? or #. ok is false for a URI without one.
func authority(uri string) (off int, auth string, ok bool) {
	scheme, rest := splitScheme(uri)
	special := isSpecialScheme(scheme)
	switch {
	case special:
		auth = strings.TrimLeft(rest, `/\`)
	case strings.HasPrefix(rest, "//"):
		auth = rest[2:]
	default:
		return 0, "", false
	}
	return len(uri) - len(auth), authorityEnd(auth, special), true
}

// authorityEnd cuts s where its authority ends.
func authorityEnd(s string, special bool) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '/' || c == '?' || c == '#' || special && c == '\\' {
			return s[:i]
		}
	}
	return s
}

// nestedUserinfo finds the userinfo of URLs nested in uri[from:] (a query or
// fragment: ?next=https://user:pass@host/), percent-encoded or not.
func nestedUserinfo(uri string, from int, k *sink) bool {
	d := decoded{s: uri[from:]}
	if containsByte(d.s, '%') {
		d = percentDecode(d.s, !k.first)
	}
	t := d.s
	for off := 0; ; {
		i := strings.Index(t[off:], "://")
		if i < 0 {
			return true
		}
		off += i + 3
		rest := t[off:]
		end := strings.IndexAny(rest, `/\?#&;`)
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at > 0 {
			a, b := d.toRaw(off, off+at)
			if !k.add(secret{from + a, from + b, MaskUserinfo, ""}) {
				return false
			}
		}
	}
}

// paramSecrets finds listed parameters with a value in uri's path
// parameters, query and fragment.
func paramSecrets(uri string, k *sink) bool {
	hierEnd, fragStart := len(uri), -1
	if i := strings.IndexByte(uri, '#'); i >= 0 {
		hierEnd, fragStart = i, i+1
	}
	queryStart, queryEnd := -1, hierEnd
	if i := strings.IndexByte(uri[:hierEnd], '?'); i >= 0 {
		queryStart, hierEnd = i+1, i
	}
	if i := strings.IndexByte(uri[:hierEnd], ';'); i >= 0 {
		if !params(uri[i+1:hierEnd], ";", decoded{}, i+1, k) {
			return false
		}
	}
	if queryStart >= 0 && !component(uri[queryStart:queryEnd], queryStart, k) {
		return false
	}
	if fragStart >= 0 && !component(uri[fragStart:], fragStart, k) {
		return false
	}
	return true
}

// component reads a query (or a fragment read as one) both ways, and once
// more percent-decoded, so a URL nested in a parameter
// (?next=https%3A%2F%2Fhost%2F%3Ftoken%3D...) is read too. off is where s
// stands in the URI.
func component(s string, off int, k *sink) bool {
	if !params(s, "&?;#", decoded{}, off, k) || !params(s, "&", decoded{}, off, k) {
		return false
	}
	if containsByte(s, '%') {
		if d := percentDecode(s, !k.first); d.s != s {
			return params(d.s, "&?;#", d, off, k)
		}
	}
	return true
}

// params splits s on any of seps and adds each part name=value with a
// non-empty value whose name is listed. d maps s back to the text it was
// decoded from (none when d has no layers); off is where that text stands.
func params(s, seps string, d decoded, off int, k *sink) bool {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && strings.IndexByte(seps, s[i]) < 0 {
			continue
		}
		part, ps := s[start:i], start
		start = i + 1
		eq := strings.IndexByte(part, '=')
		if eq < 0 || eq == len(part)-1 {
			continue
		}
		name, ok := credentialName(part[:eq])
		if !ok {
			continue
		}
		a, b := d.toRaw(ps+eq+1, i)
		if !k.add(secret{off + a, off + b, MaskParameter, name}) {
			return false
		}
	}
	return true
}

// firstSecret is the first credential CheckURI's rule finds in uri.
func firstSecret(uri string) (secret, bool) {
	k := sink{first: true}
	uriSecrets(uri, &k)
	return k.hit, k.found
}

// urlSecrets adds the credentials of the URL written as text[start:end],
// escapes and all, at the positions they are written, and reports how many
// it found (masked ones included, which the sink passes over).
func urlSecrets(text string, start, end int, noScheme bool, k *sink) int {
	d := unescape(text[start:end], true)
	uri, pre := d.s, 0
	if noScheme {
		uri, pre = "http://"+uri, len("http://")
	}
	var local sink
	uriSecrets(uri, &local)
	for _, s := range local.got {
		if s.start < pre {
			continue
		}
		a, b := d.toRaw(s.start-pre, s.end-pre)
		k.add(secret{start + a, start + b, s.kind, s.param})
	}
	return len(local.got)
}

// pairSecrets adds the value of every listed name written as name=value,
// wherever it stands and however "=" and the separators are escaped (see
// ScrubValues).
func pairSecrets(text string, k *sink) bool {
	for i := 0; i < len(text); {
		eq, width := nextEquals(text, i)
		if eq < 0 {
			break
		}
		vStart := eq + width
		name, ok := listedNameBefore(text, eq)
		if !ok {
			i = vStart
			continue
		}
		if strings.HasPrefix(text[vStart:], Masked) {
			i = vStart + len(Masked) // masked before
			continue
		}
		vEnd := valueEnd(text, vStart)
		if vEnd == vStart {
			i = vStart
			continue
		}
		if !k.add(secret{vStart, vEnd, MaskParameter, name}) {
			return false
		}
		i = vEnd
	}
	return true
}

// textSecrets is every credential in text, in order, overlapping ranges
// merged: the userinfo and listed parameters of each URL the scanner finds
// (read as CheckURI reads it: the trimmed run, else the whole run, as judge
// tests them), and every other listed name=value in any spelling. Where the
// URL rule sees a value, its range wins, so a sentence's full stop after a
// URL stays outside it as it does in ScanText.
func textSecrets(text string) []secret {
	k := sink{text: text}
	scan(text, func(c candidate) {
		if urlSecrets(text, c.start, c.tEnd, c.noScheme, &k) == 0 && c.tEnd != c.end {
			urlSecrets(text, c.start, c.end, c.noScheme, &k)
		}
	})
	urls := merge(k.got)
	pairs := sink{text: text}
	pairSecrets(text, &pairs)
	out := urls
	for _, p := range pairs.got {
		i, _ := slices.BinarySearchFunc(urls, p.start, func(s secret, at int) int { return s.end - 1 - at })
		if i < len(urls) && urls[i].start < p.end {
			continue // the URL rule's range of the same value
		}
		out = append(out, p)
	}
	return merge(out)
}

// merge sorts secrets by position and joins those that overlap or touch;
// the first of a joined group names it.
func merge(got []secret) []secret {
	if len(got) == 0 {
		return nil
	}
	slices.SortStableFunc(got, func(a, b secret) int { return a.start - b.start })
	out := []secret{got[0]}
	for _, s := range got[1:] {
		last := &out[len(out)-1]
		if s.start <= last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}
