package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"
)

// FirstPageLimit is how many of the largest results the first screen asks
// for first: the window's page size (PAGE_SIZE in
// frontend/src/stores/paged.ts, which a test holds equal to it).
const FirstPageLimit = 200

// firstPageWait bounds how long the page's HTML waits for the first page:
// past it the HTML goes without, and the page asks Go as any page would.
const firstPageWait = 300 * time.Millisecond

// islandID names the page's data island (public/firstpage.js reads it).
const islandID = "spillscope-first-page"

// firstPageMarker is where the island goes: before the script that reads it.
var firstPageMarker = []byte(`<script src="/firstpage.js"></script>`)

// FirstPage is the first screen's page of the largest results, read from
// the index as the process starts, while GTK and WebKit start, and handed
// to the page inside its HTML (a JSON data island, never run as script):
// the first rows draw in the page's first mount instead of after a call
// through the bindings, which waits behind the page's own loading.
type FirstPage struct {
	ready  chan struct{}
	island []byte
	// served is set once a page has had the answer: a later load of the
	// page (a reload, after an index pass) asks Go for the rows as they are
	// then, not as they were when the process started.
	served atomic.Bool
}

// firstPageIsland is the island's JSON: the page the first screen would
// ask for and, once read, Go's answer to it exactly as Sessions.Largest
// gives it through the bindings.
type firstPageIsland struct {
	Offset int         `json:"offset"`
	Limit  int         `json:"limit"`
	Value  *ResultPage `json:"value,omitempty"`
}

// PrepareFirstPage starts reading the first page as s.Largest reads it
// (under its own context: the window's does not exist yet).
func PrepareFirstPage(s *Sessions) *FirstPage {
	f := &FirstPage{ready: make(chan struct{})}
	go func() {
		defer close(f.ready)
		page, err := s.largest(context.Background(), PageQuery{Offset: 0, Limit: FirstPageLimit})
		if err != nil {
			// The page asks again and shows the error as any call's.
			return
		}
		f.island = islandJSON(&page)
	}()
	return f
}

// islandJSON is the island's text. encoding/json escapes <, > and & (and
// U+2028, U+2029), so no text of a result can close the script element.
func islandJSON(page *ResultPage) []byte {
	b, err := json.Marshal(firstPageIsland{Offset: 0, Limit: FirstPageLimit, Value: page})
	if err != nil {
		return nil
	}
	return b
}

// Middleware puts the island into the page's HTML as the asset server
// serves it (before Wails adds its own scripts): the first page's answer
// when it is ready within firstPageWait, else only the page to ask for.
func (f *FirstPage) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || (r.URL.Path != "/" && r.URL.Path != "/index.html") {
			next.ServeHTTP(w, r)
			return
		}
		rec := &htmlRecorder{header: http.Header{}, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		body := rec.body.Bytes()
		if rec.code == http.StatusOK {
			body = withIsland(body, f.wait())
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.code)
		_, _ = w.Write(body)
	})
}

// wait is the island to serve: the answer, to the first page load only,
// or the bare page when the answer is late, failed or served already.
func (f *FirstPage) wait() []byte {
	if f.served.Load() {
		return islandJSON(nil)
	}
	select {
	case <-f.ready:
		if f.island != nil && !f.served.Swap(true) {
			return f.island
		}
	case <-time.After(firstPageWait):
	}
	return islandJSON(nil)
}

// withIsland inserts island before the script that reads it; an HTML
// without that script is served as it is.
func withIsland(html, island []byte) []byte {
	at := bytes.Index(html, firstPageMarker)
	if at < 0 || island == nil {
		return html
	}
	out := make([]byte, 0, len(html)+len(island)+64)
	out = append(out, html[:at]...)
	out = append(out, `<script type="application/json" id="`+islandID+`">`...)
	out = append(out, island...)
	out = append(out, "</script>\n    "...)
	return append(out, html[at:]...)
}

// htmlRecorder keeps the index page's response to add the island to.
type htmlRecorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (h *htmlRecorder) Header() http.Header         { return h.header }
func (h *htmlRecorder) WriteHeader(code int)        { h.code = code }
func (h *htmlRecorder) Write(b []byte) (int, error) { return h.body.Write(b) }
