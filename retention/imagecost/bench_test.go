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

// BenchmarkAppendBase64 decodes a 1 MB image's base64 into a reused buffer,
// as the indexer's image check does: the one-shot path ("plain"), and the
// filtered path a line-broken payload takes.
func BenchmarkAppendBase64(b *testing.B) {
	raw := encodePNG(b, 640, 480)
	for len(raw) < 1<<20 {
		raw = append(raw, raw...)
	}
	raw = raw[:1<<20]
	plain := base64.StdEncoding.EncodeToString(raw)
	var broken []byte
	for i := 0; i < len(plain); i += 76 {
		broken = append(append(broken, plain[i:min(i+76, len(plain))]...), '\r', '\n')
	}
	for _, c := range []struct{ name, in string }{{"plain", plain}, {"line-broken", string(broken)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			var buf []byte
			for b.Loop() {
				out, err := AppendBase64(buf[:0], c.in)
				if err != nil || len(out) != len(raw) {
					b.Fatal(len(out), err)
				}
				buf = out
			}
		})
	}
}
