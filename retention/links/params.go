package links

// Family is one group of query or fragment parameter names that carry a
// credential, as one provider (or one protocol) documents them.
type Family struct {
	// Key is the short name the links audit filters by: the provider, one
	// key for all its signing versions (FamilyAWS covers SigV4 and SigV2).
	Key string
	// Name says whose names these are, for help text and tests.
	Name string
	// Source is the documentation the names were taken from.
	Source string
	// Params are the names as the provider spells them. They are compared
	// after normalisation (see NormalizeName), so one spelling is enough.
	Params []string
}

// credentialFamilies is THE credential parameter list: the only place a name
// is added or removed. The rule for what goes in:
//
//   - the value that is itself the bearer secret (a signature, a token, a
//     password, a session id) is always listed;
//   - the identifier of the signing key (AWSAccessKeyId, X-Amz-Credential,
//     GoogleAccessId, Key-Pair-Id, oauth_consumer_key) is listed when its name
//     is distinctive to the family, since it names an account and never
//     appears in an ordinary link;
//   - the signed metadata beside a signature (expiry, version, permissions,
//     policy, issue time: Azure's se/sv/sp/sr/st, Discord's ex/is,
//     CloudFront's Expires/Policy, X-Amz-Date) is NOT listed. It is no
//     credential, a URL that carries it also carries the signature, which
//     hides it, and its short generic names (is, ex, se, sp, policy, expires)
//     would hide the ordinary links agents use most.
var credentialFamilies = []Family{
	{
		Key:    FamilyAWS,
		Name:   "AWS Signature Version 4 (presigned URL)",
		Source: "docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html; IAM User Guide, Common Parameters",
		Params: []string{"X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token"},
	},
	{
		Key:    FamilyAWS,
		Name:   "AWS Signature Version 2 (query string authentication)",
		Source: "docs.aws.amazon.com/AmazonS3/latest/API/RESTAuthentication.html",
		Params: []string{"AWSAccessKeyId", "Signature"},
	},
	{
		Key:    FamilyGCS,
		Name:   "Google Cloud Storage V4 signed URL",
		Source: "cloud.google.com/storage/docs/access-control/signing-urls-manually",
		Params: []string{"X-Goog-Signature", "X-Goog-Credential"},
	},
	{
		Key:    FamilyGCS,
		Name:   "Google Cloud Storage V2 signed URL",
		Source: "cloud.google.com/storage/docs/access-control/signed-urls-v2",
		Params: []string{"GoogleAccessId", "Signature"},
	},
	{
		// sig is the HMAC over the signed fields, the one bearer secret of a
		// SAS; sv, ss, srt, sp, se, st, sip, spr, sr and the user-delegation
		// skoid/sktid/skt/ske/sks/skv are signed metadata (see above).
		Key:    FamilyAzureSAS,
		Name:   "Azure Storage shared access signature (SAS)",
		Source: "learn.microsoft.com/rest/api/storageservices/create-service-sas",
		Params: []string{"sig"},
	},
	{
		Key:    FamilyCloudFront,
		Name:   "Amazon CloudFront signed URL",
		Source: "docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/private-content-creating-signed-url-canned-policy.html",
		Params: []string{"Signature", "Key-Pair-Id"},
	},
	{
		// hm is the signature; ex (expiry) and is (issue time) are
		// hex timestamps.
		Key:    FamilyDiscord,
		Name:   "Discord signed attachment CDN URL",
		Source: "discord.com/developers/docs/reference#signed-attachment-cdn-urls",
		Params: []string{"hm"},
	},
	{
		Key:    FamilyB2,
		Name:   "Backblaze B2 download authorization",
		Source: "backblaze.com/apidocs/b2-download-file-by-name; b2-get-download-authorization",
		Params: []string{"Authorization"},
	},
	{
		// RFC 6749 (access_token in an implicit grant's fragment, code in
		// the redirect's query, client_secret, refresh_token), OpenID Connect
		// (id_token), RFC 7636 (code_verifier), RFC 7521/7523
		// (client_assertion, assertion), RFC 8628 (device_code), RFC 8693
		// (subject_token, actor_token).
		Key:    FamilyOAuth2,
		Name:   "OAuth 2.0 and OpenID Connect",
		Source: "RFC 6749 §4.1.2, §4.2.2, §2.3.1, §6; OpenID Connect Core §3.2.2.5; RFC 7636; RFC 7521; RFC 8628; RFC 8693",
		Params: []string{
			"access_token", "refresh_token", "id_token", "code", "client_secret",
			"code_verifier", "client_assertion", "assertion", "device_code",
			"subject_token", "actor_token",
		},
	},
	{
		// oauth_consumer_key is the client's identifier, not its secret
		// (RFC 5849 §3.1), but several APIs accept it alone as an API key,
		// and it never appears in an ordinary link, so it is listed.
		Key:    FamilyOAuth1,
		Name:   "OAuth 1.0a",
		Source: "RFC 5849 §2.1, §2.2, §2.3, §3.1",
		Params: []string{"oauth_token", "oauth_token_secret", "oauth_signature", "oauth_verifier", "oauth_consumer_key"},
	},
	{
		Key:    FamilyGeneric,
		Name:   "Generic API keys, tokens, passwords and secrets",
		Source: "common usage (GitLab private_token, x-api-key, Basic credentials in query strings)",
		Params: []string{
			"token", "key", "api_key", "x-api-key", "api_token", "auth_token",
			"access_key", "secret", "secret_key", "client_key", "private_token",
			"private_key", "password", "passwd", "pwd", "auth", "bearer", "jwt",
			"credential", "credentials", "x-auth-token", "sas_token", "security_token",
			"signing_key", "app_secret", "api_secret", "access_token_secret",
		},
	},
	{
		// A session id in a URL is a bearer credential: whoever holds it is
		// logged in. CFID/CFTOKEN are ColdFusion's URL session pair.
		Key:    FamilySession,
		Name:   "Session identifiers",
		Source: "OWASP Session Management Cheat Sheet (session ID exposure in URLs); servlet jsessionid; PHP PHPSESSID",
		Params: []string{
			"session_id", "sessionid", "session_token", "jsessionid",
			"phpsessid", "sid", "cfid", "cftoken", "aspsessionid",
		},
	},
}

