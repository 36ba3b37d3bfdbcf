package app

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// attachmentName is the only shape the store writes: a sha256 and an
// extension. Anything else is refused, so a request can never walk out of
// the attachment folder.
var attachmentName = regexp.MustCompile(`^[0-9a-f]{64}\.(png|jpg|jpeg|gif|webp|bmp|tiff|bin)$`)

// AttachmentHandler serves the content-addressed image store to the window
// at /attachments/<sha256>.<ext>. Everything else is a 404, which lets Wails
// fall back to the embedded frontend.
type AttachmentHandler struct {
	Dir string
}

// attachmentPrefix is the URL path the window loads images from.
const attachmentPrefix = "/attachments/"

func (h AttachmentHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, attachmentPrefix)
	if !ok || !attachmentName.MatchString(name) || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(filepath.Join(h.Dir, name))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	// The bytes are untrusted: never let the webview sniff them into HTML.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; sandbox")
	w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	w.Header().Set("Content-Type", imageType(filepath.Ext(name)))
	http.ServeContent(w, r, name, st.ModTime(), f)
}

func imageType(ext string) string {
	switch ext {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".bmp":
		return "image/bmp"
	case ".tiff":
		return "image/tiff"
	}
	return "application/octet-stream"
}
