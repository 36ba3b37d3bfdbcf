package imagecost

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	cases := []struct {
		name   string
		data   []byte
		format string
		media  string
		w, h   int
	}{
		{"png", encodePNG(t, 300, 200), FormatPNG, "image/png", 300, 200},
		{"jpeg", encodeJPEG(t, 301, 199), FormatJPEG, "image/jpeg", 301, 199},
		{"gif", encodeGIF(t, 64, 48), FormatGIF, "image/gif", 64, 48},
		{"bmp", encodeBMP(t, 33, 17), FormatBMP, "image/bmp", 33, 17},
		{"tiff", encodeTIFF(t, 40, 30), FormatTIFF, "image/tiff", 40, 30},
		{"webp lossless", webpLossless(1920, 1080), FormatWebP, "image/webp", 1920, 1080},
		{"webp extended", webpExtended(3000, 2000), FormatWebP, "image/webp", 3000, 2000},
		{"webp lossy", webpLossy(640, 480), FormatWebP, "image/webp", 640, 480},
		{"png header only", pngHeader(1000, 1000), FormatPNG, "image/png", 1000, 1000},
		{"gif header only", gifHeader(10, 20), FormatGIF, "image/gif", 10, 20},
		{"jpeg with 3 large APP1 segments", jpegWithAPP(t, 50, 60, 3), FormatJPEG, "image/jpeg", 50, 60},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := Info{Format: tc.format, MediaType: tc.media, Width: tc.w, Height: tc.h}
			got, err := Sniff(tc.data)
			if err != nil || got != want {
				t.Errorf("Sniff = %+v, %v; want %+v", got, err, want)
			}
			got, err = SniffReader(bytes.NewReader(tc.data))
			if err != nil || got != want {
				t.Errorf("SniffReader = %+v, %v; want %+v", got, err, want)
			}
			got, err = SniffBase64(base64.StdEncoding.EncodeToString(tc.data))
			if err != nil || got != want {
				t.Errorf("SniffBase64 = %+v, %v; want %+v", got, err, want)
			}
		})
	}
}

func TestSniffRejects(t *testing.T) {
	png := encodePNG(t, 30, 20)
	jpg := encodeJPEG(t, 30, 20)
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrNotImage},
		{"text", []byte("hello, this is not an image"), ErrNotImage},
		{"svg is not a raster format", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), ErrNotImage},
		{"png signature only", png[:8], ErrHeader},
		{"png cut inside IHDR", png[:20], ErrHeader},
		{"png bad IHDR crc", append(append([]byte{}, png[:29]...), 0, 0, 0, 0), ErrHeader},
		{"png 0x0", pngHeader(0, 0), ErrHeader},
		{"png 100000x100000", pngHeader(100000, 100000), ErrDimensions},
		{"png 40000x1 beyond MaxSide", pngHeader(40000, 1), ErrDimensions},
		{"png 20000x20000 beyond MaxPixels", pngHeader(20000, 20000), ErrDimensions},
		{"jpeg SOI only", jpg[:3], ErrHeader},
		{"jpeg cut before SOF", jpg[:20], ErrHeader},
		{"gif 0x0", gifHeader(0, 0), ErrDimensions},
		{"gif 0x5", gifHeader(0, 5), ErrDimensions},
		{"gif cut", gifHeader(10, 10)[:8], ErrHeader},
		{"webp riff only", []byte("RIFF\x04\x00\x00\x00WEBP"), ErrHeader},
		{"webp extended 40000x10", webpExtended(40000, 10), ErrDimensions},
		{"webp extended 100000x100000", webpExtended(100000, 100000), ErrHeader},
		{"webp lossy 0x0", webpLossy(0, 0), ErrDimensions},
		{"bmp signature only", []byte("BM"), ErrNotImage},
		{"text starting with BM", []byte("BMW service notes, page 1 of 3"), ErrNotImage},
		{"bmp cut after the DIB size", encodeBMP(t, 30, 20)[:18], ErrHeader},
		{"tiff signature only", []byte("II*\x00"), ErrHeader},
		{"tiff IFD offset past the end", []byte("MM\x00*\x7f\xff\xff\xff"), ErrHeader},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Sniff(tc.data)
			if !errors.Is(err, tc.want) {
				t.Errorf("Sniff: err = %v, want %v", err, tc.want)
			}
			_, err = SniffReader(bytes.NewReader(tc.data))
			if !errors.Is(err, tc.want) {
				t.Errorf("SniffReader: err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSniffTruncatedEveryLength(t *testing.T) {
	files := map[string][]byte{
		"png": encodePNG(t, 30, 20), "jpeg": encodeJPEG(t, 30, 20), "gif": encodeGIF(t, 30, 20),
		"bmp": encodeBMP(t, 30, 20), "tiff": encodeTIFF(t, 30, 20), "webp": webpExtended(30, 20),
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			for n := range min(len(data), 4096) {
				info, err := Sniff(data[:n])
				if err == nil && (info.Width != 30 || info.Height != 20) {
					t.Fatalf("prefix %d: %+v, want 30x20 or an error", n, info)
				}
			}
		})
	}
}

