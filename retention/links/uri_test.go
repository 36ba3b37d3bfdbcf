package links

import (
	"net/url"
	"strings"
	"testing"
)

type uriCase struct {
	name   string
	uri    string
	reason string
	param  string
}

// Positives: at least one real-shaped URL per family, from its provider's
// documentation (values are the documentation's own placeholders).
var familyPositives = []uriCase{
	{"aws sigv4 presigned (S3 docs)",
		"https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130721%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130721T201207Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
		ReasonCredentialParameter, "X-Amz-Credential"},
	{"aws sigv4 signature alone",
		"https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Date=20130721T201207Z&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
		ReasonCredentialParameter, "X-Amz-Signature"},
	{"aws sigv4 security token",
		"https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Security-Token=FQoGZXIvYXdzEXAMPLEtokenvalue&X-Amz-Expires=900",
		ReasonCredentialParameter, "X-Amz-Security-Token"},
	{"aws sigv2 query auth (S3 docs)",
		"https://awsexamplebucket1.s3.us-west-1.amazonaws.com/photos/puppy.jpg?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1175139620&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D",
		ReasonCredentialParameter, "AWSAccessKeyId"},
	{"gcs v4 signed url (Cloud Storage docs)",
		"https://storage.googleapis.com/example-bucket/cat.jpeg?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=example%40example-project.iam.gserviceaccount.com%2F20181026%2Fus-central1%2Fstorage%2Fgoog4_request&X-Goog-Date=20181026T181309Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=247a2aa45f169edf4d187d54e7cc46e4731b1e6273242c4f4c39a1d2507a0e58",
		ReasonCredentialParameter, "X-Goog-Credential"},
	{"gcs v4 signature alone",
		"https://storage.googleapis.com/example-bucket/cat.jpeg?X-Goog-Expires=900&X-Goog-Signature=247a2aa45f169edf",
		ReasonCredentialParameter, "X-Goog-Signature"},
	{"gcs v2 signed url (Cloud Storage docs)",
		"https://storage.googleapis.com/example-bucket/cat.jpeg?GoogleAccessId=example@example-project.iam.gserviceaccount.com&Expires=1458238630&Signature=VVUgfqviDCov%2B%2BKjSNrrfD8gjJ%2FT5IdGrqqTHI6NDvQ%3D",
		ReasonCredentialParameter, "GoogleAccessId"},
	{"azure service sas (Microsoft Learn)",
		"https://myaccount.blob.core.windows.net/?restype=service&comp=properties&sv=2015-04-05&ss=bf&st=2015-04-29T22%3A18%3A26Z&se=2015-04-30T02%3A23%3A26Z&sr=b&sp=rw&sip=168.1.5.60-168.1.5.70&spr=https&sig=F%2BGRVAZ5Cdj2Pw4tgU7IlSTkWgn7bUkkAg8P6HESXwmf%3D",
		ReasonCredentialParameter, "sig"},
	{"cloudfront canned policy (CloudFront docs)",
		"https://d111111abcdef8.cloudfront.net/image.jpg?color=red&size=medium&Expires=1767290400&Signature=nitfHRCrtziwO2HwPfWw~yYDhUF5EwRunQA-j19DzZrvDh6hQ73lDx~-ar3UocvvRQVw6EkC~GdpGQyyOSKQim-TxAnW7d8F5Kkai9HVx0FIu-5jcQb0UEmatEXAMPLE3ReXySpLSMj0yCd3ZAB4UcBCAqEijkytL6f3fVYNGQI6&Key-Pair-Id=K2JCJMDEHXQW5F",
		ReasonCredentialParameter, "Signature"},
	{"cloudfront key pair id",
		"https://d111111abcdef8.cloudfront.net/image.jpg?Policy=eyJTdGF0ZW1lbnQiOlt7&Key-Pair-Id=K2JCJMDEHXQW5F",
		ReasonCredentialParameter, "Key-Pair-Id"},
	{"discord attachment cdn (Discord API reference)",
		"https://cdn.discordapp.com/attachments/1012345678900020080/1234567891233211234/my_image.png?ex=65d903de&is=65c68ede&hm=2481f30dd67f503f54d020ae3b5533b9987fae4e55f2b4e3926e08a3fa3ee24f&",
		ReasonCredentialParameter, "hm"},
	{"backblaze b2 download authorization",
		"https://f345.backblazeb2.com/file/photos/cute/kitten.jpg?Authorization=3_20160803004041_53982a92f631a8c7303e3266_d940c7f5ee17cd1de3758aaacf1024188bc0cd0b_000_20160804004041_0006_dnld",
		ReasonCredentialParameter, "Authorization"},
	{"oauth2 implicit grant fragment (RFC 6749 4.2.2)",
		"http://example.com/cb#access_token=2YotnFZFEjr1zCsicMWpAA&state=xyz&token_type=example&expires_in=3600",
		ReasonCredentialParameter, "access_token"},
	{"oauth2 authorization code (RFC 6749 4.1.2)",
		"https://client.example.com/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz",
		ReasonCredentialParameter, "code"},
	{"oauth2 refresh with client secret (RFC 6749 6)",
		"https://server.example.com/token?grant_type=refresh_token&refresh_token=tGzv3JOkF0XG5Qx2TlKWIA&client_id=s6BhdRkqt3&client_secret=7Fjfp0ZBr1KtDRbnfVdmIw",
		ReasonCredentialParameter, "refresh_token"},
	{"openid connect id token",
		"https://client.example.org/cb#id_token=eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.e30.sig&state=af0ifjsldkj",
		ReasonCredentialParameter, "id_token"},
	{"oauth1 callback (RFC 5849 2.2)",
		"http://client.example.net/cb?oauth_token=hh5s93j4hdidpola&oauth_verifier=hfdp7dh39dks9884",
		ReasonCredentialParameter, "oauth_token"},
	{"oauth1 signed request (RFC 5849 3.4.1)",
		"http://example.com/request?b5=%3D%253D&a3=a&a2=r%20b&oauth_signature_method=HMAC-SHA1&oauth_timestamp=137131201&oauth_nonce=7d8f3e4a&oauth_signature=djosJKDKJSD8743243%2Fjdk33klY%3D",
		ReasonCredentialParameter, "oauth_signature"},
	{"oauth1 token secret", "https://example.com/cb?oauth_token_secret=pfkkdhi9sl3r4s00", ReasonCredentialParameter, "oauth_token_secret"},
	{"generic api_key", "https://api.example.com/v1/data?api_key=abcd1234", ReasonCredentialParameter, "api_key"},
	{"generic x-api-key", "https://api.example.com/v1/data?x-api-key=abcd1234", ReasonCredentialParameter, "x-api-key"},
	{"generic apikey", "https://api.example.com/v1/data?apikey=abcd1234", ReasonCredentialParameter, "api_key"},
	{"generic key", "https://maps.example.com/api/js?key=AIzaSyEXAMPLE", ReasonCredentialParameter, "key"},
	{"generic token", "https://example.com/export?token=abcd", ReasonCredentialParameter, "token"},
	{"generic password", "https://example.com/login?user=bob&password=hunter2", ReasonCredentialParameter, "password"},
	{"generic passwd", "https://example.com/login?passwd=hunter2", ReasonCredentialParameter, "passwd"},
	{"generic secret", "https://example.com/hook?secret=s3cr3t", ReasonCredentialParameter, "secret"},
	{"generic auth", "https://example.com/feed.ics?auth=abc", ReasonCredentialParameter, "auth"},
	{"gitlab private token", "https://gitlab.example.com/api/v4/projects?private_token=glpat-EXAMPLE", ReasonCredentialParameter, "private_token"},
	{"session id", "https://shop.example.com/cart?session_id=9f8e7d", ReasonCredentialParameter, "session_id"},
	{"sessionid", "https://shop.example.com/cart?SessionId=9f8e7d", ReasonCredentialParameter, "session_id"},
	{"jsessionid path parameter", "https://shop.example.com/cart;jsessionid=0A1B2C3D4E5F?item=4", ReasonCredentialParameter, "jsessionid"},
	{"phpsessid", "https://forum.example.com/index.php?PHPSESSID=el4ukv0kqbvoirg7nkp4dncpk3", ReasonCredentialParameter, "phpsessid"},
	{"sid", "https://example.com/portal?sid=abc123", ReasonCredentialParameter, "sid"},
}

