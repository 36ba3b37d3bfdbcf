package links

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Found is a URL inside text: its byte range [Start, End) in the text and,
// when it may carry a credential, why (CheckURI's reasons) and the listed
// name of the matched parameter. The value is never included.
type Found struct {
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Reason    string `json:"reason,omitempty"`
	Parameter string `json:"parameter,omitempty"`
}

// ScanText finds every URL in text that may carry a credential, by CheckURI's
// rule, in order. Text blocks reach the model whole, so these are the
// credential-bearing URLs a reviewer must see listed.
//
// URLs are found in prose, markdown links, quoted and angled URLs, shell
// output (including \& and \? escapes) and JSON strings (\/ and \u0026
// escapes are decoded before the test). The scanner never reports a part of
// a URL as safe when the whole may carry a credential: a URL runs greedily to
// whitespace or a character no URL holds raw (", <, >, `), and that whole
// run is tested as well as the run with trailing punctuation, an unbalanced
// closing bracket or a closing quote trimmed; a hit in either counts, and the
// range reported is then the trimmed run only when it alone hides the
// credential. Parseability is judged on the trimmed run, so "see
// https://host:8080." is not unparseable for its full stop. When the
// trimmed run is reported, what trimming left out stays outside the range:
// ASCII punctuation at its end, and anything from the first non-ASCII
// punctuation mark (an ideographic full stop) on. Credential values of every
// family on the list are ASCII tokens, so at most a value's final ASCII
// punctuation can remain visible after Redact.
//
// The test is CheckURI's, unparseable included: a URL written as a format
// string or template (https://api.example.com/u/%s, https://${HOST}/) does
// not parse and is reported (and redacted) as unparseable; the reason code
// lets a view set those apart.
func ScanText(text string) []Found {
	var out []Found
	scan(text, func(c candidate) {
		if f := judge(text, c); f.Reason != "" {
			out = append(out, f)
		}
	})
	return out
}

// FindURLs finds every URL in text, safe ones included (with an empty
// Reason), with the range a person would select as the URL.
func FindURLs(text string) []Found {
	var out []Found
	scan(text, func(c candidate) { out = append(out, judge(text, c)) })
	return out
}

// Redact returns text with each URL that may carry a credential replaced by
// a placeholder naming the reason and parameter, such as
// "[redacted URL: credential-parameter X-Amz-Signature]". Text without such
// a URL is returned as it is, without copying.
func Redact(text string) string {
	found := ScanText(text)
	if len(found) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, f := range found {
		b.WriteString(text[last:f.Start])
		b.WriteString(Placeholder(f.Reason, f.Parameter))
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// Placeholder is the text Redact puts in place of a URL.
func Placeholder(reason, parameter string) string {
	if parameter != "" {
		return "[redacted URL: " + reason + " " + Label(parameter, MaxTypeRunes) + "]"
	}
	return "[redacted URL: " + reason + "]"
}

// Candidate patterns, searched with strings.Index (which is vectorised), so
// text without them is passed over at memory speed.
const (
	patSlash   = 0 // "//": scheme://... or a scheme-relative //host
	patEscaped = 1 // `\/\/`: a JSON-escaped scheme separator
	patWWW     = 2 // "www.": a host without a scheme
	numPats    = 3
)

var patterns = [numPats]string{"//", `\/\/`, "www."}

// candidate is one run the scanner reads as a URL: it begins at start and
// runs greedily to end; tEnd is end with trailing punctuation trimmed.
// noScheme marks a www. host written without a scheme.
type candidate struct {
	start, tEnd, end int
	noScheme         bool
}

func scan(text string, emit func(candidate)) {
	var next [numPats]int
	for k := range next {
		next[k] = indexFrom(text, patterns[k], 0)
	}
	for {
		k := -1
		for j, n := range next {
			if n >= 0 && (k < 0 || n < next[k]) {
				k = j
			}
		}
		if k < 0 {
			return
		}
		c := next[k]
		start, bodyStart, ok := candidateStart(text, c, k)
		if !ok {
			next[k] = indexFrom(text, patterns[k], c+1)
			continue
		}
		end := greedyEnd(text, bodyStart)
		if end <= bodyStart {
			next[k] = indexFrom(text, patterns[k], c+1)
			continue
		}
		emit(candidate{start: start, tEnd: trimmedEnd(text, start, punctEnd(text, start, end)), end: end, noScheme: k == patWWW})
		for j := range next {
			if next[j] >= 0 && next[j] < end {
				next[j] = indexFrom(text, patterns[j], end)
			}
		}
	}
}

func indexFrom(s, sub string, from int) int {
	if from >= len(s) {
		return -1
	}
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

// candidateStart finds where the URL holding the pattern at c begins, and
// where its host begins (after the separator). ok is false for a pattern
// that is no URL ("// comment", "a//b", "awww.").
func candidateStart(text string, c, kind int) (start, body int, ok bool) {
	switch kind {
	case patWWW:
		if c > 0 && !isBoundary(text[c-1]) {
			return 0, 0, false
		}
		if c+4 >= len(text) || !isAlnum(text[c+4]) {
			return 0, 0, false
		}
		return c, c + 4, true
	case patSlash, patEscaped:
		sepLen := 2
		if kind == patEscaped {
			sepLen = 4
		}
		body = c + sepLen
		if body >= len(text) {
			return 0, 0, false
		}
		if c > 0 && text[c-1] == ':' {
			s := c - 1
			for s > 0 && c-1-s < 32 && isSchemeChar(text[s-1]) {
				s--
			}
			for s < c-1 && !isLetter(text[s]) {
				s++
			}
			if s < c-1 {
				return s, body, true
			}
		}
		if c > 0 && text[c-1] == ':' {
			// "://host" with no scheme before it: not a URL, but read it
			// as one rather than miss what follows.
			if isAlnum(text[body]) {
				return c - 1, body, true
			}
			return 0, 0, false
		}
		// Scheme-relative: //host after a quote, bracket, = or space.
		if (c == 0 || isBoundary(text[c-1]) && text[c-1] != '/') && isAlnum(text[body]) {
			return c, body, true
		}
	}
	return 0, 0, false
}

// greedyEnd runs from i to the first character no URL holds raw. Backslash
// escapes are followed as JSON and shells write them, so \u0026 and \& do
// not end a URL before the parameter that follows them.
func greedyEnd(text string, i int) int {
	for i < len(text) {
		ch := text[i]
		if ch >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && size == 1 || unicode.IsSpace(r) || breaksLine(r) {
				return i
			}
			i += size
			continue
		}
		if stopASCII[ch] {
			return i
		}
		if ch != '\\' {
			i++
			continue
		}
		if i+1 >= len(text) {
			return i
		}
		switch n := text[i+1]; n {
		case '/', '\\':
			i += 2
		case 'n', 't', 'r', 'b', 'f', '"':
			return i
		case 'u':
			r, ok := hex4(text, i+2)
			if !ok {
				i += 2
				continue
			}
			if r < utf8.RuneSelf && stopASCII[r] || unicode.IsSpace(r) || breaksLine(r) {
				return i
			}
			i += 6
		default:
			if n < utf8.RuneSelf && stopASCII[n] {
				return i
			}
			i += 2
		}
	}
	return i
}

// stopASCII marks the ASCII characters that end a URL: controls, space and
// the delimiters RFC 3986 appendix C names for URLs in text (" < > `).
var stopASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for _, c := range " \"<>`\x7f" {
		t[c] = true
	}
	return t
}()

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for j := i; j < i+4; j++ {
		if !isHex(s[j]) {
			return 0, false
		}
		r = r<<4 | rune(unhex(s[j]))
	}
	return r, true
}

