package app

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAttachmentHandler(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "attachments")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("ab", 32) + ".png"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("\x89PNG\r\n\x1a\nfake"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := AttachmentHandler{Dir: dir}
	tests := []struct {
		name, path string
		wantCode   int
		wantType   string
	}{
		{"stored image", "/attachments/" + name, 200, "image/png"},
		{"traversal", "/attachments/../secret.txt", 404, ""},
		{"encoded traversal", "/attachments/..%2fsecret.txt", 404, ""},
		{"not a hash", "/attachments/secret.png", 404, ""},
		{"missing", "/attachments/" + strings.Repeat("cd", 32) + ".png", 404, ""},
		{"other path", "/index.html", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
			if rec.Code != tt.wantCode {
				t.Fatalf("code %d, want %d", rec.Code, tt.wantCode)
			}
			if tt.wantType != "" {
				if got := rec.Header().Get("Content-Type"); got != tt.wantType {
					t.Errorf("type %q, want %q", got, tt.wantType)
				}
				if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
					t.Error("nosniff missing")
				}
			}
			if strings.Contains(rec.Body.String(), "secret") {
				t.Error("served a file outside the store")
			}
		})
	}
}