// Negatives LINKS.md names, and the family metadata the list leaves out on
// purpose: they must show.
var negatives = []uriCase{
	{"video link", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "", ""},
	{"sharing link", "https://docs.google.com/document/d/1AbC/edit?usp=sharing", "", ""},
	{"pagination", "https://example.com/list?page=2", "", ""},
	{"tracking", "https://example.com/?utm_source=newsletter&utm_medium=email&utm_campaign=spring", "", ""},
	{"bare token anchor", "https://docs.example.com/auth#token", "", ""},
	{"credential name without value", "https://example.com/?token=", "", ""},
	{"credential name without equals", "https://example.com/?token&page=2", "", ""},
	{"fragment credential without value", "https://example.com/#access_token=", "", ""},
	{"azure metadata without sig", "https://myaccount.blob.core.windows.net/c/b.txt?sv=2021-06-08&se=2023-12-20T22%3A54%3A52Z&sp=r&sr=c", "", ""},
	{"discord timestamps without hm", "https://cdn.discordapp.com/attachments/1/2/a.png?ex=65d903de&is=65c68ede", "", ""},
	{"policy page", "https://example.com/legal?policy=privacy", "", ""},
	{"mailto", "mailto:someone@example.com?subject=hi", "", ""},
	{"file uri", "file:///home/u/report.csv", "", ""},
	{"at sign in path", "https://example.com/users/@alice", "", ""},
	{"empty userinfo", "https://@example.com/", "", ""},
	{"relative reference", "../reports/q3.csv?page=2", "", ""},
	{"empty", "", "", ""},
	{"nested url without credential", "https://login.example.com/?next=https%3A%2F%2Fapp.example.com%2F%3Fpage%3D2", "", ""},
	{"email in query", "https://example.com/invite?email=bob@example.com", "", ""},
	{"name merely containing token", "https://example.com/?tokenizer=bpe&keyboard=us", "", ""},
}