// Families returns the credential parameter list, grouped by family, for help
// text and documentation. The returned slices are copies.
func Families() []Family {
	out := make([]Family, len(credentialFamilies))
	for i, f := range credentialFamilies {
		f.Params = append([]string(nil), f.Params...)
		out[i] = f
	}
	return out
}

// maxNormName bounds the normalised length of any listed name; a longer name
// cannot match, so normalisation stops early.
const maxNormName = 32

// credentialIndex maps a normalised name to its first listed spelling, which
// is what a Decision reports: the list's spelling, never bytes of the URI.
var credentialIndex = buildIndex(credentialFamilies)

func buildIndex(fams []Family) map[string]string {
	m := make(map[string]string)
	for _, f := range fams {
		for _, p := range f.Params {
			var buf [maxNormName]byte
			n, ok := normalize(p, &buf)
			if !ok || n == 0 {
				continue
			}
			if _, dup := m[string(buf[:n])]; !dup {
				m[string(buf[:n])] = p
			}
		}
	}
	return m
}

// NormalizeName returns the form parameter names are compared in: percent
// escapes decoded (repeatedly, so a doubly encoded name is read too), then
// only ASCII letters and digits kept, lower-cased. So accessToken,
// access-token, ACCESS_TOKEN, access%5Ftoken and token[] compare as
// accesstoken and token do.
func NormalizeName(name string) string {
	decoded := decodeName(name)
	b := make([]byte, 0, len(decoded))
	for i := 0; i < len(decoded); i++ {
		if c := lowerAlnum(decoded[i]); c != 0 {
			b = append(b, c)
		}
	}
	return string(b)
}

// credentialName reports the listed spelling of raw's normalised name, if
// the name is on the list.
func credentialName(raw string) (string, bool) {
	var buf [maxNormName]byte
	n, ok := normalize(raw, &buf)
	if !ok || n == 0 {
		return "", false
	}
	canon, hit := credentialIndex[string(buf[:n])]
	return canon, hit
}

// normalize writes raw's normalised form into buf without allocating in the
// common case (no percent escape). ok is false when it is too long to match.
func normalize(raw string, buf *[maxNormName]byte) (int, bool) {
	if containsByte(raw, '%') {
		raw = decodeName(raw)
	}
	n := 0
	for i := 0; i < len(raw); i++ {
		c := lowerAlnum(raw[i])
		if c == 0 {
			continue
		}
		if n == maxNormName {
			return 0, false
		}
		buf[n] = c
		n++
	}
	return n, true
}

func lowerAlnum(c byte) byte {
	switch {
	case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		return c
	case c >= 'A' && c <= 'Z':
		return c + ('a' - 'A')
	}
	return 0
}

// decodeName percent-decodes up to four times, so %2574oken (an encoded
// "%74oken") reads as token. Malformed escapes stay as they are.
func decodeName(s string) string { return percentDecode(s, false).s }

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
