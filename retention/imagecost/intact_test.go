package imagecost

import (
	"bytes"
	"errors"
	"testing"
)

func TestCheckIntact(t *testing.T) {
	good := encodePNG(t, 40, 30)
	redacted := append([]byte(nil), good...)
	copy(redacted[len(redacted)/2:], "REDACTED")
	cases := []struct {
		name    string
		data    []byte
		format  string
		damaged bool
	}{
		{"whole png", good, FormatPNG, false},
		{"png with trailing bytes", append(append([]byte(nil), good...), "trailer"...), FormatPNG, false},
		{"redacted mid-stream", redacted, FormatPNG, true},
		{"cut short", good[:len(good)-20], FormatPNG, true},
		{"header only", pngHeader(1000, 1000), FormatPNG, true},
		{"chunk claiming past the end", append(append([]byte(nil), good[:33]...), 0x7f, 0xff, 0xff, 0xff, 'I', 'D', 'A', 'T'), FormatPNG, true},
		{"no signature", []byte("not a png"), FormatPNG, true},
		{"jpeg is header-checked only", encodeJPEG(t, 10, 10)[:200], FormatJPEG, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckIntact(tc.data, Info{Format: tc.format})
			if got := err != nil; got != tc.damaged {
				t.Fatalf("CheckIntact = %v, want damaged %v", err, tc.damaged)
			}
			if err != nil && !errors.Is(err, ErrDamaged) {
				t.Errorf("%v does not wrap ErrDamaged", err)
			}
			if bytes.Contains([]byte(errString(err)), []byte("REDACTED")) {
				t.Errorf("message echoes the data: %v", err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func FuzzCheckIntact(f *testing.F) {
	f.Add(encodePNG(f, 9, 7))
	f.Add(pngHeader(3, 3))
	f.Add([]byte(pngSignature))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Never a panic, whatever the bytes; a PNG that checks out has an
		// IEND chunk.
		if CheckIntact(data, Info{Format: FormatPNG}) == nil && !bytes.Contains(data, []byte("IEND")) {
			t.Fatalf("intact without IEND: %q", data)
		}
	})
}
