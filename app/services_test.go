package app

import (
	"strings"
	"testing"
)

func TestLinksCheck(t *testing.T) {
	tests := []struct {
		name       string
		uri        string
		wantShown  string
		wantReason string
		secret     string
	}{
		{"plain docs link", "https://example.com/docs?page=2", "line", "", ""},
		{"presigned", "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=deadbeefcafe", "stub", "credential-parameter", "deadbeefcafe"},
		{"userinfo", "https://alice:hunter2@example.com/", "stub", "userinfo", "hunter2"},
	}
	l := NewLinks(NewStore(Config{DataDir: t.TempDir()}, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.Check(tt.uri)
			if err != nil {
				t.Fatal(err)
			}
			if got.Shown != tt.wantShown || got.Reason != tt.wantReason {
				t.Errorf("got shown %q reason %q, want %q %q", got.Shown, got.Reason, tt.wantShown, tt.wantReason)
			}
			if tt.secret != "" && strings.Contains(got.Line+got.Parameter, tt.secret) {
				t.Errorf("row leaks the credential: %+v", got)
			}
		})
	}
	if _, err := l.Check(strings.Repeat("a", maxCheckedURI+1)); err == nil {
		t.Error("an oversized URI was accepted")
	}
}

func TestRoutes(t *testing.T) {
	routes, err := NewRetention(NewStore(Config{DataDir: t.TempDir()}, nil)).Routes()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]RouteInfo{}
	for _, r := range routes {
		seen[r.Name] = r
	}
	for _, name := range []string{"anthropic", "openai-tile", "gemini"} {
		if r, ok := seen[name]; !ok || !r.HasImages {
			t.Errorf("route %s missing or unpriced: %+v", name, r)
		}
	}
	if r, ok := seen["deepseek"]; !ok || r.HasImages || r.Calculator != "none" {
		t.Errorf("deepseek should be listed without image pricing: %+v", r)
	}
}