// judge tests the run a candidate found and its trimmed form.
func judge(text string, c candidate) Found {
	start, tEnd, end := c.start, c.tEnd, c.end
	trimmed := unescape(text[start:tEnd], false).s
	if c.noScheme {
		trimmed = "http://" + trimmed
	}
	if reason, param, hide := CheckURI(trimmed); hide {
		return Found{Start: start, End: tEnd, Reason: reason, Parameter: param}
	}
	if tEnd != end {
		whole := unescape(text[start:end], false).s
		if c.noScheme {
			whole = "http://" + whole
		}
		if s, ok := firstSecret(whole); ok {
			if s.kind == MaskUserinfo {
				return Found{Start: start, End: end, Reason: ReasonUserinfo}
			}
			return Found{Start: start, End: end, Reason: ReasonCredentialParameter, Parameter: s.param}
		}
	}
	// Safe: report what a person would select, inside quotes or brackets.
	return Found{Start: start, End: selectionEnd(text, start, tEnd)}
}

// punctEnd cuts the run at its first non-ASCII punctuation (an ideographic
// full stop, a fullwidth comma), which prose written without spaces puts
// right after a URL.
func punctEnd(text string, start, end int) int {
	for i := start; i < end; {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:end])
		if unicode.IsPunct(r) {
			return i
		}
		i += size
	}
	return end
}

// trimmedEnd drops trailing punctuation that ends a sentence or closes
// something the URL did not open. Bracket counts are taken once, so a run of
// closers costs linear time.
func trimmedEnd(text string, start, end int) int {
	var opens, closes [3]int
	for i := start; i < end; i++ {
		switch text[i] {
		case '(':
			opens[0]++
		case ')':
			closes[0]++
		case '[':
			opens[1]++
		case ']':
			closes[1]++
		case '{':
			opens[2]++
		case '}':
			closes[2]++
		}
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(text[start:end])
		switch r {
		case '.', ',', ';', ':', '!', '?', '\'', '*', '\\':
			end -= size
			continue
		case ')', ']', '}':
			k := strings.IndexRune(")]}", r)
			if opens[k] < closes[k] {
				closes[k]--
				end -= size
				continue
			}
		default:
			if r >= utf8.RuneSelf && unicode.IsPunct(r) {
				end -= size
				continue
			}
		}
		return end
	}
	return end
}

// selectionEnd cuts a safe URL at the closing quote when a quote opened it.
func selectionEnd(text string, start, end int) int {
	if start > 0 && text[start-1] == '\'' {
		if i := strings.IndexByte(text[start:end], '\''); i > 0 {
			return start + i
		}
	}
	return end
}

func isBoundary(c byte) bool {
	return !isAlnum(c) && c != '.' && c != '-' && c != '_' && c != '@' && c != '%' && c != '+'
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isSchemeChar(c byte) bool { return isAlnum(c) || c == '+' || c == '-' || c == '.' }
