package imagecost

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unsafe"

	asmbase64 "github.com/segmentio/asm/base64"
)

// DecodeBase64 decodes image data the way every reader of tool results must:
// the standard or the URL-safe alphabet, padded or not, with ASCII
// whitespace anywhere (MIME line breaks) and an optional "data:...;base64,"
// prefix. It is the one decoder the indexer, the CLI and the window share,
// through Base64Reader, which SniffBase64 and the streaming attachment store
// read too. Errors wrap ErrBase64.
func DecodeBase64(data string) ([]byte, error) {
	out, err := AppendBase64(nil, data)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AppendBase64 appends the bytes DecodeBase64 returns to dst, so a caller
// that is done with them at once (a header check, a hash) decodes into a
// buffer it reuses. On an error dst comes back as it was.
func AppendBase64(dst []byte, data string) ([]byte, error) {
	payload, err := base64Payload(data)
	if err != nil {
		return dst, err
	}
	if out, ok := decodePlain(dst, payload); ok {
		return out, nil
	}
	r := newBase64Reader(payload)
	out := slices.Grow(dst, base64.RawStdEncoding.DecodedLen(len(payload)))
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// Base64Reader streams the bytes DecodeBase64 would return, without holding
// them: a caller that hashes or writes a large image reads it through this.
// An empty payload (after any data-URL prefix) is an error at once; a bad
// character is an error wrapping ErrBase64 from Read, after the bytes
// before it.
func Base64Reader(data string) (io.Reader, error) {
	payload, err := base64Payload(data)
	if err != nil {
		return nil, err
	}
	return newBase64Reader(payload), nil
}

func newBase64Reader(payload string) io.Reader {
	return &b64Source{r: base64.NewDecoder(base64.RawStdEncoding, &b64Filter{s: payload})}
}

// decodePlain is DecodeBase64's fast path for the common shape: the
// standard alphabet, its padding only at the end. The filter (b64Filter)
// reads such data unchanged but for the padding and the line breaks the
// standard decoder also skips, so a successful one-shot decode returns the
// same bytes; anything else (whitespace, the URL-safe alphabet, a bad
// character, '=' inside) fails here and goes the filtered way, which
// reports the fault as before.
func decodePlain(dst []byte, payload string) ([]byte, bool) {
	s := strings.TrimRight(payload, "=")
	if strings.IndexByte(s, '=') >= 0 || s == "" {
		return nil, false
	}
	out := slices.Grow(dst, base64.RawStdEncoding.DecodedLen(len(s)))
	free := out[len(out):cap(out)]
	// The decoder only reads its source: the string's bytes are not copied.
	n, err := plainDecoder.Decode(free, unsafe.Slice(unsafe.StringData(s), len(s)))
	if err != nil {
		return nil, false
	}
	return out[:len(out)+n], true
}

// plainDecoder is the one-shot decoder: segmentio/asm's, whose vector
// loop (AVX2 where the CPU has it) decodes screenshots' base64 about 8
// times as fast as encoding/base64 on this project's machines (a fifth of
// a Claude Code structure pass went to it). It decodes what the standard
// decoder decodes to the same bytes (FuzzPlainDecoderMatchesStd); an input
// it refuses goes the filtered way, as any fault does.
var plainDecoder = asmbase64.RawStdEncoding

// base64Payload is data without surrounding whitespace and any data-URL
// prefix; an empty payload is an error.
func base64Payload(data string) (string, error) {
	data = strings.TrimSpace(data)
	if strings.HasPrefix(data, "data:") {
		comma := strings.IndexByte(data, ',')
		if comma < 0 {
			return "", fmt.Errorf("%w: data URL without a comma", ErrBase64)
		}
		data = strings.TrimSpace(data[comma+1:])
	}
	if data == "" {
		return "", fmt.Errorf("%w: empty", ErrBase64)
	}
	return data, nil
}
