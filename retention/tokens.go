package retention

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encodings the text estimator accepts.
const (
	EncodingO200k  = "o200k_base"
	EncodingCL100k = "cl100k_base"
)

// DefaultEncoding is the estimator used unless a route says otherwise.
const DefaultEncoding = EncodingO200k

var (
	loaderOnce sync.Once
	encMu      sync.Mutex
	encCache   = map[string]*tiktoken.Tiktoken{}
)

// Encoder returns the shared tokenizer for an encoding, loading its
// vocabulary from the offline copy compiled into the binary on first use. It
// never reaches the network. The returned tokenizer is safe for concurrent use.
func Encoder(encoding string) (*tiktoken.Tiktoken, error) {
	if encoding == "" {
		encoding = DefaultEncoding
	}
	if encoding != EncodingO200k && encoding != EncodingCL100k {
		return nil, fmt.Errorf("retention: unknown encoding %q (want %s or %s)", encoding, EncodingO200k, EncodingCL100k)
	}
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	encMu.Lock()
	defer encMu.Unlock()
	if enc, ok := encCache[encoding]; ok {
		return enc, nil
	}
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("retention: load %s: %w", encoding, err)
	}
	encCache[encoding] = enc
	return enc, nil
}

// CountTokens is the text estimate of s under an encoding.
func CountTokens(encoding, s string) (int, error) {
	enc, err := Encoder(encoding)
	if err != nil {
		return 0, err
	}
	return len(enc.EncodeOrdinary(s)), nil
}
