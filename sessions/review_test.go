package sessions

import (
	"slices"
	"testing"
)

// A comparison starts with the result's own harness's policy and the seed's;
// every registered harness is listed.
func TestComparePolicies(t *testing.T) {
	for _, c := range []struct {
		harness string
		want    []string
	}{
		{"claude-code", []string{"claude-code", "dsh-tokens"}},
		{"codex", []string{"codex", "dsh-tokens"}},
		{"gemini-cli", []string{"gemini-cli", "dsh-tokens"}},
		{"opencode", []string{"opencode", "dsh-tokens"}},
		{"goose", []string{"goose", "dsh-tokens"}},
		{"dsh", []string{"dsh-tokens", "dsh-bytes"}},
		{HarnessSpillscope, []string{"dsh-tokens", "dsh-bytes"}},
		{"copilot-cli", []string{"dsh-tokens"}}, // Copilot CLI's own cut is recognised, not a policy
		{"no-such-harness", []string{"dsh-tokens"}},
	} {
		t.Run(c.harness, func(t *testing.T) {
			if got := ComparePolicies(c.harness); !slices.Equal(got, c.want) {
				t.Errorf("ComparePolicies(%q) = %v, want %v", c.harness, got, c.want)
			}
		})
	}
	for _, h := range Harnesses() {
		if got := ComparePolicies(h.Name()); len(got) == 0 {
			t.Errorf("harness %s: no policy to compare", h.Name())
		}
	}
}
