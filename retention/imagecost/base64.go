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
// prefix. It is the one decoder the indexer, the CLI and the window share, and
// SniffBase64 reads the same dialect. Errors wrap ErrBase64.
func DecodeBase64(data string) ([]byte, error) {
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
	out := make([]byte, 0, base64.RawStdEncoding.DecodedLen(len(data)))
	r := base64.NewDecoder(base64.RawStdEncoding, &b64Filter{s: data})
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			var corrupt base64.CorruptInputError
			if errors.As(err, &corrupt) {
				return nil, fmt.Errorf("%w: bad character or length near offset %d", ErrBase64, int64(corrupt))
			}
			return nil, fmt.Errorf("%w: %w", ErrBase64, err)
		}
	}
}
