package imagecost

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// ErrDamaged reports image bytes whose header reads but whose body does not
// hold together: a screenshot cut short, or redacted in the middle.
var ErrDamaged = errors.New("imagecost: damaged image")

// pngSignature opens every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// CheckIntact checks that the whole of data, an image whose header Sniff
// read as info, holds together where the format lets that be checked
// without decoding pixels: every PNG chunk lies within the data and its
// CRC-32 matches, up to IEND. A header can survive damage that the body
// does not (a log's redaction replacing bytes mid-stream), and Sniff reads
// only the header. Other formats carry no checksum; their header is all
// that is checked.
func CheckIntact(data []byte, info Info) error {
	if info.Format != FormatPNG {
		return nil
	}
	if len(data) < len(pngSignature) || string(data[:len(pngSignature)]) != pngSignature {
		return fmt.Errorf("%w: no PNG signature", ErrDamaged)
	}
	at := len(pngSignature)
	for {
		if len(data)-at < 12 {
			return fmt.Errorf("%w: PNG ends at byte %d before its IEND chunk", ErrDamaged, len(data))
		}
		n := binary.BigEndian.Uint32(data[at:])
		if uint64(n) > uint64(len(data)-at-12) {
			return fmt.Errorf("%w: PNG chunk at byte %d claims %d bytes, past the end", ErrDamaged, at, n)
		}
		body := data[at+4 : at+8+int(n)]
		want := binary.BigEndian.Uint32(data[at+8+int(n):])
		if crc32.ChecksumIEEE(body) != want {
			return fmt.Errorf("%w: PNG chunk %q at byte %d fails its checksum", ErrDamaged, printableType(body[:4]), at)
		}
		if string(body[:4]) == "IEND" {
			return nil
		}
		at += 12 + int(n)
	}
}

// printableType shows a chunk type for a message, its bytes as they are
// only when they are the ASCII letters a chunk type must be.
func printableType(t []byte) string {
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return fmt.Sprintf("%x", t)
		}
	}
	return string(t)
}
