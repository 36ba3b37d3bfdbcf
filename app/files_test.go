package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// readPath opens path as the file rule would and reads one slice of it.
func readPath(t *testing.T, path string, offset, limit int64, reveal bool) (FileSlice, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readSlice(f, path, offset, limit, reveal)
}

// pageAll reads path page by page from Next to Next and joins the pages.
func pageAll(t *testing.T, path string, limit int64, reveal bool) (string, int) {
	t.Helper()
	var got strings.Builder
	var off int64
	pages := 0
	for i := 0; i < 100000; i++ {
		s, err := readPath(t, path, off, limit, reveal)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Exists {
			t.Fatalf("slice %+v", s)
		}
		if !utf8.ValidString(s.Text) {
			t.Fatalf("limit %d offset %d: invalid UTF-8 %q", limit, off, s.Text)
		}
		if s.Next <= off && !s.EOF {
			t.Fatalf("limit %d offset %d: no progress (next %d)", limit, off, s.Next)
		}
		got.WriteString(s.Text)
		off = s.Next
		pages++
		if s.EOF {
			return got.String(), pages
		}
	}
	t.Fatal("no end")
	return "", 0
}

func TestReadSlice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spill.txt")
	text := "héllo 世界 🙂 end"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// Page through with every limit: pages are valid UTF-8 and join to the file.
	for limit := int64(4); limit <= int64(len(text)); limit++ {
		for _, reveal := range []bool{false, true} {
			if got, _ := pageAll(t, path, limit, reveal); got != text {
				t.Fatalf("limit %d reveal %v: got %q", limit, reveal, got)
			}
		}
	}
}

// A credential value is never shown in part, whichever page edge cuts it:
// each page is masked as it reads within the file.
func TestReadSliceMasksAcrossPageEdges(t *testing.T) {
	const value = "Zq7sEcReTvAlUe0123456789abcdef"
	body := "GET https://b.s3.amazonaws.com/k.png?X-Amz-Date=1&X-Amz-Signature=" + value + "&x=1 200\n" +
		"remote https://bob:" + value + "@git.example/r.git\n" +
		`{"u":"https:\/\/h.example\/p?a=1\u0026access_token=` + value + `"}` + "\n" +
		"export API_TOKEN=" + value + "\n"
	path := filepath.Join(t.TempDir(), "spill.txt")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, _ := readPath(t, path, 0, int64(len(body)), false)
	for limit := int64(1); limit <= int64(len(body)); limit++ {
		got, _ := pageAll(t, path, limit, false)
		for cut := 3; cut <= len(value); cut++ {
			for _, piece := range []string{value[:cut], value[len(value)-cut:]} {
				if strings.Contains(got, piece) {
					t.Fatalf("limit %d: pages show %q of the value:\n%s", limit, piece, got)
				}
			}
		}
		if limit > 64 && got != whole.Text {
			// Pages long enough to end past each run mask as the whole file does.
			t.Errorf("limit %d: joined pages\n%s\nwhole file\n%s", limit, got, whole.Text)
		}
	}
	for limit := int64(1); limit <= int64(len(body)); limit += 5 {
		m, _ := readPath(t, path, 0, limit, false)
		r, _ := readPath(t, path, 0, limit, true)
		if m.Next != r.Next {
			t.Fatalf("limit %d: the masked page ends at %d, the revealed one at %d", limit, m.Next, r.Next)
		}
	}
	if revealed, _ := pageAll(t, path, 7, true); revealed != body {
		t.Errorf("revealed pages do not join to the file")
	}
	if strings.Count(whole.Text, "[redacted]") != 4 || len(whole.Masks) != 4 {
		t.Errorf("whole page masks %d: %s", len(whole.Masks), whole.Text)
	}
}

// A page inside a run longer than the masking context cannot tell whether a
// value began before it, so that run is masked whole on the page.
func TestReadSliceLongRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blob.txt")
	run := "token=" + strings.Repeat("A", maxMaskContext+100<<10)
	if err := os.WriteFile(path, []byte(run+" tail"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := readPath(t, path, maxMaskContext+50<<10, 64<<10, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.Text, "AAAA") || len(s.Masks) != 1 {
		t.Errorf("page inside a long run shows %q (%d masks)", s.Text[:min(len(s.Text), 40)], len(s.Masks))
	}
}
