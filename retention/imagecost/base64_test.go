package imagecost

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestDecodeBase64(t *testing.T) {
	raw := []byte{0xfb, 0xff, 0xfe, 0x00, 0x01, 0x02, 0x03, 0x3e, 0x3f}
	cases := []struct {
		name, in string
	}{
		{"standard padded", base64.StdEncoding.EncodeToString(raw[:8])},
		{"standard unpadded", base64.RawStdEncoding.EncodeToString(raw[:8])},
		{"url padded", base64.URLEncoding.EncodeToString(raw[:8])},
		{"url unpadded", base64.RawURLEncoding.EncodeToString(raw[:8])},
		{"line breaks", "+//+\r\nAAECAz4=\n"},
		{"data url", "data:image/png;base64," + base64.StdEncoding.EncodeToString(raw[:8])},
		{"surrounding space", "  " + base64.StdEncoding.EncodeToString(raw[:8]) + "\t"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeBase64(tc.in)
			if err != nil || !bytes.Equal(got, raw[:8]) {
				t.Errorf("DecodeBase64(%q) = %x, %v; want %x", tc.in, got, err, raw[:8])
			}
		})
	}
	for _, bad := range []string{"", "   ", "data:image/png;base64", "a", "ab!d", "data:,"} {
		if _, err := DecodeBase64(bad); !errors.Is(err, ErrBase64) {
			t.Errorf("DecodeBase64(%q): err = %v, want ErrBase64", bad, err)
		}
	}
}

func FuzzDecodeBase64(f *testing.F) {
	f.Add([]byte("hello"))
	f.Add([]byte{0xff, 0xfe})
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 {
			return
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			got, err := DecodeBase64(enc.EncodeToString(raw))
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("round trip of %x: %x, %v", raw, got, err)
			}
		}
	})
}

// streamDecode is what DecodeBase64 returned before its one-shot path: the
// bytes Base64Reader streams, or its error.
func streamDecode(s string) ([]byte, error) {
	r, err := Base64Reader(s)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// The one-shot path and the streaming reader agree on every input: the
// same bytes, or both an ErrBase64 (the reader after the bytes before the
// fault, DecodeBase64 with none).
func TestDecodeBase64MatchesReader(t *testing.T) {
	for _, in := range []string{"QUJD", "QUJD\r\nREVG", "QUI=", "QUI==", "QUI", "QU=I", "QUJD=QUJD", "QQ", "Q", "QUJ\nD=", "-_-_", "QU JD", "QUJD\x00", "QUJD====", "////"} {
		t.Run(in, func(t *testing.T) {
			checkMatchesReader(t, in)
		})
	}
}

func checkMatchesReader(t *testing.T, in string) {
	t.Helper()
	want, werr := streamDecode(in)
	if werr != nil {
		// DecodeBase64 returns no bytes with its error.
		want = nil
	}
	got, gerr := DecodeBase64(in)
	if (werr != nil) != (gerr != nil) || (gerr != nil && !errors.Is(gerr, ErrBase64)) || !bytes.Equal(got, want) {
		t.Fatalf("DecodeBase64(%q) = %x, %v; the reader gives %x, %v", in, got, gerr, want, werr)
	}
	// Appending keeps what dst held, and leaves it alone on an error.
	pre := []byte("pre")
	app, aerr := AppendBase64(pre[:len(pre):len(pre)], in)
	if (aerr != nil) != (gerr != nil) || string(app) != "pre"+string(got) {
		t.Fatalf("AppendBase64(pre, %q) = %q, %v; want %q, %v", in, app, aerr, "pre"+string(got), gerr)
	}
}

func FuzzDecodeBase64MatchesReader(f *testing.F) {
	for _, s := range []string{"QUJD", "QUI=", "QU=I", "QUJD\r\n", "-_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { checkMatchesReader(t, in) })
}

// plainInputs are one-shot decoder inputs long enough for its vector loop,
// valid and not: a bad character at a vector's edge, a line break inside,
// a length no decoder accepts, trailing bits that are not zero.
func plainInputs() []string {
	long := base64.RawStdEncoding.EncodeToString(bytes.Repeat([]byte("spillscope\x00\xff\x10"), 97))
	out := []string{long, long[:len(long)-1], long[:len(long)-2], long[:len(long)-3], long[:31], long[:32], long[:33], long[:64], long[:65]}
	for _, at := range []int{0, 15, 16, 31, 32, 47, 63, 64, 100, len(long) - 1} {
		for _, bad := range []string{"!", "\n", "\r\n", "-", "_", "=", " ", "\x00", "\xc3\xa9"} {
			out = append(out, long[:at]+bad+long[at:])
		}
	}
	// "QR" is a byte with non-zero trailing bits ("QQ" would be zero).
	return append(out, long[:60]+"QR", long[:61]+"QR", "QR", "QUI", "QUJDQR")
}

// The one-shot decoder accepts only what encoding/base64's decodes, with
// the same bytes; where it refuses, DecodeBase64 still matches the
// streaming reader.
func TestPlainDecoderMatchesStd(t *testing.T) {
	for i, in := range plainInputs() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkPlainDecoder(t, in)
			checkMatchesReader(t, in)
		})
	}
}

func checkPlainDecoder(t *testing.T, in string) {
	t.Helper()
	// The destination is exactly DecodedLen long, as decodePlain's may
	// be; the guard after it shows whether the vector loop wrote past it.
	size := base64.RawStdEncoding.DecodedLen(len(in))
	buf := bytes.Repeat([]byte{0xa5}, size+64)
	got := buf[:size:size]
	want := make([]byte, size)
	n, err := plainDecoder.Decode(got, []byte(in))
	m, werr := base64.RawStdEncoding.Decode(want, []byte(in))
	if !bytes.Equal(buf[size:], bytes.Repeat([]byte{0xa5}, 64)) {
		t.Fatalf("%q: the one-shot decoder wrote past the %d bytes of its destination", in, size)
	}
	if err == nil && (werr != nil || !bytes.Equal(got[:n], want[:m])) {
		t.Fatalf("%q: the one-shot decoder gives %x, encoding/base64 %x, %v", in, got[:n], want[:m], werr)
	}
}

func FuzzPlainDecoderMatchesStd(f *testing.F) {
	for _, s := range plainInputs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkPlainDecoder(t, in)
		checkMatchesReader(t, in)
	})
}
