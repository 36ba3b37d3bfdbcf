package links

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reasons a URI is not shown. A reason is a short stable code; the matched
// parameter's name travels beside it, never its value.
const (
	// ReasonUserinfo: the URI names a user (user@ or user:pass@).
	ReasonUserinfo = "userinfo"
	// ReasonCredentialParameter: a query, fragment or path parameter with a
	// value has a name on the credential list.
	ReasonCredentialParameter = "credential-parameter"
	// ReasonUnparseable: the URI does not parse even as a relative
	// reference, so its parts cannot be read.
	ReasonUnparseable = "unparseable"
	// ReasonDispositionNever: a reference in the same result marks the URI
	// disposition "never".
	ReasonDispositionNever = "disposition-never"
)

// CheckURI decides whether uri may carry a credential, and so must not be
// shown. mayCarry is true with a reason (one of the Reason constants) and,
// for ReasonCredentialParameter, the list's spelling of the matched name.
//
// The rule, in order:
//   - userinfo (user@ or user:pass@ before the host) hides, also on a URL
//     nested in the query or fragment (?next=https://user:pass@host/). For
//     the special schemes (http, https, ws, wss, ftp) the authority is read
//     as browsers read it: any run of / or \ after the colon, or none.
//   - a parameter WITH a value whose normalised name (see NormalizeName) is
//     on the list hides. The query and the fragment are both read as a
//     query; inside them ?, ; and # may also separate parameters (a route
//     kept in a fragment, #/reset?token=...; HTML's &amp;), so each is read
//     with & alone and with &, ?, ; and # as separators, and a hit in either
//     reading counts. Path parameters after ; (/app;jsessionid=...) are read
//     too, and the query and fragment are read once more percent-decoded,
//     so a URL nested in a parameter (?next=https%3A%2F%2Fh%2F%3Ftoken%3Dx)
//     is read as well. A name without a value never counts: #token is an
//     anchor.
//   - a URI that does not parse, even as a relative reference (net/url),
//     hides; so does one holding a character no URI holds raw: a control
//     character, a space (ASCII or Unicode), one of " < > ` (RFC 3986
//     appendix C's delimiters of URIs in text), a Unicode format character
//     (bidi overrides), a line or paragraph separator, or invalid UTF-8.
//     Shown, such a URI could start a line of its own, or forge the end of
//     its line and the start of another block's.
//
// Known limits: a credential carried in a path (a webhook's
// /api/webhooks/<id>/<token>, a bot token in /bot<token>/) or under a name
// not on the list is not caught. Callers may add their own detectors on top;
// none may weaken this rule.
func CheckURI(uri string) (reason, parameter string, mayCarry bool) {
	if s, ok := firstSecret(uri); ok {
		if s.kind == MaskUserinfo {
			return ReasonUserinfo, "", true
		}
		return ReasonCredentialParameter, s.param, true
	}
	if !parses(uri) {
		return ReasonUnparseable, "", true
	}
	return "", "", false
}

// parses reports whether uri parses as a URI or relative reference and holds
// no character that could break the line it is shown in.
func parses(uri string) bool {
	for i := 0; i < len(uri); i++ {
		c := uri[i]
		if c < utf8.RuneSelf {
			if stopASCII[c] {
				return false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(uri[i:])
		if r == utf8.RuneError && size <= 1 || breaksLine(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
		i += size - 1
	}
	if plainURL(uri) {
		return true
	}
	_, err := url.Parse(uri)
	return err == nil
}

// plainURL is a fast path for the common scheme://host[:port]/... shape
// that url.Parse always accepts: no percent escape anywhere (so no bad
// escape), and an authority of unreserved host characters with an optional
// numeric port (so no bad host, port or userinfo). Anything else goes to
// url.Parse; FuzzCheckURI checks that this never accepts what it refuses.
func plainURL(s string) bool {
	i := 0
	for i < len(s) && isSchemeChar(s[i]) {
		i++
	}
	if i == 0 || !isLetter(s[0]) || !strings.HasPrefix(s[i:], "://") || containsByte(s, '%') {
		return false
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	port := false
	for _, c := range []byte(rest[:end]) {
		switch {
		case c >= '0' && c <= '9':
		case port:
			return false
		case isAlnum(c), c == '.', c == '-', c == '_', c == '~':
		case c == ':':
			port = true
		default:
			return false
		}
	}
	return true
}

// breaksLine reports runes that render as a line break or are invisible
// controls (C1 controls, NEL, line and paragraph separators).
func breaksLine(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029
}

// specialSchemes are the schemes whose authority browsers read after any
// number of slashes or backslashes (WHATWG URL "special schemes").
func isSpecialScheme(s string) bool {
	switch strings.ToLower(s) {
	case "http", "https", "ws", "wss", "ftp":
		return true
	}
	return false
}

// splitScheme returns the scheme (without ':') and the rest, or "" and uri
// when uri has no scheme.
func splitScheme(uri string) (scheme, rest string) {
	for i := 0; i < len(uri); i++ {
		c := uri[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') && i > 0:
		case c == ':' && i > 0:
			return uri[:i], uri[i+1:]
		default:
			return "", uri
		}
	}
	return "", uri
}