// countingReader counts the bytes handed out, to check how far a sniff reads.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestSniffReaderReadsOnlyAPrefix(t *testing.T) {
	tail := bytes.Repeat([]byte{0xAB}, 4<<20)
	cases := map[string][]byte{
		"png":  append(pngHeader(800, 600), tail...),
		"gif":  append(gifHeader(800, 600), tail...),
		"webp": append(webpExtended(800, 600), tail...),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &countingReader{r: bytes.NewReader(data)}
			info, err := SniffReader(cr)
			if err != nil || info.Width != 800 || info.Height != 600 {
				t.Fatalf("SniffReader = %+v, %v", info, err)
			}
			if cr.n > 64<<10 {
				t.Errorf("read %d bytes for a %s header", cr.n, name)
			}
		})
	}
}

func TestSniffReaderBound(t *testing.T) {
	// 130 APP1 segments of 64 KiB put the frame header past MaxHeaderBytes.
	late := jpegWithAPP(t, 20, 10, 130)
	if len(late) <= MaxHeaderBytes {
		t.Fatalf("test file is %d bytes, want more than %d", len(late), MaxHeaderBytes)
	}
	cr := &countingReader{r: bytes.NewReader(late)}
	if _, err := SniffReader(cr); !errors.Is(err, ErrHeader) {
		t.Errorf("SniffReader: err = %v, want ErrHeader", err)
	}
	if cr.n > MaxHeaderBytes {
		t.Errorf("read %d bytes, beyond MaxHeaderBytes %d", cr.n, MaxHeaderBytes)
	}
	// 100 segments (6.25 MiB) are within the bound.
	info, err := SniffReader(bytes.NewReader(jpegWithAPP(t, 20, 10, 100)))
	if err != nil || info.Width != 20 || info.Height != 10 {
		t.Errorf("SniffReader with 100 APP1 segments = %+v, %v", info, err)
	}
}

func TestSniffFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("png saved as notes.txt is a png", func(t *testing.T) {
		info, err := SniffFile(write("notes.txt", encodePNG(t, 12, 34)))
		if err != nil || info.Format != FormatPNG || info.Width != 12 || info.Height != 34 {
			t.Errorf("SniffFile = %+v, %v", info, err)
		}
	})
	t.Run("text named shot.png is not an image", func(t *testing.T) {
		p := write("shot.png", []byte("just some text\n"))
		_, err := SniffFile(p)
		if !errors.Is(err, ErrNotImage) || !strings.Contains(err.Error(), p) {
			t.Errorf("SniffFile: err = %v, want ErrNotImage naming %s", err, p)
		}
	})
	t.Run("tiff with its directory after the pixels", func(t *testing.T) {
		info, err := SniffFile(write("scan.tif", encodeTIFF(t, 640, 480)))
		if err != nil || info.Format != FormatTIFF || info.Width != 640 || info.Height != 480 {
			t.Errorf("SniffFile = %+v, %v", info, err)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		if _, err := SniffFile(write("empty.png", nil)); !errors.Is(err, ErrNotImage) {
			t.Errorf("SniffFile: err = %v, want ErrNotImage", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		_, err := SniffFile(filepath.Join(dir, "absent.png"))
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("SniffFile: err = %v, want os.ErrNotExist", err)
		}
	})
}

func TestSniffBase64(t *testing.T) {
	png := encodePNG(t, 70, 50)
	std := base64.StdEncoding.EncodeToString(png)
	wrapped := func(s string, n int) string {
		var b strings.Builder
		for len(s) > n {
			b.WriteString(s[:n])
			b.WriteString("\r\n")
			s = s[n:]
		}
		b.WriteString(s)
		return b.String()
	}
	ok := []struct{ name, data string }{
		{"standard", std},
		{"MIME line breaks", wrapped(std, 76)},
		{"spaces and tabs", "  " + strings.Join(strings.SplitAfter(std, "A"), " \t") + "\n"},
		{"unpadded", base64.RawStdEncoding.EncodeToString(png)},
		{"url-safe", base64.URLEncoding.EncodeToString(png)},
		{"url-safe unpadded", base64.RawURLEncoding.EncodeToString(png)},
		{"data URL", "data:image/png;base64," + std},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			info, err := SniffBase64(tc.data)
			if err != nil || info.Width != 70 || info.Height != 50 || info.Format != FormatPNG {
				t.Errorf("SniffBase64 = %+v, %v", info, err)
			}
		})
	}
	bad := []struct {
		name, data string
		want       error
	}{
		{"empty", "", ErrBase64},
		{"only whitespace", " \n\t ", ErrBase64},
		{"invalid character at the start", "!!!!" + std, ErrBase64},
		{"invalid character in the header", std[:12] + "*" + std[13:], ErrBase64},
		{"data URL without comma", "data:image/png;base64", ErrBase64},
		{"base64 of text", base64.StdEncoding.EncodeToString([]byte("plain words, not pixels")), ErrNotImage},
		{"truncated header", std[:16], ErrHeader},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := SniffBase64(tc.data); !errors.Is(err, tc.want) {
				t.Errorf("SniffBase64: err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestContradicts(t *testing.T) {
	pngInfo := Info{Format: FormatPNG, MediaType: "image/png", Width: 1, Height: 1}
	jpegInfo := Info{Format: FormatJPEG, MediaType: "image/jpeg", Width: 1, Height: 1}
	cases := []struct {
		name     string
		declared string
		info     Info
		want     bool
	}{
		{"same", "image/png", pngInfo, false},
		{"case and parameters", "IMAGE/PNG; charset=binary", pngInfo, false},
		{"jpg alias", "image/jpg", jpegInfo, false},
		{"pjpeg alias", "image/pjpeg", jpegInfo, false},
		{"nothing declared", "", pngInfo, false},
		{"jpeg declared, png bytes", "image/jpeg", pngInfo, true},
		{"text declared, png bytes", "text/plain", pngInfo, true},
		{"garbage declared", "not a media type", pngInfo, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Contradicts(tc.declared, tc.info); got != tc.want {
				t.Errorf("Contradicts(%q, %s) = %v, want %v", tc.declared, tc.info.MediaType, got, tc.want)
			}
		})
	}
}

func TestCheckDimensions(t *testing.T) {
	cases := []struct {
		name string
		w, h int
		ok   bool
	}{
		{"1x1", 1, 1, true},
		{"max side", MaxSide, 1, true},
		{"max pixels", 16384, 16384, true},
		{"zero width", 0, 1, false},
		{"negative", -5, 5, false},
		{"side too long", MaxSide + 1, 1, false},
		{"too many pixels", 16385, 16384, false},
		{"100000x100000", 100000, 100000, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckDimensions(tc.w, tc.h)
			if (err == nil) != tc.ok {
				t.Errorf("CheckDimensions(%d, %d) = %v, want ok=%v", tc.w, tc.h, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrDimensions) {
				t.Errorf("err = %v, want ErrDimensions", err)
			}
		})
	}
}
