package links

import (
	"slices"
	"testing"
)

// Every family the links audit filters by has an example URL whose stub
// names a parameter FamiliesOf puts in that family, and FamilyParams lists
// the name the stub carries.
func TestFamiliesOfEveryFamily(t *testing.T) {
	examples := map[string]string{
		FamilyAWS:        "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc",
		FamilyGCS:        "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=abc",
		FamilyAzureSAS:   "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=abc",
		FamilyCloudFront: "https://d111.cloudfront.net/i.jpg?Expires=1&Key-Pair-Id=K2J",
		FamilyDiscord:    "https://cdn.discordapp.com/attachments/1/2/a.png?ex=1&is=2&hm=abc",
		FamilyB2:         "https://f000.backblazeb2.com/file/b/f?Authorization=abc",
		FamilyOAuth2:     "https://app.example/cb#access_token=abc&token_type=bearer",
		FamilyOAuth1:     "https://api.example/r?oauth_token=abc",
		FamilyGeneric:    "https://api.example/v1?api_key=abc",
		FamilySession:    "https://shop.example/cart;jsessionid=abc",
	}
	keys := FamilyKeys()
	if len(keys) != len(examples) {
		t.Fatalf("FamilyKeys() = %v, want the %d families of LINKS.md", keys, len(examples))
	}
	for _, key := range keys {
		t.Run(key, func(t *testing.T) {
			uri, ok := examples[key]
			if !ok {
				t.Fatalf("no example for %s", key)
			}
			reason, param, hide := CheckURI(uri)
			if !hide || reason != ReasonCredentialParameter {
				t.Fatalf("CheckURI(%s) = %q %q %v", uri, reason, param, hide)
			}
			if got := FamiliesOf(param); !slices.Contains(got, key) {
				t.Errorf("FamiliesOf(%q) = %v, want it to hold %s", param, got, key)
			}
			if got := FamilyParams(key); !slices.Contains(got, param) {
				t.Errorf("FamilyParams(%s) = %v, want it to hold %q", key, got, param)
			}
		})
	}
}

func TestFamiliesOf(t *testing.T) {
	cases := []struct {
		param string
		want  []string
	}{
		{"X-Amz-Signature", []string{FamilyAWS}},
		{"x_amz_signature", []string{FamilyAWS}},
		{"Signature", []string{FamilyAWS, FamilyGCS, FamilyCloudFront}},
		{"GoogleAccessId", []string{FamilyGCS}},
		{"access_token", []string{FamilyOAuth2}},
		{"accessToken", []string{FamilyOAuth2}},
		{"token", []string{FamilyGeneric}},
		{"jsessionid", []string{FamilySession}},
		{"page", nil},
		{"", nil},
	}
	for _, tc := range cases {
		t.Run(tc.param, func(t *testing.T) {
			if got := FamiliesOf(tc.param); !slices.Equal(got, tc.want) {
				t.Errorf("FamiliesOf(%q) = %v, want %v", tc.param, got, tc.want)
			}
		})
	}
}

// FamilyParams and FamiliesOf agree on every listed name, and every name
// is some family's.
func TestFamilyParamsInvertFamiliesOf(t *testing.T) {
	for _, f := range Families() {
		for _, p := range f.Params {
			canon, _ := credentialName(p)
			fams := FamiliesOf(canon)
			if !slices.Contains(fams, f.Key) {
				t.Errorf("%s (%s) is listed in %s but FamiliesOf says %v", p, canon, f.Key, fams)
			}
			for _, k := range fams {
				if !slices.Contains(FamilyParams(k), canon) {
					t.Errorf("FamilyParams(%s) lacks %s", k, canon)
				}
			}
		}
	}
	if got := FamilyParams("nope"); got != nil {
		t.Errorf("an unknown family lists %v", got)
	}
}

func TestURIHost(t *testing.T) {
	cases := []struct{ uri, want string }{
		{"https://B.S3.AmazonAWS.com/k?X-Amz-Signature=a", "b.s3.amazonaws.com"},
		{"https://bob:pw@h.example:8443/p", "h.example"},
		{"https:\\\\h.example\\p", "h.example"},
		{"http://[::1]:8080/x", "[::1]"},
		{"//cdn.example/a.js", "cdn.example"},
		{"www.example.com/page?token=x", "www.example.com"},
		{"ftp://files.example./pub", "files.example"},
		{"mailto:a@b.example", ""},
		{"/relative/path", ""},
		{"https://a.example\x00evil/", "a.exampleevil"},
		{"https://u@x@h.example/", "h.example"},
	}
	for _, tc := range cases {
		t.Run(tc.uri, func(t *testing.T) {
			if got := URIHost(tc.uri); got != tc.want {
				t.Errorf("URIHost(%q) = %q, want %q", tc.uri, got, tc.want)
			}
		})
	}
}
