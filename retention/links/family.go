package links

// Family keys: the groups of the credential list the links audit filters
// by. A provider's signing versions share one key.
const (
	FamilyAWS        = "aws"
	FamilyGCS        = "gcs"
	FamilyAzureSAS   = "azure-sas"
	FamilyCloudFront = "cloudfront"
	FamilyDiscord    = "discord"
	FamilyB2         = "b2"
	FamilyOAuth2     = "oauth2"
	FamilyOAuth1     = "oauth1"
	FamilyGeneric    = "generic"
	FamilySession    = "session"
)

// FamilyKeys lists the family keys in the credential list's order, each
// once.
func FamilyKeys() []string {
	var out []string
	for _, f := range credentialFamilies {
		if len(out) == 0 || out[len(out)-1] != f.Key {
			out = append(out, f.Key)
		}
	}
	return out
}

// FamiliesOf is THE mapping from a matched parameter name to its credential
// families: the keys of every family whose list holds the name (compared as
// NormalizeName compares), in list order. A name several providers use
// (Signature: AWS SigV2, Google Cloud Storage V2 and CloudFront) belongs to
// each of them, since the name alone cannot tell which signed the URL; a
// name that is not on the list (or a reason without a name: userinfo,
// unparseable) has none.
func FamiliesOf(param string) []string {
	var buf [maxNormName]byte
	n, ok := normalize(param, &buf)
	if !ok || n == 0 {
		return nil
	}
	want := string(buf[:n])
	var out []string
	for _, f := range credentialFamilies {
		if len(out) > 0 && out[len(out)-1] == f.Key {
			continue
		}
		for _, p := range f.Params {
			var pb [maxNormName]byte
			if m, ok := normalize(p, &pb); ok && string(pb[:m]) == want {
				out = append(out, f.Key)
				break
			}
		}
	}
	return out
}

// FamilyParams lists the parameter names a family's matches are reported
// under (the list's spelling a Decision, a Found and a MaskSpan carry), so a
// store of those names can be filtered by family. It is derived from
// FamiliesOf: a name is the family's when FamiliesOf says so. An unknown
// key has none.
func FamilyParams(key string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range credentialFamilies {
		for _, p := range f.Params {
			canon, ok := credentialName(p)
			if !ok || seen[canon] {
				continue
			}
			for _, k := range FamiliesOf(canon) {
				if k == key {
					seen[canon] = true
					out = append(out, canon)
					break
				}
			}
		}
	}
	return out
}
