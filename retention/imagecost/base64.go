package imagecost

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DecodeBase64 decodes image data the way every reader of tool results must:
// the standard or the URL-safe alphabet, padded or not, with ASCII
// whitespace anywhere (MIME line breaks) and an optional "data:...;base64,"
// prefix. It is the one decoder the indexer, the CLI and the window share,
// through Base64Reader, which SniffBase64 and the streaming attachment store
// read too. Errors wrap ErrBase64.
func DecodeBase64(data string) ([]byte, error) {
	r, err := Base64Reader(data)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, base64.RawStdEncoding.DecodedLen(len(data)))
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Base64Reader streams the bytes DecodeBase64 would return, without holding
// them: a caller that hashes or writes a large image reads it through this.
// An empty payload (after any data-URL prefix) is an error at once; a bad
// character is an error wrapping ErrBase64 from Read, after the bytes
// before it.
func Base64Reader(data string) (io.Reader, error) {
	data = strings.TrimSpace(data)
	if strings.HasPrefix(data, "data:") {
		comma := strings.IndexByte(data, ',')
		if comma < 0 {
			return nil, fmt.Errorf("%w: data URL without a comma", ErrBase64)
		}
		data = strings.TrimSpace(data[comma+1:])
	}
	if data == "" {
		return nil, fmt.Errorf("%w: empty", ErrBase64)
	}
	return &b64Source{r: base64.NewDecoder(base64.RawStdEncoding, &b64Filter{s: data})}, nil
}
