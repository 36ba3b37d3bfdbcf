package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"spillscope/retention/imagecost"
)

func encodedImage(t testing.TB, format string, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	default:
		t.Fatalf("no encoder for %q", format)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// storeFiles lists what a store folder holds, temporary files included.
func storeFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestStoreAttachment(t *testing.T) {
	pngData := encodedImage(t, "png", 64, 48)
	jpegData := encodedImage(t, "jpeg", 20, 10)
	textData := []byte("plain text, not an image\n")
	cutPNG := pngData[:20]
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

	tests := []struct {
		name      string
		data      []byte
		opts      StoreOptions
		notFolder bool // dir names a regular file
		noDir     bool // dir is ""
		calls     int
		wantExt   string
		wantMedia string
		wantW     int
		wantH     int
		wantErr   []error // each must match with errors.Is
		wantText  string  // the error names what was wrong
	}{
		{name: "png written once", data: pngData, calls: 1, wantExt: "png", wantMedia: "image/png", wantW: 64, wantH: 48},
		{name: "same bytes twice is one file, not rewritten", data: pngData, calls: 2, wantExt: "png", wantMedia: "image/png", wantW: 64, wantH: 48},
		{name: "same bytes three times kept", data: textData, opts: StoreOptions{KeepUnknown: true}, calls: 3, wantExt: "bin"},
		{name: "jpeg is named .jpeg", data: jpegData, calls: 1, wantExt: "jpeg", wantMedia: "image/jpeg", wantW: 20, wantH: 10},
		{name: "bytes win over the declared type", data: pngData, opts: StoreOptions{MediaType: "image/jpeg"}, calls: 1, wantExt: "png", wantMedia: "image/png", wantW: 64, wantH: 48},
		{name: "unknown format is refused", data: textData, opts: StoreOptions{MediaType: "image/png"}, calls: 1,
			wantErr: []error{ErrImage, imagecost.ErrNotImage}, wantText: "not a supported image"},
		{name: "truncated header is refused", data: cutPNG, calls: 1,
			wantErr: []error{ErrImage, imagecost.ErrHeader}, wantText: "png header truncated"},
		{name: "unknown kept as .bin", data: textData, opts: StoreOptions{KeepUnknown: true}, calls: 1, wantExt: "bin"},
		{name: "unknown kept under the declared subtype", data: textData, opts: StoreOptions{MediaType: "image/x-icon", KeepUnknown: true}, calls: 1, wantExt: "x-icon", wantMedia: "image/x-icon"},
		{name: "unsafe declared subtype falls back to .bin", data: textData, opts: StoreOptions{MediaType: "image/../../evil", KeepUnknown: true}, calls: 1, wantExt: "bin", wantMedia: "image/../../evil"},
		{name: "subtype with a colon falls back to .bin", data: textData, opts: StoreOptions{MediaType: "image/x:stream", KeepUnknown: true}, calls: 1, wantExt: "bin", wantMedia: "image/x:stream"},
		{name: "subtype with a NUL falls back to .bin", data: textData, opts: StoreOptions{MediaType: "image/x\x00y", KeepUnknown: true}, calls: 1, wantExt: "bin", wantMedia: "image/x\x00y"},
		{name: "long subtype falls back to .bin", data: textData, opts: StoreOptions{MediaType: "image/" + strings.Repeat("x", 17), KeepUnknown: true}, calls: 1, wantExt: "bin", wantMedia: "image/" + strings.Repeat("x", 17)},
		{name: "upper-case subtype falls back to .bin", data: textData, opts: StoreOptions{MediaType: "image/X-ICON", KeepUnknown: true}, calls: 1, wantExt: "bin", wantMedia: "image/X-ICON"},
		{name: "subtype with plus kept", data: textData, opts: StoreOptions{MediaType: "image/svg+xml", KeepUnknown: true}, calls: 1, wantExt: "svg+xml", wantMedia: "image/svg+xml"},
		{name: "empty bytes", data: nil, opts: StoreOptions{KeepUnknown: true}, calls: 1, wantErr: []error{ErrImage}, wantText: "no bytes"},
		{name: "no folder", data: pngData, noDir: true, calls: 1, wantErr: []error{ErrAttachmentStore}, wantText: "no folder"},
		{name: "folder is a file", data: pngData, notFolder: true, calls: 1, wantErr: []error{ErrAttachmentStore}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "attachments")
			switch {
			case tt.noDir:
				dir = ""
			case tt.notFolder:
				if err := os.WriteFile(dir, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var first os.FileInfo
			for call := 1; call <= tt.calls; call++ {
				a, path, err := StoreAttachment(dir, tt.data, tt.opts)
				if tt.wantErr != nil {
					if err == nil {
						t.Fatalf("call %d: got %+v at %q, want an error", call, a, path)
					}
					for _, want := range tt.wantErr {
						if !errors.Is(err, want) {
							t.Errorf("error %q is not %q", err, want)
						}
					}
					if !strings.Contains(err.Error(), tt.wantText) {
						t.Errorf("error %q does not say %q", err, tt.wantText)
					}
					if !tt.notFolder && !tt.noDir {
						if got := storeFiles(t, dir); len(got) != 0 {
							t.Errorf("refused bytes left files %q", got)
						}
					}
					return
				}
				if err != nil {
					t.Fatalf("call %d: %v", call, err)
				}
				want := Attachment{SHA256: hashOf(tt.data), MediaType: tt.wantMedia, Ext: tt.wantExt, Width: tt.wantW, Height: tt.wantH, Bytes: int64(len(tt.data))}
				if a != want {
					t.Errorf("call %d: got %+v, want %+v", call, a, want)
				}
				if wantPath := filepath.Join(dir, want.SHA256+"."+want.Ext); path != wantPath {
					t.Errorf("call %d: path %q, want %q", call, path, wantPath)
				}
				got, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(got, tt.data) {
					t.Fatalf("call %d: stored bytes differ (%v)", call, err)
				}
				if names := storeFiles(t, dir); len(names) != 1 || names[0] != filepath.Base(path) {
					t.Errorf("call %d: store holds %q, want only %q", call, names, filepath.Base(path))
				}
				st, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if call == 1 {
					// An old mtime shows whether a later call rewrote it.
					if err := os.Chtimes(path, old, old); err != nil {
						t.Fatal(err)
					}
					if first, err = os.Stat(path); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if !os.SameFile(first, st) || !st.ModTime().Equal(old) {
					t.Errorf("call %d rewrote the file (mtime %v, want %v)", call, st.ModTime(), old)
				}
			}
		})
	}
}

// Writers storing the same bytes at once (two indexers, a paste during an
// index pass) must all succeed and leave one whole file.
func TestStoreAttachmentConcurrent(t *testing.T) {
	tests := []struct {
		name    string
		writers int
		data    [][]byte
	}{
		{"two writers same bytes", 2, [][]byte{encodedImage(t, "png", 300, 200)}},
		{"many writers same bytes", 16, [][]byte{encodedImage(t, "jpeg", 120, 90)}},
		{"many writers two images", 16, [][]byte{encodedImage(t, "png", 30, 20), encodedImage(t, "jpeg", 30, 20)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "attachments")
			paths := make([]string, tt.writers)
			errs := make([]error, tt.writers)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range tt.writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, paths[i], errs[i] = StoreAttachment(dir, tt.data[i%len(tt.data)], StoreOptions{})
				}()
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("writer %d: %v", i, err)
				}
				want := tt.data[i%len(tt.data)]
				got, err := os.ReadFile(paths[i])
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("writer %d: %q holds other bytes (%v)", i, paths[i], err)
				}
			}
			if names := storeFiles(t, dir); len(names) != len(tt.data) {
				t.Errorf("store holds %q, want %d files and no temporary ones", names, len(tt.data))
			}
		})
	}
}