var variants = []uriCase{
	{"camelCase", "https://example.com/?accessToken=abc", ReasonCredentialParameter, "access_token"},
	{"dashes", "https://example.com/?access-token=abc", ReasonCredentialParameter, "access_token"},
	{"upper case", "https://example.com/?ACCESS_TOKEN=abc", ReasonCredentialParameter, "access_token"},
	{"brackets", "https://example.com/?token[]=abc", ReasonCredentialParameter, "token"},
	{"encoded brackets", "https://example.com/?token%5B%5D=abc", ReasonCredentialParameter, "token"},
	{"percent-encoded name", "https://example.com/?%74oken=abc", ReasonCredentialParameter, "token"},
	{"percent-encoded underscore", "https://example.com/?api%5Fkey=abc", ReasonCredentialParameter, "api_key"},
	{"doubly encoded name", "https://example.com/?%2574oken=abc", ReasonCredentialParameter, "token"},
	{"name split by control character", "https://example.com/?to%00ken=abc", ReasonCredentialParameter, "token"},
	{"raw control character in name", "https://example.com/?to\x01ken=abc", ReasonCredentialParameter, "token"},
	{"fragment route", "https://app.example.com/#/reset?token=abc", ReasonCredentialParameter, "token"},
	{"semicolon separator", "https://example.com/?a=1;token=abc", ReasonCredentialParameter, "token"},
	{"question mark inside query", "https://example.com/?next=/x?token=abc", ReasonCredentialParameter, "token"},
	{"html escaped ampersand", "https://example.com/?a=1&amp;token=abc", ReasonCredentialParameter, "token"},
	{"value only without separators reading", "https://example.com/?token=;", ReasonCredentialParameter, "token"},
	{"nested encoded url", "https://login.example.com/?next=https%3A%2F%2Fapp.example.com%2F%3Ftoken%3Dabc", ReasonCredentialParameter, "token"},
	{"nested raw url", "https://login.example.com/?next=https://app.example.com/?sid=abc", ReasonCredentialParameter, "sid"},
	{"fragment semicolon", "https://example.com/#a=1;access_token=abc", ReasonCredentialParameter, "access_token"},
}

var userinfoCases = []uriCase{
	{"user and password", "https://alice:s3cret@example.com/x", ReasonUserinfo, ""},
	{"user only", "https://alice@example.com/x", ReasonUserinfo, ""},
	{"ftp anonymous", "ftp://anonymous@ftp.example.com/pub", ReasonUserinfo, ""},
	{"scheme relative", "//alice:s3cret@example.com/x", ReasonUserinfo, ""},
	{"special scheme without slashes", "https:alice:s3cret@example.com/x", ReasonUserinfo, ""},
	{"special scheme with backslashes", `https:\\alice:s3cret@example.com\x`, ReasonUserinfo, ""},
	{"empty user with password", "https://:s3cret@example.com/", ReasonUserinfo, ""},
	{"nested userinfo", "https://login.example.com/?next=https://bob:pw@app.example.com/", ReasonUserinfo, ""},
	{"nested encoded userinfo", "https://login.example.com/?next=https%3A%2F%2Fbob%3Apw%40app.example.com%2F", ReasonUserinfo, ""},
	{"userinfo before credential parameter", "https://a:b@example.com/?token=x", ReasonUserinfo, ""},
}

