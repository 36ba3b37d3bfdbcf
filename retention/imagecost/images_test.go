package imagecost

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// Test images are generated, never checked in: each encoder writes a real
// file, and the WebP variants are assembled byte by byte because x/image has
// no WebP encoder.

func testImage(w, h int) image.Image {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += 7 {
		for x := 0; x < w; x += 5 {
			m.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	return m
}

func encodePNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeGIF(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gif.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeBMP(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := bmp.Encode(&b, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeTIFF(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tiff.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// riffWebP wraps one chunk in a RIFF WEBP container.
func riffWebP(chunks ...[]byte) []byte {
	var body []byte
	body = append(body, "WEBP"...)
	for _, c := range chunks {
		body = append(body, c...)
	}
	out := append([]byte("RIFF"), le32(uint32(len(body)))...)
	return append(out, body...)
}

func chunk(id string, data []byte) []byte {
	c := append([]byte(id), le32(uint32(len(data)))...)
	c = append(c, data...)
	if len(data)%2 == 1 {
		c = append(c, 0)
	}
	return c
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// webpLossless is a VP8L header for w x h (1..16384): signature byte 0x2f,
// then 14 bits width-1, 14 bits height-1, alpha bit and 3 version bits.
func webpLossless(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	data := append([]byte{0x2f}, le32(bits)...)
	return riffWebP(chunk("VP8L", data))
}

// webpExtended is a VP8X header (24-bit canvas sizes) followed by a VP8L
// chunk of the same size, as an encoder writes it.
func webpExtended(w, h int) []byte {
	x := []byte{0, 0, 0, 0,
		byte(w - 1), byte((w - 1) >> 8), byte((w - 1) >> 16),
		byte(h - 1), byte((h - 1) >> 8), byte((h - 1) >> 16)}
	return riffWebP(chunk("VP8X", x))
}

// webpLossy is a VP8 key-frame header: frame tag, start code 9d 01 2a and
// 14-bit sizes.
func webpLossy(w, h int) []byte {
	data := []byte{0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a,
		byte(w), byte(w >> 8 & 0x3f), byte(h), byte(h >> 8 & 0x3f)}
	return riffWebP(chunk("VP8 ", data))
}

// pngHeader is a PNG signature and an IHDR chunk with a valid CRC for any
// declared size, so tests can make a PNG lie about its dimensions.
func pngHeader(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA, no interlace
	out := []byte("\x89PNG\r\n\x1a\n")
	out = binary.BigEndian.AppendUint32(out, uint32(len(ihdr)))
	typed := append([]byte("IHDR"), ihdr...)
	out = append(out, typed...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(typed))
}

// gifHeader is a GIF89a logical screen descriptor of any declared size.
func gifHeader(w, h uint16) []byte {
	out := []byte("GIF89a")
	out = binary.LittleEndian.AppendUint16(out, w)
	out = binary.LittleEndian.AppendUint16(out, h)
	return append(out, 0, 0, 0)
}

// jpegWithAPP returns a JPEG whose frame header comes after n APP1 segments
// of 65533 payload bytes each, as cameras that embed large EXIF data write.
func jpegWithAPP(t testing.TB, w, h, n int) []byte {
	t.Helper()
	base := encodeJPEG(t, w, h)
	seg := make([]byte, 0, 65537)
	seg = append(seg, 0xFF, 0xE1, 0xFF, 0xFF) // APP1, length 65535
	seg = append(seg, make([]byte, 65533)...)
	out := append([]byte{}, base[:2]...)
	for range n {
		out = append(out, seg...)
	}
	return append(out, base[2:]...)
}