// Storing from a stream names, describes and writes the bytes exactly as
// storing them whole does; bad base64 stores nothing and leaves no
// temporary file.
func TestStoreAttachmentFromMatchesStore(t *testing.T) {
	pngBytes := encodedImage(t, "png", 300, 200)
	tests := []struct {
		name string
		data []byte
		opts StoreOptions
	}{
		{"png", pngBytes, StoreOptions{MediaType: "image/png"}},
		{"jpeg declared as png", encodedImage(t, "jpeg", 40, 30), StoreOptions{MediaType: "image/png"}},
		{"unknown bytes kept", []byte("not an image at all"), StoreOptions{MediaType: "image/x-thing", KeepUnknown: true}},
		{"unknown bytes refused", []byte("not an image at all"), StoreOptions{MediaType: "image/png"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantA, wantPath, wantErr := StoreAttachment(filepath.Join(t.TempDir(), "a"), tt.data, tt.opts)
			dir := filepath.Join(t.TempDir(), "b")
			gotA, gotPath, gotErr := StoreAttachmentFrom(dir, bytes.NewReader(tt.data), tt.opts)
			if (gotErr == nil) != (wantErr == nil) || gotA != wantA || filepath.Base(gotPath) != filepath.Base(wantPath) {
				t.Fatalf("got %+v %s %v, want %+v %s %v", gotA, filepath.Base(gotPath), gotErr, wantA, filepath.Base(wantPath), wantErr)
			}
			entries, _ := os.ReadDir(dir)
			if gotErr != nil {
				if !errors.Is(gotErr, ErrImage) || len(entries) != 0 {
					t.Errorf("refused with %v, %d files left", gotErr, len(entries))
				}
				return
			}
			if b, err := os.ReadFile(gotPath); err != nil || !bytes.Equal(b, tt.data) || len(entries) != 1 {
				t.Errorf("stored %d bytes (%v), %d files", len(b), err, len(entries))
			}
			// The same bytes again: one file, no temporary left.
			if _, _, err := StoreAttachmentFrom(dir, bytes.NewReader(tt.data), tt.opts); err != nil {
				t.Fatal(err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("%d files after storing the same bytes twice", len(entries))
			}
		})
	}
	t.Run("bad base64", func(t *testing.T) {
		dir := t.TempDir()
		r, err := imagecost.Base64Reader("iVBORw0KGgo" + strings.Repeat("A", 4096) + "!!")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := StoreAttachmentFrom(dir, r, StoreOptions{KeepUnknown: true}); !errors.Is(err, imagecost.ErrBase64) || !errors.Is(err, ErrImage) {
			t.Errorf("bad base64 gives %v", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%d files left", len(entries))
		}
	})
}
