package app

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// indexHTML is the head of frontend/index.html as the asset server reads it.
const indexHTML = `<!doctype html>
<html lang="en">
  <head>
    <script src="/startup.js"></script>
    <script src="/firstpage.js"></script>
  </head>
  <body><div id="app"></div></body>
</html>
`

// pageServer serves indexHTML at / and index.html, and a script elsewhere.
var pageServer = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" || r.URL.Path == "/index.html" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(indexHTML)))
		_, _ = w.Write([]byte(indexHTML))
		return
	}
	w.Header().Set("Content-Type", "text/javascript")
	_, _ = w.Write([]byte("// " + r.URL.Path))
})

var islandRE = regexp.MustCompile(`(?s)<script type="application/json" id="spillscope-first-page">(.*?)</script>`)

// serve asks h for path and returns the body.
func serve(t *testing.T, h http.Handler, path string) (string, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: status %d", path, rec.Code)
	}
	return rec.Body.String(), rec.Header()
}

// The page's HTML carries the first screen's page exactly as the binding
// answers it, above the script that reads it, to the first load only: a
// reload gets the bare page to ask for, so it reads the rows as they are
// then. No other response changes.
func TestFirstPageIslandIsLargestsAnswer(t *testing.T) {
	s, _, _, _, _ := newIndexedApp(t)
	want, err := s.Largest(PageQuery{Offset: 0, Limit: FirstPageLimit})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler
	for _, path := range []string{"/", "/index.html"} {
		h = PrepareFirstPage(s).Middleware(pageServer)
		body, header := serve(t, h, path)
		m := islandRE.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: no island in %.300s", path, body)
		}
		if strings.Index(body, m[0]) > strings.Index(body, `<script src="/firstpage.js">`) {
			t.Errorf("%s: the island comes after the script that reads it", path)
		}
		var got firstPageIsland
		if err := json.Unmarshal([]byte(m[1]), &got); err != nil {
			t.Fatalf("%s: island: %v", path, err)
		}
		if got.Offset != 0 || got.Limit != FirstPageLimit || got.Value == nil {
			t.Fatalf("%s: island asks for %d+%d with value %v", path, got.Offset, got.Limit, got.Value != nil)
		}
		gotJSON, _ := json.Marshal(got.Value)
		wantJSON, _ := json.Marshal(want)
		if !bytes.Equal(gotJSON, wantJSON) || len(want.Rows) == 0 {
			t.Errorf("%s: island's page differs from Largest's (%d rows of %d)", path, len(got.Value.Rows), len(want.Rows))
		}
		if header.Get("Content-Length") != "" {
			t.Errorf("%s: the original length survives the island: %s", path, header.Get("Content-Length"))
		}
		if !strings.Contains(header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: content type %q (Wails adds its scripts only to HTML)", path, header.Get("Content-Type"))
		}
		reload, _ := serve(t, h, path)
		m = islandRE.FindStringSubmatch(reload)
		var again firstPageIsland
		if m == nil || json.Unmarshal([]byte(m[1]), &again) != nil || again.Value != nil || again.Offset != 0 || again.Limit != FirstPageLimit {
			t.Errorf("%s reloaded: island %v, want the bare page to ask for", path, m)
		}
	}
	if body, _ := serve(t, h, "/startup.js"); body != "// /startup.js" {
		t.Errorf("a script went through changed: %q", body)
	}
}

// No text of a result closes the island's script element or runs: the
// island holds JSON that HTML does not parse as markup.
func TestFirstPageIslandEscapesResultText(t *testing.T) {
	hostile := "</script><script>alert(1)</script><!-- \u2028\u2029 & <b>"
	page := &ResultPage{Rows: []ResultRow{{ID: 1, Tool: hostile, Project: hostile, File: hostile}}, Total: 1}
	body := string(withIsland([]byte(indexHTML), islandJSON(page)))
	if n := strings.Count(body, "</script>"); n != strings.Count(indexHTML, "</script>")+1 {
		t.Fatalf("%d script ends in the page, want the original's and the island's: %s", n, body)
	}
	for _, bad := range []string{"<script>alert", "<!--", "<b>", "\u2028", "\u2029"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	m := islandRE.FindStringSubmatch(body)
	var got firstPageIsland
	if m == nil || json.Unmarshal([]byte(m[1]), &got) != nil || got.Value == nil || got.Value.Rows[0].Tool != hostile {
		t.Errorf("the island does not read back the result's text: %v", m)
	}
}

func TestFirstPageIslandWithoutAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		page func(t *testing.T) *FirstPage
	}{
		{"the index cannot open", func(t *testing.T) *FirstPage {
			dir := t.TempDir()
			// A folder where the index file should be.
			if err := os.MkdirAll(filepath.Join(dir, "index.db"), 0o755); err != nil {
				t.Fatal(err)
			}
			store := NewStore(Config{DataDir: dir}, nil)
			t.Cleanup(func() { store.Close() })
			f := PrepareFirstPage(NewSessions(store))
			<-f.ready
			return f
		}},
		{"the answer is late", func(t *testing.T) *FirstPage {
			return &FirstPage{ready: make(chan struct{})}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			body, _ := serve(t, tc.page(t).Middleware(pageServer), "/")
			m := islandRE.FindStringSubmatch(body)
			if m == nil || m[1] != `{"offset":0,"limit":`+strconv.Itoa(FirstPageLimit)+`}` {
				t.Fatalf("want the bare page to ask for, got %v", m)
			}
			if waited := time.Since(start); waited > firstPageWait+2*time.Second {
				t.Errorf("the HTML waited %s for the first page", waited)
			}
		})
	}
}

// An HTML without the reading script goes out as it came.
func TestFirstPageIslandNeedsItsReader(t *testing.T) {
	html := []byte("<html><head></head><body></body></html>")
	if got := withIsland(html, islandJSON(&ResultPage{})); !bytes.Equal(got, html) {
		t.Errorf("changed: %s", got)
	}
}

// The first page is the window's page size: a different one is dropped by
// the page (lib/firstpage.ts takes only the page it asks for).
func TestFirstPageLimitIsTheWindowsPageSize(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "frontend", "src", "stores", "paged.ts"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export const PAGE_SIZE = (\d+);`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no PAGE_SIZE in frontend/src/stores/paged.ts")
	}
	if n, _ := strconv.Atoi(string(m[1])); n != FirstPageLimit {
		t.Errorf("PAGE_SIZE is %d, FirstPageLimit %d", n, FirstPageLimit)
	}
}
