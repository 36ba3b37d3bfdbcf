package app

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

func TestReadSlice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spill.txt")
	text := "héllo 世界 🙂 end"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// Page through with every limit: pages are valid UTF-8 and join to the file.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for limit := int64(4); limit <= int64(len(text)); limit++ {
		var got string
		var off int64
		for i := 0; i < 100; i++ {
			s, err := readSlice(f, path, off, limit)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Exists || s.Size != int64(len(text)) {
				t.Fatalf("slice %+v", s)
			}
			if !utf8.ValidString(s.Text) {
				t.Fatalf("limit %d offset %d: invalid UTF-8 %q", limit, off, s.Text)
			}
			got += s.Text
			off += int64(len(s.Text))
			if s.EOF {
				break
			}
		}
		if got != text {
			t.Fatalf("limit %d: got %q", limit, got)
		}
	}
}
