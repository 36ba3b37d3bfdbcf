package retention

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unicode/utf16"

	"github.com/pkoukk/tiktoken-go"

	"spillscope/retention/imagecost"
)

func budget(n int64) *int64 { return &n }

func textBlock(s string) Block { return Block{Type: TypeText, Text: s} }

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w && i < h; i++ {
		img.Set(i, i, color.NRGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writePNG stores a real w x h PNG in dir and returns an image block naming it.
func writePNG(t testing.TB, dir string, w, h int) Block {
	t.Helper()
	p := filepath.Join(dir, "img-"+itoa(w)+"x"+itoa(h)+".png")
	if err := os.WriteFile(p, pngBytes(t, w, h), 0o600); err != nil {
		t.Fatal(err)
	}
	return Block{Type: TypeImage, MimeType: "image/png", Path: p}
}

func itoa(n int) string { return strconv.Itoa(n) }

func dataPNG(t testing.TB, w, h int) Block {
	return Block{Type: TypeImage, MimeType: "image/png", Data: base64.StdEncoding.EncodeToString(pngBytes(t, w, h))}
}

// pngHeader is a PNG signature and an IHDR chunk claiming w x h, with a valid
// CRC, and nothing else: enough for a header-only reader.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.Write([]byte("\x89PNG\r\n\x1a\n"))
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// tiktokenOf is tiktoken-go's own encoder, the reference every count of the
// package is checked against.
func tiktokenOf(t testing.TB, encoding string) *tiktoken.Tiktoken {
	t.Helper()
	tk, err := Encoder(encoding)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// estimate re-prices an outcome's content independently of the tables:
// the estimator from scratch on each text block (tiktoken's encoder, or the
// meter's formula on UTF-16 units) and, for each kept image, the route's
// calculator plus dsh's handle text, both re-derived from the file.
func estimate(t testing.TB, content []Block, route, est string) int {
	t.Helper()
	if route == "" {
		route = DefaultRoute
	}
	if est == "" {
		est, _ = RouteEstimator(route)
	}
	count := func(s string) int {
		if est == EstimatorMeter {
			return (len(utf16.Encode([]rune(s)))+3)/4 + 4
		}
		tk, err := Encoder(est)
		if err != nil {
			t.Fatal(err)
		}
		return len(tk.EncodeOrdinary(s))
	}
	rt, err := imagecost.Lookup(route)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, b := range content {
		switch b.Type {
		case TypeText:
			total += count(b.Text)
		case TypeImage:
			raw, err := os.ReadFile(b.Path)
			if err != nil {
				t.Fatalf("kept image %q unreadable: %v", b.Path, err)
			}
			info, err := imagecost.Sniff(raw)
			if err != nil {
				t.Fatal(err)
			}
			p, err := rt.Calc(info.Width, info.Height)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(raw)
			rw, rh := rt.RequestSize(info.Width, info.Height)
			f := ImageFacts{SHA256: hex.EncodeToString(sum[:]), MediaType: info.MediaType, Width: info.Width, Height: info.Height, RequestWidth: rw, RequestHeight: rh}
			total += p + count(DshHandleText(f))
		default:
			t.Fatalf("unexpected block type %q in a replacement", b.Type)
		}
	}
	return total
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// skipUnderRace skips a single-goroutine reference check (tiktoken-go or
// regexp2 against the core) in a -race run: the race detector finds nothing
// there and makes them ten times slower. `make test-go` runs the package
// once more without -race, where they run.
func skipUnderRace(t testing.TB) {
	t.Helper()
	if raceEnabled {
		t.Skip("reference check: runs in the pass without -race")
	}
}