var unparseableCases = []uriCase{
	{"space in host", "https://exa mple.com/", ReasonUnparseable, ""},
	{"unclosed ipv6", "http://[::1/x", ReasonUnparseable, ""},
	{"bad port", "https://example.com:port/", ReasonUnparseable, ""},
	{"bad escape in path", "https://example.com/%zz", ReasonUnparseable, ""},
	{"missing scheme", "://example.com/", ReasonUnparseable, ""},
	{"newline", "https://example.com/a\nb", ReasonUnparseable, ""},
	{"line separator", "https://example.com/a\u2028b", ReasonUnparseable, ""},
	{"invalid utf-8", "https://example.com/\xff", ReasonUnparseable, ""},
	{"space in path", "https://example.com/a; not fetched] [resource link \"x\": https://evil.example/", ReasonUnparseable, ""},
	{"quote", `https://example.com/a"b`, ReasonUnparseable, ""},
	{"no-break space", "https://example.com/a\u00a0b", ReasonUnparseable, ""},
	{"bidi override", "https://example.com/\u202etxt.exe", ReasonUnparseable, ""},
	{"colon in first segment", "a:b/c:d" + "\x00", ReasonUnparseable, ""},
}

func TestCheckURI(t *testing.T) {
	groups := []struct {
		name  string
		cases []uriCase
	}{
		{"family", familyPositives},
		{"negative", negatives},
		{"variant", variants},
		{"userinfo", userinfoCases},
		{"unparseable", unparseableCases},
	}
	for _, g := range groups {
		for _, tc := range g.cases {
			t.Run(g.name+"/"+tc.name, func(t *testing.T) {
				reason, param, hide := CheckURI(tc.uri)
				if reason != tc.reason || param != tc.param || hide != (tc.reason != "") {
					t.Errorf("CheckURI(%q) = %q, %q, %v; want %q, %q, %v",
						tc.uri, reason, param, hide, tc.reason, tc.param, tc.reason != "")
				}
			})
		}
	}
}

func TestCredentialListCoversEveryFamily(t *testing.T) {
	want := []string{"AWS Signature Version 4", "AWS Signature Version 2", "Google Cloud Storage V4",
		"Google Cloud Storage V2", "Azure", "CloudFront", "Discord", "Backblaze B2", "OAuth 2.0", "OAuth 1.0a",
		"Generic", "Session"}
	fams := Families()
	for _, w := range want {
		found := false
		for _, f := range fams {
			if strings.Contains(f.Name, w) {
				found = true
				if len(f.Params) == 0 || f.Source == "" {
					t.Errorf("family %q has no names or no source", f.Name)
				}
			}
		}
		if !found {
			t.Errorf("no family named like %q", w)
		}
	}
	// Every listed name must be caught alone, with a value, and not without.
	for _, f := range fams {
		for _, p := range f.Params {
			t.Run(f.Name+"/"+p, func(t *testing.T) {
				if _, got, hide := CheckURI("https://example.com/x?" + p + "=v1"); !hide || NormalizeName(got) != NormalizeName(p) {
					t.Errorf("%s with a value: got %q, %v", p, got, hide)
				}
				if _, _, hide := CheckURI("https://example.com/x?" + p + "="); hide {
					t.Errorf("%s without a value hides", p)
				}
			})
		}
	}
}

func TestNormalizeName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"accessToken", "accesstoken"},
		{"access-token", "accesstoken"},
		{"ACCESS_TOKEN", "accesstoken"},
		{"token[]", "token"},
		{"%74oken", "token"},
		{"%2574oken", "token"},
		{"X-Amz-Signature", "xamzsignature"},
		{"to%zzken", "tozzken"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			if got := NormalizeName(tc.in); got != tc.want {
				t.Errorf("NormalizeName(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestPlainURLNeverAcceptsWhatURLParseRefuses pins the fast path to
// url.Parse on the shapes nearest its edge.
func TestPlainURLNeverAcceptsWhatURLParseRefuses(t *testing.T) {
	for _, s := range []string{
		"http://a:8080/x", "http://a:/x", "http://a:80x/", "http://a:b:1/", "http://[::1]/",
		"http://a%41/", "http://a/%zz", "http://a/#%zz", "http://a_b~c.d-e/", "x://", "x:///",
		"http://a/?%zz", "http://a@b/", "http://a!b/", "1http://a/", "http://:80/", "HTTP://A/",
		"http://a/\\x", "http://a/ x", "http://a:99999999999999999999/",
	} {
		t.Run(s, func(t *testing.T) {
			_, err := url.Parse(s)
			if plainURL(s) && err != nil {
				t.Errorf("plainURL accepts %q, which url.Parse refuses: %v", s, err)
			}
		})
	}
}
