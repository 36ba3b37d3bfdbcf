package imagecost

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// checkSniffed is the invariant every successful sniff must hold.
func checkSniffed(t *testing.T, info Info, err error) {
	t.Helper()
	if err != nil {
		if strings.Contains(err.Error(), "decoder failed") {
			t.Fatalf("a header decoder panicked: %v", err)
		}
		return
	}
	if info.Width <= 0 || info.Height <= 0 || info.Width > MaxSide || info.Height > MaxSide ||
		int64(info.Width)*int64(info.Height) > MaxPixels {
		t.Fatalf("dimensions out of range: %+v", info)
	}
	if _, ok := formats[info.Format]; !ok || formats[info.Format].mediaType != info.MediaType {
		t.Fatalf("bad format/media type: %+v", info)
	}
	for _, r := range Routes() {
		if r.Calc == nil {
			continue
		}
		if n, err := r.Calc(info.Width, info.Height); err != nil || n <= 0 {
			t.Fatalf("%s(%d, %d) = %d, %v", r.Name, info.Width, info.Height, n, err)
		}
	}
}

func seedAll(f *testing.F) {
	f.Add(encodePNG(f, 9, 7))
	f.Add(encodeJPEG(f, 9, 7))
	f.Add(encodeGIF(f, 9, 7))
	f.Add(encodeBMP(f, 9, 7))
	f.Add(encodeTIFF(f, 9, 7))
	f.Add(webpLossless(9, 7))
	f.Add(webpExtended(9, 7))
	f.Add(webpLossy(9, 7))
	f.Add(pngHeader(100000, 100000))
	f.Add(gifHeader(0, 0))
	f.Add([]byte("not an image"))
}

// FuzzSniff feeds arbitrary bytes to every entry point: no panic, any
// success within limits, and the three entry points agree.
func FuzzSniff(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Sniff(data)
		checkSniffed(t, info, err)
		rinfo, rerr := SniffReader(bytes.NewReader(data))
		checkSniffed(t, rinfo, rerr)
		if (err == nil) != (rerr == nil) || info != rinfo {
			t.Fatalf("Sniff = %+v, %v but SniffReader = %+v, %v", info, err, rinfo, rerr)
		}
		binfo, berr := SniffBase64(base64.StdEncoding.EncodeToString(data))
		if len(data) > 0 && ((err == nil) != (berr == nil) || info != binfo) {
			t.Fatalf("Sniff = %+v, %v but SniffBase64 = %+v, %v", info, err, binfo, berr)
		}
	})
}

// fuzzFamily pins one format's signature so the fuzzer spends its time in
// that decoder instead of rediscovering the magic bytes.
func fuzzFamily(f *testing.F, signature string, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(bytes.TrimPrefix(s, []byte(signature)))
	}
	f.Fuzz(func(t *testing.T, rest []byte) {
		data := append([]byte(signature), rest...)
		info, err := Sniff(data)
		checkSniffed(t, info, err)
		rinfo, rerr := SniffReader(bytes.NewReader(data))
		checkSniffed(t, rinfo, rerr)
		if (err == nil) != (rerr == nil) || info != rinfo {
			t.Fatalf("Sniff = %+v, %v but SniffReader = %+v, %v", info, err, rinfo, rerr)
		}
	})
}

func FuzzSniffPNG(f *testing.F) {
	fuzzFamily(f, "\x89PNG\r\n\x1a\n", encodePNG(f, 9, 7), pngHeader(3, 4))
}

func FuzzSniffJPEG(f *testing.F) {
	fuzzFamily(f, "\xff\xd8\xff", encodeJPEG(f, 9, 7))
}

func FuzzSniffGIF(f *testing.F) {
	fuzzFamily(f, "GIF89a", encodeGIF(f, 9, 7), gifHeader(3, 4))
}

func FuzzSniffWebP(f *testing.F) {
	// The RIFF size field sits between the two fixed words, so the fuzzer
	// gets everything after "RIFF" and the test checks the WEBP word below.
	fuzzFamily(f, "RIFF", webpLossless(9, 7), webpExtended(9, 7), webpLossy(9, 7))
}

func FuzzSniffBMP(f *testing.F) {
	fuzzFamily(f, "BM", encodeBMP(f, 9, 7))
}

func FuzzSniffTIFF(f *testing.F) {
	fuzzFamily(f, "II*\x00", encodeTIFF(f, 9, 7))
}

// FuzzSniffBase64 feeds arbitrary text: no panic, successes within limits.
func FuzzSniffBase64(f *testing.F) {
	f.Add(base64.StdEncoding.EncodeToString(encodePNG(f, 9, 7)))
	f.Add("data:image/gif;base64," + base64.StdEncoding.EncodeToString(gifHeader(5, 5)))
	f.Add(base64.RawURLEncoding.EncodeToString(webpExtended(9, 7)))
	f.Add("iVBORw0KGgo=\n\n!!")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		info, err := SniffBase64(s)
		checkSniffed(t, info, err)
	})
}
