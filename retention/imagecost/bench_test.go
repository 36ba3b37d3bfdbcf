package imagecost

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

func benchFiles(b *testing.B) map[string][]byte {
	return map[string][]byte{
		"png":  encodePNG(b, 1920, 1080),
		"jpeg": encodeJPEG(b, 1920, 1080),
		"gif":  encodeGIF(b, 640, 480),
		"webp": webpExtended(1920, 1080),
		"bmp":  encodeBMP(b, 640, 480),
		"tiff": encodeTIFF(b, 640, 480),
	}
}

func BenchmarkSniff(b *testing.B) {
	for name, data := range benchFiles(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Sniff(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSniffReader(b *testing.B) {
	for name, data := range benchFiles(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SniffReader(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSniffFile reads headers from disk; TIFF reads its directory at
// its offset instead of streaming the pixels before it.
func BenchmarkSniffFile(b *testing.B) {
	dir := b.TempDir()
	for name, data := range benchFiles(b) {
		path := filepath.Join(dir, "image."+name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SniffFile(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSniffBase64 sniffs a 1920x1080 PNG encoded as base64; its cost
// must not grow with the size of the data, only the header is decoded.
func BenchmarkSniffBase64(b *testing.B) {
	data := base64.StdEncoding.EncodeToString(encodePNG(b, 1920, 1080))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SniffBase64(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCalculators(b *testing.B) {
	sizes := [][2]int{{200, 200}, {1920, 1080}, {3840, 2160}, {1075, 1520}}
	for _, r := range Routes() {
		if r.Calc == nil {
			continue
		}
		b.Run(r.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range sizes {
					if _, err := r.Calc(s[0], s[1]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
